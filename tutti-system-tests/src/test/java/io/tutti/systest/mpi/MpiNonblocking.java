package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * Nonblocking and persistent point-to-point on direct buffers, and every wait and test form of
 * Request and Prequest: a ring exchange, waitAny/testAny/waitSome/testSome/testAll/getStatus,
 * PROC_NULL and null requests, the send modes, persistent sends and receives started again and
 * again, truncation reported by the wait, cancel of an unmatched and of a matched receive, heap buffers
 * refused.
 */
public final class MpiNonblocking {
    private MpiNonblocking() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Comm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;

        ring(c, rank, left, right);
        waitForms(c, rank, left, right);
        nullRequests(c);
        persistent(c, rank, left, right);
        modes(c, rank, left, right);
        errors(c, rank, size);

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": nonblocking ok");
    }

    private static void ring(Comm c, int rank, int left, int right) throws MPIException {
        IntBuffer out = MPI.newIntBuffer(8);
        IntBuffer in = MPI.newIntBuffer(8);
        DoubleBuffer big = MPI.newDoubleBuffer(1 << 17);        // 1 MiB
        DoubleBuffer bigIn = MPI.newDoubleBuffer(1 << 17);
        for (int i = 0; i < 8; i++) {
            out.put(i, rank * 10 + i);
        }
        for (int i = 0; i < big.capacity(); i++) {
            big.put(i, rank + i);
        }
        Request[] rs = {
            c.iRecv(in, 8, MPI.INT, left, 1),
            c.iRecv(bigIn, big.capacity(), MPI.DOUBLE, MPI.ANY_SOURCE, 2),
            c.iSend(out, 8, MPI.INT, right, 1),
            c.iSend(big, big.capacity(), MPI.DOUBLE, right, 2),
        };
        Status[] st = Request.waitAllStatus(rs);
        equal(left, st[0].getSource(), "iRecv source");
        equal(1, st[0].getTag(), "iRecv tag");
        equal(8, st[0].getCount(MPI.INT), "iRecv count");
        equal(left, st[1].getSource(), "1 MiB iRecv from ANY_SOURCE");
        equal(1 << 17, st[1].getCount(MPI.DOUBLE), "1 MiB iRecv count");
        for (int i = 0; i < 8; i++) {
            equal(left * 10 + i, in.get(i), "ring [" + i + "]");
        }
        for (int i = 0; i < bigIn.capacity(); i += 997) {
            equal((double) (left + i), bigIn.get(i), "1 MiB ring [" + i + "]");
        }
        for (Request r : rs) {
            that(r.isNull(), "a request is null once its wait has reported it");
        }
    }

    /** The wait and test forms over several requests: three messages from the left, in a known order. */
    private static void waitForms(Comm c, int rank, int left, int right) throws MPIException {
        IntBuffer a = MPI.newIntBuffer(1);
        IntBuffer b = MPI.newIntBuffer(1);
        IntBuffer d = MPI.newIntBuffer(1);
        IntBuffer e = MPI.newIntBuffer(1);
        IntBuffer out = MPI.newIntBuffer(4);
        out.put(0, 100 + rank).put(1, 200 + rank).put(2, 300 + rank).put(3, 400 + rank);

        // nothing sent yet on tags 11..14: tests say so
        Request[] rs = {c.iRecv(a, 1, MPI.INT, left, 11), c.iRecv(b, 1, MPI.INT, left, 12)};
        equal(MPI.UNDEFINED, Request.testAny(rs), "testAny before any message");
        equal(null, Request.testAnyStatus(rs), "testAnyStatus before any message");
        equal(0, Request.testSome(rs).length, "testSome before any message");
        that(!Request.testAll(rs), "testAll before any message");
        equal(null, Request.testAllStatus(rs), "testAllStatus before any message");
        equal(null, rs[0].getStatus(), "getStatus before the message");
        that(!rs[1].test(), "test before the message");
        equal(null, rs[1].testStatus(), "testStatus before the message");

        // the right neighbour says when it has tested; then tag 12 goes first: waitAny finds index 1
        handshake(c, left, right, 9);
        c.send(slice(out, 1), 1, MPI.INT, right, 12);
        Status s = Request.waitAnyStatus(rs);
        equal(1, s.getIndex(), "waitAnyStatus index");
        equal(12, s.getTag(), "waitAnyStatus tag");
        equal(200 + left, b.get(0), "waitAny's message");
        that(rs[1].isNull() && !rs[0].isNull(), "waitAny completed the one request only");

        // getStatus leaves the request active; test then completes it
        handshake(c, left, right, 8);
        c.send(slice(out, 0), 1, MPI.INT, right, 11);
        Status peek;
        while ((peek = rs[0].getStatus()) == null) {
            Thread.onSpinWait();
        }
        equal(11, peek.getTag(), "getStatus tag");
        that(!rs[0].isNull(), "getStatus leaves the request active");
        that(rs[0].test(), "test after getStatus");
        that(rs[0].isNull(), "test completed the request");
        equal(MPI.UNDEFINED, Request.waitAny(rs), "waitAny over null requests");

        // waitSome and testSome, testAll over complete requests
        Request[] more = {c.iRecv(d, 1, MPI.INT, left, 13), c.iRecv(e, 1, MPI.INT, left, 14)};
        c.send(slice(out, 2), 1, MPI.INT, right, 13);
        int[] some = Request.waitSome(more);
        that(some.length >= 1 && some[0] == 0, "waitSome reports the first request");
        c.send(slice(out, 3), 1, MPI.INT, right, 14);
        int[] rest;
        while ((rest = Request.testSome(more)) != null && rest.length == 0) {
            Thread.onSpinWait();
        }
        that(some.length == 2 || (rest != null && rest.length == 1 && rest[0] == 1), "testSome reports the second");
        equal(null, Request.waitSomeStatus(more), "waitSomeStatus over null requests");
        equal(300 + left, d.get(0), "message 13");
        equal(400 + left, e.get(0), "message 14");
        that(Request.testAll(more), "testAll over null requests");
    }

    /** Tells the left neighbour this rank is ready, and waits until the right one is. */
    private static void handshake(Comm c, int left, int right, int tag) throws MPIException {
        c.sendRecv(new int[1], 1, MPI.INT, left, tag, new int[1], 1, MPI.INT, right, tag);
    }

    private static IntBuffer slice(IntBuffer b, int offset) {
        return MPI.slice(b, offset);
    }

    private static void nullRequests(Comm c) throws MPIException {
        that(MPI.REQUEST_NULL.isNull(), "REQUEST_NULL is null");
        Status s = MPI.REQUEST_NULL.waitStatus();
        equal(MPI.ANY_SOURCE, s.getSource(), "empty status: source");
        equal(MPI.ANY_TAG, s.getTag(), "empty status: tag");
        equal(0, s.getCount(MPI.INT), "empty status: count");
        that(MPI.REQUEST_NULL.test(), "test of the null request");
        IntBuffer buf = MPI.newIntBuffer(2);
        Request r = c.iRecv(buf, 2, MPI.INT, MPI.PROC_NULL, 0);
        s = r.waitStatus();
        equal(MPI.PROC_NULL, s.getSource(), "iRecv from PROC_NULL: source");
        equal(0, s.getCount(MPI.INT), "iRecv from PROC_NULL: count");
        c.iSend(buf, 2, MPI.INT, MPI.PROC_NULL, 0).waitFor();
        Request.waitAll(new Request[] {null, MPI.REQUEST_NULL, c.isSend(buf, 2, MPI.INT, MPI.PROC_NULL, 0)});
    }

    private static void persistent(Comm c, int rank, int left, int right) throws MPIException {
        DoubleBuffer out = MPI.newDoubleBuffer(4);
        DoubleBuffer in = MPI.newDoubleBuffer(4);
        Prequest send = c.sendInit(out, 4, MPI.DOUBLE, right, 21);
        Prequest recv = c.recvInit(in, 4, MPI.DOUBLE, left, 21);
        Prequest none = c.recvInit(in, 4, MPI.DOUBLE, MPI.PROC_NULL, 21);
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 4; i++) {
                out.put(i, rank * 100 + round * 10 + i);
            }
            Prequest.startAll(new Prequest[] {recv, send, none});
            fails(MPI.ERR_REQUEST, "starting an active request", send::start);
            Status[] st = Request.waitAllStatus(new Request[] {recv, send, none});
            equal(left, st[0].getSource(), "persistent receive source, round " + round);
            equal(MPI.PROC_NULL, st[2].getSource(), "persistent receive from PROC_NULL");
            for (int i = 0; i < 4; i++) {
                equal((double) (left * 100 + round * 10 + i), in.get(i), "round " + round + " [" + i + "]");
            }
            that(!send.isNull() && !recv.isNull(), "a persistent request is inactive, not null, after its wait");
            Status inactive = recv.getStatus();
            equal(MPI.ANY_SOURCE, inactive.getSource(), "getStatus of an inactive request: the empty status");
        }
        send.free();
        recv.free();
        none.free();
        fails(MPI.ERR_REQUEST, "starting a freed request", send::start);
    }

    private static void modes(Comm c, int rank, int left, int right) throws MPIException {
        MPI.attachBuffer(new byte[4 * (64 + MPI.BSEND_OVERHEAD)]);
        ByteBuffer out = MPI.newByteBuffer(64);
        for (int i = 0; i < 64; i++) {
            out.put(i, (byte) (rank + i));
        }
        ByteBuffer in = MPI.newByteBuffer(64);
        Request r = c.iRecv(in, 64, MPI.BYTE, left, 31);
        Request b = c.ibSend(out, 64, MPI.BYTE, right, 31);
        that(b.test(), "a buffered send is complete once copied");
        r.waitFor();
        equal((byte) (left + 63), in.get(63), "ibSend's message");

        Prequest pb = c.bSendInit(out, 64, MPI.BYTE, right, 32);
        for (int round = 0; round < 3; round++) {
            out.put(0, (byte) round);
            Request rr = c.iRecv(in, 64, MPI.BYTE, left, 32);
            pb.start();
            pb.waitFor();
            rr.waitFor();
            equal((byte) round, in.get(0), "bSendInit round " + round);
        }
        pb.free();

        Request[] rs = {c.iRecv(in, 64, MPI.BYTE, left, 33), c.isSend(out, 64, MPI.BYTE, right, 33)};
        Request.waitAll(rs);
        Request[] rr = {c.iRecv(in, 64, MPI.BYTE, left, 34), c.irSend(out, 64, MPI.BYTE, right, 34)};
        Request.waitAll(rr);
        Prequest ps = c.sSendInit(out, 64, MPI.BYTE, right, 35);
        Prequest pr = c.rSendInit(out, 64, MPI.BYTE, right, 36);
        Request r1 = c.iRecv(in, 64, MPI.BYTE, left, 35);
        ps.start();
        Request r2 = c.iRecv(MPI.newByteBuffer(64), 64, MPI.BYTE, left, 36);
        pr.start();
        Request.waitAll(new Request[] {r1, r2, ps, pr});
        ps.free();
        pr.free();
        MPI.detachBuffer();
    }

    private static void errors(Comm c, int rank, int size) throws MPIException {
        int peer = rank ^ 1;
        if (peer < size) {
            IntBuffer small = MPI.newIntBuffer(2);
            IntBuffer big = MPI.newIntBuffer(6);
            Request r = c.iRecv(small, 2, MPI.INT, peer, 41);
            Request s = c.iSend(big, 6, MPI.INT, peer, 41);
            fails(MPI.ERR_TRUNCATE, "a wait reports the truncation", r::waitFor);
            s.waitFor();
            // a receive no message matches is cancelled; one already matched is not
            Request unmatched = c.iRecv(small, 2, MPI.INT, peer, 43);
            unmatched.cancel();
            Status none = unmatched.waitStatus();
            that(none.isCancelled(), "a receive cancelled before any message matched it");
            that(unmatched.isNull(), "a cancelled request is null once waited for");
            IntBuffer into = MPI.newIntBuffer(2);
            Request matched = c.iRecv(into, 2, MPI.INT, peer, 42);
            small.put(0, 40 + rank).put(1, 41);
            c.send(small, 2, MPI.INT, peer, 42);
            c.send(new int[1], 1, MPI.INT, peer, 44);
            c.recv(new int[1], 1, MPI.INT, peer, 44);   // the peer's tag 42 came before: matched by now
            matched.cancel();
            Status got = matched.waitStatus();
            that(!got.isCancelled(), "a matched receive is not cancelled");
            equal(40 + peer, into.get(0), "the matched receive's data");
        }
        try {
            c.iSend(IntBuffer.allocate(3), 3, MPI.INT, rank, 0);
            throw new AssertionError("iSend of a heap buffer was accepted");
        } catch (IllegalArgumentException expected) {
            // as in the bindings: nonblocking calls take direct buffers
        }
    }
}

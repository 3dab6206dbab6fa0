package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Intercommunicators and member-only communicators: an intercommunicator of the even and the odd
 * ranks made from a split; point-to-point across it (remote ranks, ANY_SOURCE, PROC_NULL); each
 * collective with MPI.ROOT and MPI.PROC_NULL, blocking, nonblocking (several in flight at once) and
 * in its v-form, reduce-scatter; merge with high and low; dup and compare; createGroup
 * by the odd ranks only while the even ranks do something else; and the errors: mismatched tags, a
 * leader outside the peer communicator, freed communicators, collectives an intercommunicator lacks.
 */
public final class MpiIntercomm {
    private MpiIntercomm() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int colour = rank % 2;
        int[] evens = ranks(0, size);
        int[] odds = ranks(1, size);
        int[] mine = colour == 0 ? evens : odds;
        int[] theirs = colour == 0 ? odds : evens;

        // an intercommunicator of the evens and the odds, their leaders world ranks 0 and 1
        Intracomm local = world.split(colour, rank);
        Intercomm inter = world.createIntercomm(local, 0, 1 - colour, 7);
        that(inter.isInter(), "an intercommunicator");
        that(!local.isInter(), "its local communicator is not");
        equal(mine.length, inter.getSize(), "the local group's size");
        equal(rank / 2, inter.getRank(), "the rank in the local group");
        equal(theirs.length, inter.getRemoteSize(), "the remote group's size");
        Group worldGroup = world.getGroup();
        equal(theirs, Group.translateRanks(inter.getRemoteGroup(), ranks(0, theirs.length, 1), worldGroup),
                "the remote group's world ranks");
        equal(mine, Group.translateRanks(inter.getGroup(), ranks(0, mine.length, 1), worldGroup),
                "the local group's world ranks");
        equal(MPI.IDENT, Comm.compare(inter, inter), "an intercommunicator and itself");
        equal(MPI.UNEQUAL, Comm.compare(inter, world), "an intercommunicator and an intracommunicator");

        pointToPoint(inter, rank, theirs);
        collectives(inter, rank, mine, theirs);
        nonblocking(inter, rank, mine, theirs);
        vForms(world, rank, size);
        merges(inter, rank, size, colour);
        dups(inter, theirs);
        memberOnly(world, local, rank, size, colour, odds);
        errors(world, local, inter, rank, size, colour);

        System.out.println("rank " + rank + ": intercommunicators ok");
        MPI.Finalize();
    }

    /** Messages to remote ranks: pairs, ANY_SOURCE, PROC_NULL, a rank past the remote group. */
    private static void pointToPoint(Intercomm inter, int rank, int[] theirs) throws MPIException {
        int me = inter.getRank();
        int[] got = new int[1];
        if (me < theirs.length) {
            Status s = inter.sendRecv(new int[] {rank}, 1, MPI.INT, me, 3, got, 1, MPI.INT, me, 3);
            equal(theirs[me], got[0], "the paired remote rank's message");
            equal(me, s.getSource(), "its source is a remote rank");
        }
        // remote rank 0 of each side sends to every rank of the other, which receives from anyone
        if (me == 0) {
            for (int j = 0; j < theirs.length; j++) {
                inter.send(new int[] {1000 + j}, 1, MPI.INT, j, 9);
            }
        }
        Status s = inter.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, 9);
        equal(1000 + me, got[0], "the leader's message, received from MPI.ANY_SOURCE");
        equal(0, s.getSource(), "from remote rank 0");
        inter.send(got, 1, MPI.INT, MPI.PROC_NULL, 9);
        equal(MPI.PROC_NULL, inter.recv(got, 1, MPI.INT, MPI.PROC_NULL, 9).getSource(), "a receive from PROC_NULL");
        fails(MPI.ERR_RANK, "a destination past the remote group",
                () -> inter.send(new int[1], 1, MPI.INT, theirs.length, 9));
    }

    /**
     * Each collective of an intercommunicator: the rooted ones once with the root among the evens
     * (the last of them) and, for bcast, once among the odds; the others' buffers untouched.
     */
    private static void collectives(Intercomm inter, int rank, int[] mine, int[] theirs) throws MPIException {
        boolean even = rank % 2 == 0;
        int me = inter.getRank();
        int evenRoot = (even ? mine : theirs).length - 1;
        // the root passes MPI.ROOT, the rest of its group MPI.PROC_NULL, the other group the root's rank
        int fromEvens = even ? (me == evenRoot ? MPI.ROOT : MPI.PROC_NULL) : evenRoot;
        int fromOdds = even ? 0 : (me == 0 ? MPI.ROOT : MPI.PROC_NULL);
        boolean evenRootHere = even && me == evenRoot;

        inter.barrier();

        int[] b = {even && me == evenRoot ? 42 : -1, even && me == evenRoot ? 43 : -1};
        inter.bcast(b, 2, MPI.INT, fromEvens);
        equal(even && !evenRootHere ? new int[] {-1, -1} : new int[] {42, 43}, b, "bcast from the evens' root");
        ByteBuffer direct = ByteBuffer.allocateDirect(8);
        direct.putInt(0, !even && me == 0 ? 77 : -1);
        inter.bcast(direct, 1, MPI.INT, fromOdds);
        equal(even || me == 0 ? 77 : -1, direct.getInt(0), "bcast of a direct buffer from the odds' root");

        int[] sums = new int[1];
        inter.allReduce(new int[] {rank}, sums, 1, MPI.INT, MPI.SUM);
        equal(Arrays.stream(theirs).sum(), sums[0], "allReduce: the other group's sum");

        int[] all = new int[theirs.length];
        inter.allGather(new int[] {rank}, 1, MPI.INT, all, 1, MPI.INT);
        equal(theirs, all, "allGather: the other group's ranks, in its order");

        int[] gathered = new int[theirs.length];
        Arrays.fill(gathered, -1);
        inter.gather(new int[] {10 * rank}, 1, MPI.INT, gathered, 1, MPI.INT, fromEvens);
        if (evenRootHere) {
            equal(Arrays.stream(theirs).map(w -> 10 * w).toArray(), gathered, "gather at the evens' root");
        } else {
            that(Arrays.stream(gathered).allMatch(v -> v == -1), "gather leaves the others' buffers alone");
        }

        int[] blocks = new int[2 * (even ? theirs.length : mine.length)];
        for (int j = 0; j < blocks.length; j++) {
            blocks[j] = 100 + j;
        }
        int[] block = {-1, -1};
        inter.scatter(blocks, 2, MPI.INT, block, 2, MPI.INT, fromEvens);
        equal(even ? new int[] {-1, -1} : new int[] {100 + 2 * me, 101 + 2 * me}, block,
                "scatter from the evens' root");

        int[] max = {-1};
        inter.reduce(new int[] {rank}, max, 1, MPI.INT, MPI.MAX, fromEvens);
        equal(evenRootHere ? theirs[theirs.length - 1] : -1, max[0], "reduce at the evens' root");

        int[] out = new int[theirs.length];
        int[] in = new int[theirs.length];
        for (int j = 0; j < out.length; j++) {
            out[j] = 100 * rank + j;
        }
        inter.allToAll(out, 1, MPI.INT, in, 1, MPI.INT);
        for (int j = 0; j < in.length; j++) {
            equal(100 * theirs[j] + me, in[j], "allToAll: block " + j + " from remote rank " + j);
        }

        fails(MPI.ERR_ROOT, "a root past the remote group", () -> inter.bcast(b, 1, MPI.INT, theirs.length));
        // two items per rank of this group, of the other group's sum (the groups are of one size here)
        int[] vector = new int[2 * mine.length];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = 100 * rank + i;
        }
        int[] part = new int[2];
        inter.reduceScatterBlock(vector, part, 2, MPI.INT, MPI.SUM);
        for (int j = 0; j < 2; j++) {
            int item = 2 * me + j;
            equal(Arrays.stream(theirs).map(w -> 100 * w + item).sum(), part[j], "reduceScatterBlock item " + j);
        }
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "an in-place allReduce on an intercommunicator",
                () -> inter.allReduce(new int[1], 1, MPI.INT, MPI.SUM));
        inter.barrier();
    }

    /**
     * The nonblocking collectives on direct buffers, all in flight at once and completed by one
     * waitAll, the rooted ones with the root among the odds (their leader).
     */
    private static void nonblocking(Intercomm inter, int rank, int[] mine, int[] theirs) throws MPIException {
        boolean even = rank % 2 == 0;
        int me = inter.getRank();
        int fromOdds = even ? 0 : (me == 0 ? MPI.ROOT : MPI.PROC_NULL);
        boolean oddRootHere = !even && me == 0;
        int r = theirs.length;

        IntBuffer b = MPI.newIntBuffer(2);
        b.put(0, oddRootHere ? 5 : -1).put(1, oddRootHere ? 6 : -1);
        IntBuffer own = MPI.newIntBuffer(2);
        own.put(0, rank).put(1, 10 * rank);
        IntBuffer sums = MPI.newIntBuffer(2);
        IntBuffer maxAtRoot = MPI.newIntBuffer(2);
        maxAtRoot.put(0, -1).put(1, -1);
        IntBuffer all = MPI.newIntBuffer(2 * r);
        IntBuffer gathered = MPI.newIntBuffer(2 * r);
        gathered.put(0, -1);
        IntBuffer blocks = MPI.newIntBuffer(2 * Math.max(r, mine.length));
        for (int j = 0; j < blocks.capacity(); j++) {
            blocks.put(j, 200 + j);
        }
        IntBuffer block = MPI.newIntBuffer(2);
        block.put(0, -1).put(1, -1);
        IntBuffer out = MPI.newIntBuffer(r);
        IntBuffer in = MPI.newIntBuffer(r);
        for (int j = 0; j < r; j++) {
            out.put(j, 100 * rank + j);
        }
        Request[] batch = {
            inter.iBarrier(),
            inter.iBcast(b, 2, MPI.INT, fromOdds),
            inter.iAllReduce(own, sums, 2, MPI.INT, MPI.SUM),
            inter.iReduce(own, maxAtRoot, 2, MPI.INT, MPI.MAX, fromOdds),
            inter.iAllGather(own, 2, MPI.INT, all, 2, MPI.INT),
            inter.iGather(own, 2, MPI.INT, gathered, 2, MPI.INT, fromOdds),
            inter.iScatter(blocks, 2, MPI.INT, block, 2, MPI.INT, fromOdds),
            inter.iAllToAll(out, 1, MPI.INT, in, 1, MPI.INT),
        };
        Request.waitAll(batch);
        equal(even || oddRootHere ? 6 : -1, b.get(1), "iBcast from the odds' root");
        equal(Arrays.stream(theirs).sum(), sums.get(0), "iAllReduce: the other group's sum");
        equal(10 * Arrays.stream(theirs).sum(), sums.get(1), "iAllReduce: the other group's sum of tens");
        equal(oddRootHere ? 10 * theirs[r - 1] : -1, maxAtRoot.get(1), "iReduce at the odds' root");
        for (int j = 0; j < r; j++) {
            equal(theirs[j], all.get(2 * j), "iAllGather: block " + j);
            equal(10 * theirs[j], all.get(2 * j + 1), "iAllGather: block " + j);
            equal(100 * theirs[j] + me, in.get(j), "iAllToAll: block " + j);
        }
        equal(oddRootHere ? 10 * theirs[r - 1] : -1, gathered.get(oddRootHere ? 2 * r - 1 : 0),
                "iGather at the odds' root");
        equal(even ? new int[] {200 + 2 * me, 201 + 2 * me} : new int[] {-1, -1}, new int[] {block.get(0), block.get(1)},
                "iScatter from the odds' root");
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "an in-place iAllGather on an intercommunicator",
                () -> inter.iAllGather(all, 2, MPI.INT));
        inter.barrier();
    }

    /**
     * The v-forms on groups of uneven sizes (the first three world ranks against the rest at 8
     * ranks), remote rank q's block q + 1 items long, laid out last rank first: gatherv and scatterv
     * with the root in the first group, allGatherv, allToAllv, allToAllw and reduceScatter, blocking
     * and (iAllGatherv, iAllToAllv, iReduceScatter) nonblocking.
     */
    private static void vForms(Intracomm world, int rank, int size) throws MPIException {
        int cut = Math.max(1, 3 * size / 8);
        boolean even = rank < cut;       // the group of the root
        Intracomm local = world.split(even ? 0 : 1, rank);
        Intercomm inter = world.createIntercomm(local, 0, even ? cut : 0, 8);
        int[] theirs = even ? ranks(cut, size - cut, 1) : ranks(0, cut, 1);
        int me = inter.getRank();
        int fromEvens = even ? (me == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0;
        boolean evenRootHere = even && me == 0;
        int r = theirs.length;
        equal(r, inter.getRemoteSize(), "the remote group of the uneven intercommunicator");
        int[] counts = new int[r];
        int[] displs = new int[r];
        int at = 0;
        for (int q = r - 1; q >= 0; q--) {
            counts[q] = q + 1;
            displs[q] = at;
            at += q + 1;
        }
        int[] ownBlock = new int[me + 1];
        Arrays.fill(ownBlock, rank);
        int[] expected = new int[at];
        for (int q = 0; q < r; q++) {
            Arrays.fill(expected, displs[q], displs[q] + counts[q], theirs[q]);
        }

        int[] gathered = new int[at];
        inter.gatherv(ownBlock, me + 1, MPI.INT, gathered, counts, displs, MPI.INT, fromEvens);
        equal(evenRootHere ? expected : new int[at], gathered, "gatherv at the evens' root");

        int[] source = new int[at];
        for (int q = 0; q < r; q++) {
            Arrays.fill(source, displs[q], displs[q] + counts[q], 1000 + q);
        }
        int[] got = new int[me + 1];
        Arrays.fill(got, -1);
        inter.scatterv(source, counts, displs, MPI.INT, got, me + 1, MPI.INT, fromEvens);
        int[] scattered = new int[me + 1];
        Arrays.fill(scattered, even ? -1 : 1000 + me);
        equal(scattered, got, "scatterv from the evens' root");

        int[] all = new int[at];
        inter.allGatherv(ownBlock, me + 1, MPI.INT, all, counts, displs, MPI.INT);
        equal(expected, all, "allGatherv: the other group's blocks");
        IntBuffer ownDirect = MPI.newIntBuffer(me + 1);
        for (int i = 0; i <= me; i++) {
            ownDirect.put(i, rank);
        }
        IntBuffer allDirect = MPI.newIntBuffer(at);
        inter.iAllGatherv(ownDirect, me + 1, MPI.INT, allDirect, counts, displs, MPI.INT).waitFor();
        for (int i = 0; i < at; i++) {
            equal(expected[i], allDirect.get(i), "iAllGatherv [" + i + "]");
        }

        // allToAllv: me + 1 items to every remote rank; q + 1 items from remote rank q
        int[] sendCounts = new int[r];
        int[] sendDispls = new int[r];
        for (int q = 0; q < r; q++) {
            sendCounts[q] = me + 1;
            sendDispls[q] = q * (me + 1);
        }
        int[] send = new int[r * (me + 1)];
        for (int q = 0; q < r; q++) {
            Arrays.fill(send, q * (me + 1), (q + 1) * (me + 1), 100 * rank + q);
        }
        int[] recv = new int[at];
        inter.allToAllv(send, sendCounts, sendDispls, MPI.INT, recv, counts, displs, MPI.INT);
        for (int q = 0; q < r; q++) {
            for (int i = 0; i < counts[q]; i++) {
                equal(100 * theirs[q] + me, recv[displs[q] + i], "allToAllv: block " + q);
            }
        }
        IntBuffer sendDirect = MPI.newIntBuffer(send.length).put(0, send);
        IntBuffer recvDirect = MPI.newIntBuffer(at);
        inter.iAllToAllv(sendDirect, sendCounts, sendDispls, MPI.INT, recvDirect, counts, displs, MPI.INT).waitFor();
        for (int i = 0; i < at; i++) {
            equal(recv[i], recvDirect.get(i), "iAllToAllv [" + i + "]");
        }
        // allToAllw: the same blocks, displacements in bytes, a type per remote rank
        int[] sendBytes = Arrays.stream(sendDispls).map(d -> 4 * d).toArray();
        int[] recvBytes = Arrays.stream(displs).map(d -> 4 * d).toArray();
        mpi.Datatype[] types = new mpi.Datatype[r];
        Arrays.fill(types, MPI.INT);
        int[] recvW = new int[at];
        inter.allToAllw(send, sendCounts, sendBytes, types, recvW, counts, recvBytes, types);
        equal(recv, recvW, "allToAllw: as allToAllv");

        // reduceScatter: six items over this group's ranks, the first taking what the others' one each leave
        int n = inter.getSize();
        int[] split = new int[n];
        Arrays.fill(split, 1);
        split[0] = 6 - (n - 1);
        int[] vector = new int[6];
        for (int i = 0; i < 6; i++) {
            vector[i] = 100 * rank + i;
        }
        int first = me == 0 ? 0 : split[0] + me - 1;
        int[] part = new int[split[me]];
        inter.reduceScatter(vector, part, split, MPI.INT, MPI.SUM);
        IntBuffer vectorDirect = MPI.newIntBuffer(6).put(0, vector);
        IntBuffer partDirect = MPI.newIntBuffer(split[me]);
        inter.iReduceScatter(vectorDirect, partDirect, split, MPI.INT, MPI.SUM).waitFor();
        for (int j = 0; j < split[me]; j++) {
            int item = first + j;
            int sum = Arrays.stream(theirs).map(w -> 100 * w + item).sum();
            equal(sum, part[j], "reduceScatter item " + item);
            equal(sum, partDirect.get(j), "iReduceScatter item " + item);
        }
        inter.barrier();
        inter.free();
        local.free();
    }

    /** Merged intracommunicators: low group first; both alike, the group of world rank 0 first. */
    private static void merges(Intercomm inter, int rank, int size, int colour) throws MPIException {
        int evens = (size + 1) / 2;
        int odds = size / 2;
        Intracomm evensFirst = inter.merge(colour == 1);
        equal(size, evensFirst.getSize(), "the merged size");
        equal(colour == 0 ? rank / 2 : evens + rank / 2, evensFirst.getRank(), "evens low: evens first");
        int[] sum = {rank};
        evensFirst.allReduce(sum, 1, MPI.INT, MPI.SUM);
        equal(size * (size - 1) / 2, sum[0], "allReduce over the merged communicator");

        Intracomm oddsFirst = inter.merge(colour == 0);
        equal(colour == 1 ? rank / 2 : odds + rank / 2, oddsFirst.getRank(), "odds low: odds first");
        Intracomm alike = inter.merge(true);
        equal(evensFirst.getRank(), alike.getRank(), "both high: the group of world rank 0 first");
        equal(MPI.CONGRUENT, Comm.compare(evensFirst, alike), "two merges in the same order");
        equal(MPI.SIMILAR, Comm.compare(evensFirst, oddsFirst), "merges in two orders");
        evensFirst.free();
        oddsFirst.free();
        alike.free();
    }

    /** A dup: congruent, with a message space of its own. */
    private static void dups(Intercomm inter, int[] theirs) throws MPIException {
        Intercomm dup = inter.dup();
        that(dup.isInter(), "a dup of an intercommunicator is one");
        equal(MPI.CONGRUENT, Comm.compare(inter, dup), "an intercommunicator and its dup");
        int me = inter.getRank();
        if (me < theirs.length) {
            inter.send(new int[] {1}, 1, MPI.INT, me, 5);
            dup.send(new int[] {2}, 1, MPI.INT, me, 5);
            int[] got = new int[1];
            dup.recv(got, 1, MPI.INT, me, 5);
            equal(2, got[0], "the dup's message, not the original's");
            inter.recv(got, 1, MPI.INT, me, 5);
            equal(1, got[0], "then the original's");
        }
        int[] all = new int[theirs.length];
        dup.allGather(new int[] {MPI.COMM_WORLD.getRank()}, 1, MPI.INT, all, 1, MPI.INT);
        equal(theirs, all, "allGather on the dup");
        dup.free();
        that(dup.isNull(), "a freed intercommunicator is null");
    }

    /** createGroup called by the odd ranks only, with a collective on it, while the evens talk among themselves. */
    private static void memberOnly(Intracomm world, Intracomm local, int rank, int size, int colour, int[] odds)
            throws MPIException {
        Group oddGroup = world.getGroup().incl(odds);
        if (colour == 1) {
            Intracomm oddComm = world.createGroup(oddGroup, 11);
            equal(odds.length, oddComm.getSize(), "createGroup's size");
            equal(rank / 2, oddComm.getRank(), "createGroup's rank: the group's order");
            int[] sum = {rank};
            oddComm.allReduce(sum, 1, MPI.INT, MPI.SUM);
            equal(Arrays.stream(odds).sum(), sum[0], "allReduce over the odd ranks' communicator");
            oddComm.barrier();
            if (odds.length > 1) {
                // the second odd rank disagrees on the tag: every member fails, none waits
                int tag = rank == 3 ? 12 : 13;
                fails(MPI.ERR_ARG, "createGroup with mismatched tags", () -> world.createGroup(oddGroup, tag));
            }
            oddComm.free();
        } else {
            // meanwhile the evens: their own collectives and messages, and a group they are not in
            int[] sum = {rank};
            local.allReduce(sum, 1, MPI.INT, MPI.SUM);
            equal(Arrays.stream(ranks(0, size)).sum(), sum[0], "the evens' allReduce while the odds create");
            that(world.createGroup(oddGroup, 11).isNull(), "createGroup by a rank not in the group: a null one");
        }
        world.barrier();
    }

    /** Errors: freed communicators, mismatched tags, a leader outside the peer, a bad leader. */
    private static void errors(Intracomm world, Intracomm local, Intercomm inter, int rank, int size, int colour)
            throws MPIException {
        fails(MPI.ERR_RANK, "a local leader past the local communicator",
                () -> world.createIntercomm(local, local.getSize(), 1 - colour, 7));
        // the two leaders pass different tags: both groups fail, no rank waits
        fails(MPI.ERR_ARG, "createIntercomm with mismatched tags",
                () -> world.createIntercomm(local, 0, 1 - colour, 20 + colour));
        // the leaders (world ranks 0 and 1) are not in this peer communicator: both groups fail
        Intracomm peer = world.split(rank < 2 ? MPI.UNDEFINED : 0, rank);
        that(rank >= 2 || peer.isNull(), "the leaders are not in the peer");
        fails(MPI.ERR_ARG, "a leader outside the peer communicator",
                () -> peer.createIntercomm(local, 0, 1 - colour, 7));
        world.barrier();

        Intracomm gone = local.dup();
        gone.free();
        fails(MPI.ERR_COMM, "createIntercomm over a freed local communicator",
                () -> world.createIntercomm(gone, 0, 1 - colour, 7));
        inter.free();
        that(inter.isNull(), "a freed intercommunicator is null");
        fails(MPI.ERR_COMM, "getRemoteSize of a freed intercommunicator", inter::getRemoteSize);
        fails(MPI.ERR_COMM, "merge of a freed intercommunicator", () -> inter.merge(false));
        fails(MPI.ERR_COMM, "a barrier on a freed intercommunicator", inter::barrier);
        fails(MPI.ERR_COMM, "a send on a freed intercommunicator", () -> inter.send(new int[1], 1, MPI.INT, 0, 0));
    }

    /** The ranks of one parity below {@code size}. */
    private static int[] ranks(int first, int size) {
        return ranks(first, (size - first + 1) / 2, 2);
    }

    private static int[] ranks(int first, int n, int step) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = first + i * step;
        }
        return r;
    }
}

package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import mpi.Datatype;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/**
 * One-sided communication (Win): every constructor flavour, each synchronisation mode (fence,
 * post/start/complete/wait and test, lock/unlock exclusive and shared, lockAll, flushes, sync on a
 * shared window), every operation family (put, get, accumulate, getAccumulate, fetchAndOp,
 * compareAndSwap, the r-forms), derived target and origin types (vector, indexed), heap and direct
 * buffers, slices, zero counts, PROC_NULL, the window's attributes, names and info.
 */
public final class MpiWindows {
    private MpiWindows() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        c.setErrhandler(MPI.ERRORS_RETURN);
        int rank = c.getRank();
        int size = c.getSize();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;

        fence(c, rank, size);
        accumulateUnderFence(c, rank, size);
        pscw(c, rank, size, right, left);
        passive(c, rank, size);
        shared(c, rank, size, right);
        derived(c, rank, right, left);

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": windows ok");
    }

    /** A window over a direct buffer: every rank puts its value into its slot at every rank, between fences. */
    private static void fence(Intracomm c, int rank, int size) throws MPIException {
        IntBuffer mem = MPI.newIntBuffer(size + 4);
        Info info = new Info();
        info.set("no_locks", "true");
        Win w = new Win(mem, size + 4, 1, info, c);
        w.setErrhandler(MPI.ERRORS_RETURN);
        equal(MPI.ERRORS_RETURN, w.getErrhandler(), "the window's error handler");
        equal(4 * (size + 4), ((Integer) w.getAttr(MPI.WIN_SIZE)).intValue(), "WIN_SIZE in bytes");
        equal(4, ((Integer) w.getAttr(MPI.WIN_DISP_UNIT)).intValue(), "WIN_DISP_UNIT in bytes");
        that((Long) w.getAttr(MPI.WIN_BASE) != 0L, "WIN_BASE is an address");
        equal("true", w.getInfo().get("no_locks"), "the info given");
        equal("", w.getName(), "a new window's name");
        w.setName("ring");
        equal("ring", w.getName(), "the name set");
        int key = Win.createKeyval();
        w.setAttr(key, "value");
        equal("value", w.getAttr(key), "an attribute");
        w.deleteAttr(key);
        equal(null, w.getAttr(key), "a deleted attribute");
        Win.freeKeyval(key);
        equal(MPI.IDENT, Group.compare(c.getGroup(), w.getGroup()), "the window's group");

        w.fence(MPI.MODE_NOPRECEDE);
        IntBuffer one = MPI.newIntBuffer(1);
        one.put(0, 10 * rank + 1);
        for (int t = 0; t < size; t++) {
            w.put(one, 1, MPI.INT, t, rank, 1, MPI.INT);
        }
        // a heap buffer, from a slice with an offset, into the last four slots of the right neighbour
        IntBuffer heap = IntBuffer.wrap(new int[] {-1, -2, 7, 8, 9});
        w.put(MPI.slice(heap, 2), 3, MPI.INT, (rank + 1) % size, size, 3, MPI.INT);
        w.put(one, 0, MPI.INT, rank, 0, 0, MPI.INT);                    // nothing
        w.put(one, 1, MPI.INT, MPI.PROC_NULL, 0, 1, MPI.INT);           // nothing
        w.fence(0);
        // get back what this rank put at its left neighbour, into a direct slice
        IntBuffer back = MPI.newIntBuffer(5);
        w.get(MPI.slice(back, 1), 3, MPI.INT, (rank + size - 1) % size, size, 3, MPI.INT);
        w.fence(MPI.MODE_NOSUCCEED);
        for (int r = 0; r < size; r++) {
            equal(10 * r + 1, mem.get(r), "slot " + r + " after the fence");
        }
        equal(7, mem.get(size), "the heap slice's first item");
        equal(9, mem.get(size + 2), "the heap slice's last item");
        equal(0, mem.get(size + 3), "past the slice");
        equal(0, back.get(0), "before the direct slice");
        equal(8, back.get(2), "got through a direct slice");
        w.free();
        fails(MPI.ERR_WIN, "a freed window", () -> w.fence(0));
    }

    /** Allocated windows: accumulates with SUM and MAX under fences, and a fence-epoch getAccumulate. */
    private static void accumulateUnderFence(Intracomm c, int rank, int size) throws MPIException {
        Win w = new Win(3, 1, MPI.INFO_NULL, c, MPI.newLongBuffer(0), Win.FLAVOR_PRIVATE);
        w.setErrhandler(MPI.ERRORS_RETURN);
        equal(8, ((Integer) w.getAttr(MPI.WIN_DISP_UNIT)).intValue(), "unit of a long window");
        w.fence(0);
        LongBuffer v = MPI.newLongBuffer(2);
        v.put(0, rank + 1).put(1, rank);
        w.accumulate(v, 1, MPI.LONG, 0, 0, 1, MPI.LONG, MPI.SUM);
        w.accumulate(MPI.slice(v, 1), 1, MPI.LONG, 0, 1, 1, MPI.LONG, MPI.MAX);
        w.fence(0);
        LongBuffer got = LongBuffer.allocate(3);                            // a heap buffer
        w.get(got, 3, MPI.LONG, 0, 0, 3, MPI.LONG);
        w.fence(MPI.MODE_NOSUCCEED);
        equal((long) size * (size + 1) / 2, got.get(0), "SUM of rank + 1");
        equal(size - 1, got.get(1), "MAX of the ranks");
        equal(0, got.get(2), "a slot no one touched");
        w.free();
    }

    /** Post/start/complete/wait around a ring, then the same with test instead of wait. */
    private static void pscw(Intracomm c, int rank, int size, int right, int left) throws MPIException {
        Win w = new Win(1, 1, MPI.INFO_NULL, c, MPI.newIntBuffer(0), Win.FLAVOR_PRIVATE);
        w.setErrhandler(MPI.ERRORS_RETURN);
        Group world = c.getGroup();
        Group from = world.incl(new int[] {left});
        Group to = world.incl(new int[] {right});
        IntBuffer mine = MPI.newIntBuffer(1);
        IntBuffer got = MPI.newIntBuffer(1);
        for (int round = 0; round < 2; round++) {
            mine.put(0, 100 * round + rank);
            w.post(from, MPI.MODE_NOCHECK);
            w.start(to, 0);
            w.put(mine, 1, MPI.INT, right, 0, 1, MPI.INT);
            w.complete();
            if (round == 0) {
                w.waitFor();
            } else {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!w.test()) {
                    that(System.nanoTime() < deadline, "test() saw the exposure epoch end within 60 s");
                    Thread.onSpinWait();
                }
            }
            // read it back through a passive epoch on this rank's own window
            w.lock(MPI.LOCK_SHARED, rank, 0);
            w.get(got, 1, MPI.INT, rank, 0, 1, MPI.INT);
            w.unlock(rank);
            equal(100 * round + left, got.get(0), "round " + round + " of the ring");
            c.barrier();
        }
        fails(MPI.ERR_RMA_SYNC, "complete without start", w::complete);
        fails(MPI.ERR_RMA_SYNC, "waitFor without post", w::waitFor);
        w.free();
    }

    /** Locks: an exclusive read-modify-write counter, then lockAll with every atomic and request form. */
    private static void passive(Intracomm c, int rank, int size) throws MPIException {
        Win w = new Win(4, 1, MPI.INFO_NULL, c, MPI.newLongBuffer(0), Win.FLAVOR_PRIVATE);
        w.setErrhandler(MPI.ERRORS_RETURN);
        LongBuffer x = MPI.newLongBuffer(1);
        w.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
        w.get(x, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
        w.flush(0);
        x.put(0, x.get(0) + 1);
        w.put(x, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
        w.unlock(0);
        c.barrier();
        w.lock(MPI.LOCK_SHARED, 0, 0);
        w.get(x, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
        w.unlock(0);
        equal(size, x.get(0), "the exclusive counter");
        c.barrier();

        LongBuffer inc = MPI.newLongBuffer(1);
        inc.put(0, 1);
        LongBuffer old = MPI.newLongBuffer(1);
        w.lockAll(0);
        w.fetchAndOp(inc, old, MPI.LONG, 0, 0, MPI.SUM);
        w.flushAll();
        that(old.get(0) >= size && old.get(0) < 2L * size, "fetchAndOp's old value " + old.get(0));
        w.unlockAll();
        c.barrier();
        LongBuffer expected = MPI.newLongBuffer(1);
        expected.put(0, 2L * size);
        LongBuffer swap = MPI.newLongBuffer(1);
        swap.put(0, 1000 + rank);
        w.lockAll(MPI.MODE_NOCHECK);
        w.compareAndSwap(swap, expected, old, MPI.LONG, 0, 0);
        w.flushLocalAll();
        w.unlockAll();
        int[] won = {old.get(0) == 2L * size ? 1 : 0};
        c.allReduce(won, 1, MPI.INT, MPI.SUM);
        equal(1, won[0], "ranks whose compareAndSwap won");
        c.barrier();

        // the request-returning forms, and getAccumulate, on slot 1..3 of rank 0
        LongBuffer three = MPI.newLongBuffer(3);
        three.put(0, rank).put(1, 2).put(2, 3);
        LongBuffer before = MPI.newLongBuffer(3);
        w.lock(MPI.LOCK_SHARED, 0, 0);
        Request a = w.rAccumulate(three, 1, MPI.LONG, 0, 1, 1, MPI.LONG, MPI.SUM);
        Request b = w.rGetAccumulate(MPI.slice(three, 1), 2, MPI.LONG, before, 2, MPI.LONG, 0, 2, 2, MPI.LONG,
                MPI.SUM);
        Request.waitAll(new Request[] {a, b});
        that(a.isNull() && b.isNull(), "completed requests are null");
        w.flushLocal(0);
        w.unlock(0);
        c.barrier();
        LongBuffer all = MPI.newLongBuffer(3);
        w.lock(MPI.LOCK_SHARED, 0, 0);
        w.rGet(all, 3, MPI.LONG, 0, 1, 3, MPI.LONG).waitFor();
        w.getAccumulate(null, 0, null, old, 1, MPI.LONG, 0, 1, 1, MPI.LONG, MPI.NO_OP);
        w.unlock(0);
        equal((long) size * (size - 1) / 2, all.get(0), "rAccumulate's sum of the ranks");
        equal(2L * size, all.get(1), "rGetAccumulate's sum of 2s");
        equal(3L * size, all.get(2), "rGetAccumulate's sum of 3s");
        equal(all.get(0), old.get(0), "getAccumulate with NO_OP is a get");
        c.barrier();
        if (rank == 0) {
            LongBuffer z = MPI.newLongBuffer(1);
            w.lock(MPI.LOCK_EXCLUSIVE, size - 1, 0);
            w.rPut(z, 1, MPI.LONG, size - 1, 3, 1, MPI.LONG).waitFor();
            w.unlock(size - 1);
        }
        w.free();
    }

    /** A shared window: each rank stores into its memory, the right neighbour loads it through sharedQuery. */
    private static void shared(Intracomm c, int rank, int size, int right) throws MPIException {
        Win w = new Win(2, 1, MPI.INFO_NULL, c, MPI.newIntBuffer(0), Win.FLAVOR_SHARED);
        w.setErrhandler(MPI.ERRORS_RETURN);
        ByteBuffer mine = w.sharedQuery(rank);
        equal(8, mine.capacity(), "the shared memory's bytes");
        w.lockAll(0);
        mine.putInt(4, 7 * rank + 3);
        w.sync();
        c.barrier();
        w.sync();
        equal(7 * right + 3, w.sharedQuery(right).getInt(4), "the neighbour's store");
        w.unlockAll();
        equal(w.sharedQuery(0).getInt(4), w.sharedQuery(MPI.PROC_NULL).getInt(4), "PROC_NULL: rank 0's memory");
        w.free();
    }

    /** Derived target and origin types: a vector (Tutti strides it), an indexed type (block by block). */
    private static void derived(Intracomm c, int rank, int right, int left) throws MPIException {
        IntBuffer mem = MPI.newIntBuffer(16);
        Win w = new Win(mem, 16, 1, MPI.INFO_NULL, c);
        w.setErrhandler(MPI.ERRORS_RETURN);
        Datatype vec = Datatype.createVector(4, 1, 2, MPI.INT);
        vec.commit();
        Datatype idx = Datatype.createIndexed(new int[] {2, 1}, new int[] {0, 5}, MPI.INT);
        idx.commit();
        IntBuffer four = MPI.newIntBuffer(4);
        for (int i = 0; i < 4; i++) {
            four.put(i, 100 * rank + i + 1);
        }
        w.fence(0);
        w.put(four, 4, MPI.INT, right, 1, 1, vec);                     // slots 1 3 5 7
        w.put(four, 3, MPI.INT, right, 8, 1, idx);                     // slots 8 9 13
        w.fence(0);
        IntBuffer spread = IntBuffer.allocate(8);
        w.get(spread, 1, vec, right, 1, 1, vec);                       // origin slots 0 2 4 6
        w.fence(0);
        IntBuffer ones = MPI.newIntBuffer(4);
        for (int i = 0; i < 4; i++) {
            ones.put(i, 1);
        }
        IntBuffer oldValues = MPI.newIntBuffer(4);
        w.getAccumulate(ones, 4, MPI.INT, oldValues, 4, MPI.INT, right, 1, 1, vec, MPI.SUM);
        w.fence(0);
        w.accumulate(ones, 4, MPI.INT, right, 1, 1, vec, MPI.SUM);
        w.fence(MPI.MODE_NOSUCCEED);
        for (int i = 0; i < 4; i++) {
            equal(100 * left + i + 3, mem.get(1 + 2 * i), "vector slot " + (1 + 2 * i) + " after two adds");
            equal(0, mem.get(2 * i), "gap slot " + 2 * i);
            equal(100 * rank + i + 1, spread.get(2 * i), "got through an origin vector, item " + i);
            equal(0, spread.get(2 * i + 1), "origin gap " + i);
            equal(100 * rank + i + 1, oldValues.get(i), "getAccumulate's old value " + i);
        }
        equal(100 * left + 1, mem.get(8), "indexed slot 8");
        equal(100 * left + 2, mem.get(9), "indexed slot 9");
        equal(0, mem.get(10), "indexed gap 10");
        equal(100 * left + 3, mem.get(13), "indexed slot 13");
        w.free();
    }
}

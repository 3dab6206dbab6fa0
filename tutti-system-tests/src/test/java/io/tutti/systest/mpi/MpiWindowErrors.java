package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.UserFunction;
import mpi.Win;

/**
 * The errors of one-sided communication as MPIExceptions with MPI's error classes, under the
 * window's ERRORS_RETURN: operations outside an epoch (ERR_RMA_SYNC), bad ranks, displacements,
 * counts, types, operations, lock types and assertions, groups of other processes, what Tutti's
 * windows lack (dynamic windows, layouts off the displacement unit), a freed window; the window
 * stays usable after each.
 */
public final class MpiWindowErrors {
    private MpiWindowErrors() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        c.setErrhandler(MPI.ERRORS_RETURN);
        int rank = c.getRank();
        int size = c.getSize();

        fails(MPI.ERR_UNSUPPORTED_OPERATION, "a dynamic window", () -> new Win(MPI.INFO_NULL, c));
        fails(MPI.ERR_SIZE, "a negative size", () -> new Win(-1, 1, MPI.INFO_NULL, c, MPI.newIntBuffer(0),
                Win.FLAVOR_PRIVATE));
        fails(MPI.ERR_DISP, "a displacement unit of 0", () -> new Win(1, 0, MPI.INFO_NULL, c, MPI.newIntBuffer(0),
                Win.FLAVOR_PRIVATE));
        fails(MPI.ERR_ARG, "flavor 7", () -> new Win(1, 1, MPI.INFO_NULL, c, MPI.newIntBuffer(0), 7));
        fails(MPI.ERR_SIZE, "more elements than the buffer", () -> new Win(MPI.newIntBuffer(2), 3, 1, MPI.INFO_NULL,
                c));
        try {
            new Win(IntBuffer.allocate(4), 4, 1, MPI.INFO_NULL, c);
            throw new AssertionError("a heap buffer as window memory was accepted");
        } catch (IllegalArgumentException expected) {
            // the bindings' answer
        }

        Win w = new Win(4, 1, MPI.INFO_NULL, c, MPI.newIntBuffer(0), Win.FLAVOR_PRIVATE);
        equal(MPI.ERRORS_ARE_FATAL, w.getErrhandler(), "a new window's handler");
        w.setErrhandler(MPI.ERRORS_RETURN);
        IntBuffer one = MPI.newIntBuffer(4);

        fails(MPI.ERR_RMA_SYNC, "put outside an epoch", () -> w.put(one, 1, MPI.INT, 0, 0, 1, MPI.INT));
        fails(MPI.ERR_RMA_SYNC, "get of nothing outside an epoch", () -> w.get(one, 0, MPI.INT, 0, 0, 0, MPI.INT));
        fails(MPI.ERR_RMA_SYNC, "unlock without lock", () -> w.unlock(0));
        fails(MPI.ERR_RMA_SYNC, "unlockAll without lockAll", w::unlockAll);
        fails(MPI.ERR_RMA_SYNC, "flush outside a passive epoch", () -> w.flush(0));
        fails(MPI.ERR_LOCKTYPE, "lock type 3", () -> w.lock(3, 0, 0));
        fails(MPI.ERR_ASSERT, "MODE_NOPRECEDE on lock", () -> w.lock(MPI.LOCK_SHARED, 0, MPI.MODE_NOPRECEDE));
        fails(MPI.ERR_ASSERT, "MODE_NOCHECK on fence", () -> w.fence(MPI.MODE_NOCHECK));

        w.fence(0);
        fails(MPI.ERR_RMA_SYNC, "rPut in a fence epoch", () -> w.rPut(one, 1, MPI.INT, 0, 0, 1, MPI.INT));
        fails(MPI.ERR_RANK, "target rank size", () -> w.put(one, 1, MPI.INT, size, 0, 1, MPI.INT));
        fails(MPI.ERR_RANK, "target rank -3", () -> w.get(one, 1, MPI.INT, -3, 0, 1, MPI.INT));
        fails(MPI.ERR_DISP, "a negative displacement", () -> w.put(one, 1, MPI.INT, 0, -1, 1, MPI.INT));
        fails(MPI.ERR_DISP, "past the window", () -> w.put(one, 2, MPI.INT, 0, 3, 2, MPI.INT));
        fails(MPI.ERR_COUNT, "a negative count", () -> w.put(one, -1, MPI.INT, 0, 0, -1, MPI.INT));
        fails(MPI.ERR_COUNT, "origin and target of different lengths", () -> w.put(one, 2, MPI.INT, 0, 0, 1,
                MPI.INT));
        fails(MPI.ERR_BUFFER, "more items than the origin buffer", () -> w.put(MPI.newIntBuffer(1), 2, MPI.INT, 0, 0,
                2, MPI.INT));
        fails(MPI.ERR_BUFFER, "a null origin", () -> w.put(null, 1, MPI.INT, 0, 0, 1, MPI.INT));
        fails(MPI.ERR_TYPE, "MPI.DATATYPE_NULL", () -> w.put(one, 1, MPI.DATATYPE_NULL, 0, 0, 1,
                MPI.DATATYPE_NULL));
        Datatype raw = Datatype.createVector(2, 1, 2, MPI.INT);
        fails(MPI.ERR_TYPE, "an uncommitted target type", () -> w.put(one, 2, MPI.INT, 0, 0, 1, raw));
        try {
            w.put(one, 1, MPI.INT, 0, 0, 1, MPI.FLOAT);
            throw new AssertionError("an INT origin for a FLOAT target was accepted");
        } catch (IllegalArgumentException expected) {
            // the bindings' answer: both types of one predefined type
        }
        Op user = new Op(new UserFunction() { }, true);
        fails(MPI.ERR_OP, "a user operation", () -> w.accumulate(one, 1, MPI.INT, 0, 0, 1, MPI.INT, user));
        fails(MPI.ERR_OP, "MAXLOC on MPI.INT", () -> w.accumulate(one, 1, MPI.INT, 0, 0, 1, MPI.INT, MPI.MAXLOC));
        ByteBuffer pair = MPI.newByteBuffer(16);
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "MAXLOC on DOUBLE_INT", () -> w.accumulate(pair, 1, MPI.DOUBLE_INT, 0,
                0, 1, MPI.DOUBLE_INT, MPI.MAXLOC));
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "PROD of complex numbers", () -> w.accumulate(pair, 1,
                MPI.DOUBLE_COMPLEX, 0, 0, 1, MPI.DOUBLE_COMPLEX, MPI.PROD));
        Datatype two = Datatype.createContiguous(2, MPI.INT);
        two.commit();
        fails(MPI.ERR_TYPE, "compareAndSwap of a derived type", () -> w.compareAndSwap(one, one, one, two, 0, 0));
        fails(MPI.ERR_TYPE, "fetchAndOp of a derived type", () -> w.fetchAndOp(one, one, two, 0, 0, MPI.SUM));
        fails(MPI.ERR_WIN, "sharedQuery of a private window", () -> w.sharedQuery(rank));
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "attach", () -> w.attach(one, 1));
        // after every error, the epoch still works
        one.put(0, rank + 5);
        w.accumulate(one, 1, MPI.INT, 0, 0, 1, MPI.INT, MPI.SUM);
        w.fence(MPI.MODE_NOSUCCEED);
        fails(MPI.ERR_RMA_SYNC, "put after the last fence", () -> w.put(one, 1, MPI.INT, 0, 0, 1, MPI.INT));
        w.lock(MPI.LOCK_SHARED, 0, 0);
        fails(MPI.ERR_RMA_SYNC, "fence inside a lock epoch", () -> w.fence(0));
        fails(MPI.ERR_RMA_SYNC, "a second lock of one target", () -> w.lock(MPI.LOCK_SHARED, 0, 0));
        w.get(one, 1, MPI.INT, 0, 0, 1, MPI.INT);
        w.unlock(0);
        equal(size * (size + 9) / 2, one.get(0), "the sum after the errors");

        // a window of longs (unit 8 bytes) cannot take an int layout off its unit
        Win longs = new Win(4, 1, MPI.INFO_NULL, c, MPI.newLongBuffer(0), Win.FLAVOR_PRIVATE);
        longs.setErrhandler(MPI.ERRORS_RETURN);
        Datatype odd = Datatype.createIndexed(new int[] {1, 1}, new int[] {1, 3}, MPI.INT);
        odd.commit();
        IntBuffer ints = MPI.newIntBuffer(2);
        longs.lock(MPI.LOCK_SHARED, rank, 0);
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "ints off a long unit", () -> longs.put(ints, 2, MPI.INT, rank, 0, 1,
                odd));
        longs.put(ints, 2, MPI.INT, rank, 1, 2, MPI.INT);               // on the unit: fine
        longs.unlock(rank);
        longs.free();

        // a window of this rank alone: a group of the world's ranks is not its group
        Win self = new Win(1, 1, MPI.INFO_NULL, MPI.COMM_SELF, MPI.newIntBuffer(0), Win.FLAVOR_PRIVATE);
        self.setErrhandler(MPI.ERRORS_RETURN);
        if (size > 1) {
            fails(MPI.ERR_GROUP, "start with other processes", () -> self.start(c.getGroup(), 0));
        }
        fails(MPI.ERR_OTHER, "callErrhandler", () -> self.callErrhandler(MPI.ERR_OTHER));
        self.free();

        w.free();
        fails(MPI.ERR_WIN, "a call on a freed window", () -> w.lockAll(0));
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": window errors ok");
    }
}

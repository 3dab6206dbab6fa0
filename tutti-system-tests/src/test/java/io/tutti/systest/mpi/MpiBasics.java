package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Version;

/**
 * MPI's start and end, its clock, names and versions, the constants, COMM_WORLD and COMM_SELF,
 * the predefined datatypes and operations, direct buffers and slices, attaching a buffer.
 */
public final class MpiBasics {
    private MpiBasics() {
    }

    public static void main(String[] args) throws MPIException {
        // before Init: the state calls answer, the others refuse
        that(!MPI.isInitialized() && !MPI.isFinalized(), "neither initialized nor finalized before Init");
        fails(0, "getRank before Init", () -> MPI.COMM_WORLD.getRank());
        fails(0, "wtime before Init", () -> MPI.wtime());

        int provided = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
        equal(MPI.THREAD_SERIALIZED, provided, "thread level provided for THREAD_MULTIPLE");
        equal(MPI.THREAD_SERIALIZED, MPI.queryThread(), "queryThread");
        that(MPI.isThreadMain(), "the thread that called Init is the main thread");
        that(MPI.isInitialized() && !MPI.isFinalized(), "initialized, not finalized");
        fails(0, "a second Init", () -> MPI.Init(args));
        equal(MPI.ERRORS_ARE_FATAL, MPI.COMM_WORLD.getErrhandler(), "the default error handler");
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);

        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        that(size >= 1 && rank >= 0 && rank < size, "rank " + rank + " of " + size);
        equal(0, MPI.COMM_SELF.getRank(), "rank in COMM_SELF");
        equal(1, MPI.COMM_SELF.getSize(), "size of COMM_SELF");
        that(!world.isNull(), "COMM_WORLD is not null");
        fails(MPI.ERR_COMM, "freeing COMM_WORLD", world::free);

        // COMM_SELF is a communicator of its own: a message to self there does not meet COMM_WORLD's
        int[] out = {rank * 10 + 1};
        int[] in = new int[1];
        MPI.COMM_SELF.sendRecv(out, 1, MPI.INT, 0, 3, in, 1, MPI.INT, 0, 3);
        equal(rank * 10 + 1, in[0], "message to self on COMM_SELF");

        // clock
        double t0 = MPI.wtime();
        double tick = MPI.wtick();
        that(tick > 0 && tick <= 1e-3, "wtick " + tick);
        long spin = System.nanoTime() + 2_000_000;
        while (System.nanoTime() < spin) {
            Thread.onSpinWait();
        }
        double dt = MPI.wtime() - t0;
        that(dt >= 0.0015 && dt < 60, "wtime advanced by " + dt + " s over a 2 ms wait");

        // names and versions
        String host = MPI.getProcessorName();
        that(host != null && !host.isEmpty() && host.length() <= 256, "processor name '" + host + "'");
        Version v = MPI.getVersion();
        equal(3, v.getVersion(), "MPI version");
        equal(1, v.getSubVersion(), "MPI subversion");
        equal(MPI.VERSION, v.getVersion(), "MPI.VERSION");
        equal(MPI.SUBVERSION, v.getSubVersion(), "MPI.SUBVERSION");
        that(MPI.getLibVersion().startsWith("Tutti ") && !MPI.getLibVersion().contains("unknown"),
                "library version '" + MPI.getLibVersion() + "'");

        // constants with Open MPI 5.0's values
        equal(-1, MPI.ANY_SOURCE, "ANY_SOURCE");
        equal(-1, MPI.ANY_TAG, "ANY_TAG");
        equal(-2, MPI.PROC_NULL, "PROC_NULL");
        equal(-32766, MPI.UNDEFINED, "UNDEFINED");
        equal(-4, MPI.ROOT, "ROOT");
        equal(0, MPI.SUCCESS, "SUCCESS");
        equal(15, MPI.ERR_TRUNCATE, "ERR_TRUNCATE");
        equal(6, MPI.ERR_RANK, "ERR_RANK");
        equal(128, MPI.BSEND_OVERHEAD, "BSEND_OVERHEAD");
        that(MPI.THREAD_SINGLE < MPI.THREAD_FUNNELED && MPI.THREAD_FUNNELED < MPI.THREAD_SERIALIZED
                && MPI.THREAD_SERIALIZED < MPI.THREAD_MULTIPLE, "thread levels in order");

        // predefined datatypes: sizes and extents in units of their base element, as the bindings count
        equal(1, MPI.INT.getSize(), "MPI.INT size");
        equal(1, MPI.DOUBLE.getExtent(), "MPI.DOUBLE extent");
        equal(2, MPI.DOUBLE_COMPLEX.getSize(), "MPI.DOUBLE_COMPLEX size");
        equal(8, MPI.INT2.getSize(), "MPI.INT2 size (bytes)");
        equal(12, MPI.DOUBLE_INT.getSize(), "MPI.DOUBLE_INT size (bytes)");
        equal(16, MPI.DOUBLE_INT.getExtent(), "MPI.DOUBLE_INT extent (bytes)");
        equal(0, MPI.LONG.getLb(), "MPI.LONG lower bound");
        equal("MPI_INT32_T", MPI.INT.getName(), "MPI.INT's name");
        that(MPI.DATATYPE_NULL.isNull() && !MPI.INT.isNull(), "DATATYPE_NULL is null, INT is not");
        fails(MPI.ERR_TYPE, "freeing MPI.INT", MPI.INT::free);

        // predefined operations
        for (mpi.Op op : new mpi.Op[] {MPI.MAX, MPI.MIN, MPI.SUM, MPI.PROD, MPI.LAND, MPI.BAND, MPI.LOR, MPI.BOR,
            MPI.LXOR, MPI.BXOR, MPI.MINLOC, MPI.MAXLOC, MPI.REPLACE, MPI.NO_OP}) {
            that(op.isCommutative() && !op.isNull(), op + " is commutative and not null");
        }
        fails(MPI.ERR_OP, "freeing MPI.SUM", MPI.SUM::free);

        // direct buffers: native order, the capacity asked for
        IntBuffer ib = MPI.newIntBuffer(12);
        that(ib.isDirect() && ib.capacity() == 12 && ib.order() == ByteOrder.nativeOrder(), "newIntBuffer");
        DoubleBuffer db = MPI.newDoubleBuffer(5);
        that(db.isDirect() && db.capacity() == 5, "newDoubleBuffer");
        ByteBuffer bb = MPI.newByteBuffer(7);
        that(bb.isDirect() && bb.capacity() == 7 && bb.order() == ByteOrder.nativeOrder(), "newByteBuffer");
        that(MPI.newCharBuffer(3).capacity() == 3 && MPI.newShortBuffer(3).capacity() == 3
                && MPI.newLongBuffer(3).capacity() == 3 && MPI.newFloatBuffer(3).capacity() == 3, "other buffers");

        // slices: from the offset to the capacity, over the same memory
        ib.position(9).limit(10);
        IntBuffer part = MPI.slice(ib, 4);
        equal(8, part.capacity(), "slice of a direct buffer");
        part.put(0, 77);
        equal(77, ib.get(4), "a slice shares its buffer's memory");
        equal(4, ib.position(), "slicing a buffer leaves its position at the offset, as the bindings do");
        int[] array = new int[10];
        IntBuffer arraySlice = MPI.slice(array, 3);
        equal(3, arraySlice.arrayOffset(), "a slice of an array starts at the offset");
        equal(7, arraySlice.capacity(), "a slice of an array runs to its end");

        // the buffer of buffered sends
        equal(null, MPI.detachBuffer(), "detaching with nothing attached");
        byte[] attached = new byte[1000];
        MPI.attachBuffer(attached);
        fails(MPI.ERR_BUFFER, "attaching a second buffer", () -> MPI.attachBuffer(new byte[10]));
        that(MPI.detachBuffer() == attached, "detach returns the attached buffer");

        MPI.pControl(1, null);
        MPI.Finalize();
        that(MPI.isInitialized() && MPI.isFinalized(), "initialized and finalized after Finalize");
        fails(0, "getSize after Finalize", () -> MPI.COMM_WORLD.getSize());
        fails(0, "a second Finalize", MPI::Finalize);
        System.out.println("rank " + rank + " of " + size + ": basics ok");
    }
}

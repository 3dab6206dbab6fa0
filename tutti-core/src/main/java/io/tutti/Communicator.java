package io.tutti;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A group of ranks with its own message space (context): messages sent on one communicator are
 * received only on the same communicator. Point-to-point calls take Java primitive arrays (offset
 * and count in elements), off-heap {@link MemorySegment}s, or direct {@link ByteBuffer}s
 * (position to limit). Ranks and tags are those of this communicator; {@link #ANY_SOURCE} and
 * {@link #ANY_TAG} match anything on receives. Messages between a pair of ranks on one communicator
 * are matched in the order they were sent (MPI's non-overtaking rule).
 *
 * <p>For {@code byte[] int[] long[] float[] double[]}, whole-array forms ({@code send(buf, dest, tag)},
 * {@code allreduce(in, out, op)}, ...) take the datatype from the array and the count from its length;
 * their one-array forms are the in-place collectives. With MAXLOC and MINLOC they read the arrays as
 * (value, index) pairs of the array's type ({@link Datatype#DOUBLE2} for a {@code double[]}).
 *
 * <p>A communicator is used by one thread at a time (MPI_THREAD_SERIALIZED). Programs get theirs
 * from {@link Tutti#world()} and {@link #split}; the runtime implements the protected methods.
 */
public abstract class Communicator extends TypedCalls {
    /** Receive from any rank. */
    public static final int ANY_SOURCE = -1;
    /** Receive with any tag. */
    public static final int ANY_TAG = -1;
    /** The largest tag a message may carry. */
    public static final int MAX_TAG = Integer.MAX_VALUE;
    /** Color for ranks that take no part in a {@link #split}. */
    public static final int UNDEFINED = -1;

    /**
     * Stands for the receive buffer as the send buffer of a collective (MPI_IN_PLACE); the one-array
     * typed forms ({@code allreduce(inOut, op)}, ...) pass it for the program.
     */
    public static final Object IN_PLACE = new Object() {
        @Override
        public String toString() {
            return "IN_PLACE";
        }
    };

    /** How a collective call runs: to completion, started and returned as a request, or persistent. */
    protected enum Call { BLOCKING, NONBLOCKING, PERSISTENT }

    /**
     * For the runtime.
     *
     * @param context   the communicator's point-to-point context; its collectives use the next one
     * @param group     communicator rank to world rank (kept, not copied)
     * @param worldRank this rank in the world
     * @param worldSize ranks in the world
     */
    protected Communicator(int context, int[] group, int worldRank, int worldSize) {
        super(context, group, worldRank, worldSize);
    }

    /** For {@link Intercommunicator}: ranks and size of {@code localGroup}, calls addressed to {@code remoteGroup}. */
    Communicator(int context, int[] localGroup, int[] remoteGroup, int worldRank, int worldSize) {
        super(context, localGroup, remoteGroup, worldRank, worldSize);
    }

    /** Whether this is an {@link Intercommunicator} (MPI_COMM_TEST_INTER). */
    public boolean isInter() {
        return false;
    }

    // ------------------------------------------------------------ collectives
    //
    // Buffers are a primitive array matching the datatype (int[] for INT and INT2, ...) or a
    // MemorySegment; counts are in elements (pairs for the pair types). Every rank of the
    // communicator must call the same collectives in the same order.

    /** Returns once every rank of the communicator has entered the barrier. */
    public final void barrier() {
        runBarrier(Call.BLOCKING);
    }

    /** Nonblocking barrier: returns at once; complete the request with wait or test. */
    public final Request ibarrier() {
        return runBarrier(Call.NONBLOCKING);
    }

    /** Persistent barrier: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request barrierInit() {
        return runBarrier(Call.PERSISTENT);
    }

    /** Sends {@code count} elements of {@code buf} from {@code root} to every rank's {@code buf}. */
    public final void bcast(Object buf, int count, Datatype type, int root) {
        runBcast(Call.BLOCKING, buf, count, type, root);
    }

    /** Nonblocking broadcast: returns at once; complete the request with wait or test. */
    public final Request ibcast(Object buf, int count, Datatype type, int root) {
        return runBcast(Call.NONBLOCKING, buf, count, type, root);
    }

    /** Persistent broadcast: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request bcastInit(Object buf, int count, Datatype type, int root) {
        return runBcast(Call.PERSISTENT, buf, count, type, root);
    }

    /**
     * Sends block r ({@code count} elements from element {@code r * count}) of the root's {@code
     * send} to rank r's {@code recv}; {@code send} is ignored elsewhere. {@code recv} may be {@link
     * #IN_PLACE} at the root.
     */
    public final void scatter(Object send, Object recv, int count, Datatype type, int root) {
        runScatter(Call.BLOCKING, send, null, null, recv, count, type, root, false);
    }

    /** Nonblocking scatter: returns at once; complete the request with wait or test. */
    public final Request iscatter(Object send, Object recv, int count, Datatype type, int root) {
        return runScatter(Call.NONBLOCKING, send, null, null, recv, count, type, root, false);
    }

    /** Persistent scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request scatterInit(Object send, Object recv, int count, Datatype type, int root) {
        return runScatter(Call.PERSISTENT, send, null, null, recv, count, type, root, false);
    }

    /**
     * Scatter of uneven blocks: block r is {@code counts[r]} elements at element {@code displs[r]}
     * of the root's {@code send} (both arrays read at the root only).
     */
    public final void scatterv(Object send, int[] counts, int[] displs, Object recv, int recvCount, Datatype type,
                               int root) {
        runScatter(Call.BLOCKING, send, counts, displs, recv, recvCount, type, root, true);
    }

    /** Nonblocking scatterv: returns at once; complete the request with wait or test. */
    public final Request iscatterv(Object send, int[] counts, int[] displs, Object recv, int recvCount,
                                   Datatype type, int root) {
        return runScatter(Call.NONBLOCKING, send, counts, displs, recv, recvCount, type, root, true);
    }

    /** Persistent scatterv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request scattervInit(Object send, int[] counts, int[] displs, Object recv, int recvCount,
                                      Datatype type, int root) {
        return runScatter(Call.PERSISTENT, send, counts, displs, recv, recvCount, type, root, true);
    }

    /**
     * Collects {@code count} elements from every rank into the root's {@code recv}, rank r's at
     * element {@code r * count}; {@code recv} is ignored elsewhere. {@code send} may be {@link
     * #IN_PLACE} at the root.
     */
    public final void gather(Object send, Object recv, int count, Datatype type, int root) {
        runGather(Call.BLOCKING, send, count, recv, null, null, type, root, false);
    }

    /** Nonblocking gather: returns at once; complete the request with wait or test. */
    public final Request igather(Object send, Object recv, int count, Datatype type, int root) {
        return runGather(Call.NONBLOCKING, send, count, recv, null, null, type, root, false);
    }

    /** Persistent gather: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request gatherInit(Object send, Object recv, int count, Datatype type, int root) {
        return runGather(Call.PERSISTENT, send, count, recv, null, null, type, root, false);
    }

    /**
     * Gather of uneven blocks: rank r's {@code counts[r]} elements land at element {@code
     * displs[r]} of the root's {@code recv} (both arrays read at the root only).
     */
    public final void gatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type,
                              int root) {
        runGather(Call.BLOCKING, send, sendCount, recv, counts, displs, type, root, true);
    }

    /** Nonblocking gatherv: returns at once; complete the request with wait or test. */
    public final Request igatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type,
                                  int root) {
        return runGather(Call.NONBLOCKING, send, sendCount, recv, counts, displs, type, root, true);
    }

    /** Persistent gatherv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request gathervInit(Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                     Datatype type, int root) {
        return runGather(Call.PERSISTENT, send, sendCount, recv, counts, displs, type, root, true);
    }

    /**
     * Every rank gets every rank's {@code count} elements, rank r's at element {@code r * count} of
     * {@code recv}. {@code send} may be {@link #IN_PLACE}.
     */
    public final void allgather(Object send, Object recv, int count, Datatype type) {
        runAllgather(Call.BLOCKING, send, count, recv, null, null, type);
    }

    /** Nonblocking allgather: returns at once; complete the request with wait or test. */
    public final Request iallgather(Object send, Object recv, int count, Datatype type) {
        return runAllgather(Call.NONBLOCKING, send, count, recv, null, null, type);
    }

    /** Persistent allgather: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request allgatherInit(Object send, Object recv, int count, Datatype type) {
        return runAllgather(Call.PERSISTENT, send, count, recv, null, null, type);
    }

    /**
     * Allgather of uneven blocks: rank r's {@code counts[r]} elements land at element {@code
     * displs[r]} of every {@code recv}.
     */
    public final void allgatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type) {
        runAllgather(Call.BLOCKING, send, sendCount, recv, counts, displs, type);
    }

    /** Nonblocking allgatherv: returns at once; complete the request with wait or test. */
    public final Request iallgatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                     Datatype type) {
        return runAllgather(Call.NONBLOCKING, send, sendCount, recv, counts, displs, type);
    }

    /** Persistent allgatherv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request allgathervInit(Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                        Datatype type) {
        return runAllgather(Call.PERSISTENT, send, sendCount, recv, counts, displs, type);
    }

    /**
     * Every rank sends block q ({@code count} elements at element {@code q * count} of {@code
     * send}) to rank q, which stores it as block r of {@code recv}. {@code send} may be {@link
     * #IN_PLACE}.
     */
    public final void alltoall(Object send, Object recv, int count, Datatype type) {
        runAlltoall(Call.BLOCKING, send, null, null, recv, null, null, count, type);
    }

    /** Nonblocking alltoall: returns at once; complete the request with wait or test. */
    public final Request ialltoall(Object send, Object recv, int count, Datatype type) {
        return runAlltoall(Call.NONBLOCKING, send, null, null, recv, null, null, count, type);
    }

    /** Persistent alltoall: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request alltoallInit(Object send, Object recv, int count, Datatype type) {
        return runAlltoall(Call.PERSISTENT, send, null, null, recv, null, null, count, type);
    }

    /** Alltoall of uneven blocks, with element counts and displacements per peer on both sides. */
    public final void alltoallv(Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts,
                                int[] recvDispls, Datatype type) {
        runAlltoall(Call.BLOCKING, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /** Nonblocking alltoallv: returns at once; complete the request with wait or test. */
    public final Request ialltoallv(Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts,
                                    int[] recvDispls, Datatype type) {
        return runAlltoall(Call.NONBLOCKING, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /** Persistent alltoallv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request alltoallvInit(Object send, int[] sendCounts, int[] sendDispls, Object recv,
                                       int[] recvCounts, int[] recvDispls, Datatype type) {
        return runAlltoall(Call.PERSISTENT, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /**
     * Combines {@code count} elements from every rank with {@code op} into {@code recv} at {@code
     * root} ({@code recv} is ignored elsewhere and may be null). {@code send} may be {@link
     * #IN_PLACE} at the root.
     */
    public final void reduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root) {
        runReduce(Call.BLOCKING, send, recv, count, type, op, null, root);
    }

    /** Nonblocking reduce: returns at once; complete the request with wait or test. */
    public final Request ireduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root) {
        return runReduce(Call.NONBLOCKING, send, recv, count, type, op, null, root);
    }

    /** Persistent reduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceInit(Object send, Object recv, int count, Datatype type, ReduceOp op, int root) {
        return runReduce(Call.PERSISTENT, send, recv, count, type, op, null, root);
    }

    /**
     * Combines {@code count} elements from every rank with {@code op} into {@code recv} at {@code
     * root} ({@code recv} is ignored elsewhere and may be null). {@code send} may be {@link
     * #IN_PLACE} at the root. With a user-defined operation.
     */
    public final void reduce(Object send, Object recv, int count, Datatype type, UserOp op, int root) {
        runReduce(Call.BLOCKING, send, recv, count, type, null, op, root);
    }

    /** Nonblocking reduce: returns at once; complete the request with wait or test. */
    public final Request ireduce(Object send, Object recv, int count, Datatype type, UserOp op, int root) {
        return runReduce(Call.NONBLOCKING, send, recv, count, type, null, op, root);
    }

    /** Persistent reduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceInit(Object send, Object recv, int count, Datatype type, UserOp op, int root) {
        return runReduce(Call.PERSISTENT, send, recv, count, type, null, op, root);
    }

    /**
     * Combines {@code count} elements from every rank with {@code op} into every rank's {@code
     * recv}. {@code send} may be {@link #IN_PLACE}.
     */
    public final void allreduce(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        runAllreduce(Call.BLOCKING, send, recv, count, type, op, null);
    }

    /** Nonblocking allreduce: returns at once; complete the request with wait or test. */
    public final Request iallreduce(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runAllreduce(Call.NONBLOCKING, send, recv, count, type, op, null);
    }

    /** Persistent allreduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request allreduceInit(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runAllreduce(Call.PERSISTENT, send, recv, count, type, op, null);
    }

    /**
     * Combines {@code count} elements from every rank with {@code op} into every rank's {@code
     * recv}. {@code send} may be {@link #IN_PLACE}. With a user-defined operation.
     */
    public final void allreduce(Object send, Object recv, int count, Datatype type, UserOp op) {
        runAllreduce(Call.BLOCKING, send, recv, count, type, null, op);
    }

    /** Nonblocking allreduce: returns at once; complete the request with wait or test. */
    public final Request iallreduce(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runAllreduce(Call.NONBLOCKING, send, recv, count, type, null, op);
    }

    /** Persistent allreduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request allreduceInit(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runAllreduce(Call.PERSISTENT, send, recv, count, type, null, op);
    }

    /**
     * Combines two buffers of this rank, {@code inout[i] = in[i] op inout[i]} for {@code count}
     * elements, with the reductions' own kernels and nothing sent (MPI_REDUCE_LOCAL). Buffers as
     * for {@link #allreduce}: an array of the type's elements or a segment; the same one twice, or
     * two that do not overlap.
     */
    public final void reduceLocal(Object in, Object inout, int count, Datatype type, ReduceOp op) {
        runReduceLocal(in, inout, count, type, op, null);
    }

    /** As {@link #reduceLocal(Object, Object, int, Datatype, ReduceOp)} with a user-defined operation. */
    public final void reduceLocal(Object in, Object inout, int count, Datatype type, UserOp op) {
        runReduceLocal(in, inout, count, type, null, op);
    }

    /**
     * Combines every rank's {@code send} (the sum of {@code counts} elements) with {@code op} and
     * leaves block r ({@code counts[r]} elements, in order) in rank r's {@code recv}. {@code send}
     * may be {@link #IN_PLACE}: the input is then in {@code recv}.
     */
    public final void reduceScatter(Object send, Object recv, int[] counts, Datatype type, ReduceOp op) {
        runReduceScatter(Call.BLOCKING, send, recv, counts, 0, type, op, null);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public final Request ireduceScatter(Object send, Object recv, int[] counts, Datatype type, ReduceOp op) {
        return runReduceScatter(Call.NONBLOCKING, send, recv, counts, 0, type, op, null);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceScatterInit(Object send, Object recv, int[] counts, Datatype type, ReduceOp op) {
        return runReduceScatter(Call.PERSISTENT, send, recv, counts, 0, type, op, null);
    }

    /**
     * Combines every rank's {@code send} (the sum of {@code counts} elements) with {@code op} and
     * leaves block r ({@code counts[r]} elements, in order) in rank r's {@code recv}. {@code send}
     * may be {@link #IN_PLACE}: the input is then in {@code recv}. With a user-defined operation.
     */
    public final void reduceScatter(Object send, Object recv, int[] counts, Datatype type, UserOp op) {
        runReduceScatter(Call.BLOCKING, send, recv, counts, 0, type, null, op);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public final Request ireduceScatter(Object send, Object recv, int[] counts, Datatype type, UserOp op) {
        return runReduceScatter(Call.NONBLOCKING, send, recv, counts, 0, type, null, op);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceScatterInit(Object send, Object recv, int[] counts, Datatype type, UserOp op) {
        return runReduceScatter(Call.PERSISTENT, send, recv, counts, 0, type, null, op);
    }

    /** Reduce-scatter with {@code count} elements per rank. */
    public final void reduceScatterBlock(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        runReduceScatter(Call.BLOCKING, send, recv, null, count, type, op, null);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public final Request ireduceScatterBlock(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runReduceScatter(Call.NONBLOCKING, send, recv, null, count, type, op, null);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceScatterBlockInit(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runReduceScatter(Call.PERSISTENT, send, recv, null, count, type, op, null);
    }

    /** Reduce-scatter with {@code count} elements per rank. With a user-defined operation. */
    public final void reduceScatterBlock(Object send, Object recv, int count, Datatype type, UserOp op) {
        runReduceScatter(Call.BLOCKING, send, recv, null, count, type, null, op);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public final Request ireduceScatterBlock(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runReduceScatter(Call.NONBLOCKING, send, recv, null, count, type, null, op);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request reduceScatterBlockInit(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runReduceScatter(Call.PERSISTENT, send, recv, null, count, type, null, op);
    }

    /**
     * Inclusive prefix reduction: rank r's {@code recv} gets ranks 0..r combined in rank order.
     * {@code send} may be {@link #IN_PLACE}.
     */
    public final void scan(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        runScan(Call.BLOCKING, false, send, recv, count, type, op, null);
    }

    /** Nonblocking scan: returns at once; complete the request with wait or test. */
    public final Request iscan(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runScan(Call.NONBLOCKING, false, send, recv, count, type, op, null);
    }

    /** Persistent scan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request scanInit(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runScan(Call.PERSISTENT, false, send, recv, count, type, op, null);
    }

    /**
     * Inclusive prefix reduction: rank r's {@code recv} gets ranks 0..r combined in rank order.
     * {@code send} may be {@link #IN_PLACE}. With a user-defined operation.
     */
    public final void scan(Object send, Object recv, int count, Datatype type, UserOp op) {
        runScan(Call.BLOCKING, false, send, recv, count, type, null, op);
    }

    /** Nonblocking scan: returns at once; complete the request with wait or test. */
    public final Request iscan(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runScan(Call.NONBLOCKING, false, send, recv, count, type, null, op);
    }

    /** Persistent scan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request scanInit(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runScan(Call.PERSISTENT, false, send, recv, count, type, null, op);
    }

    /**
     * Exclusive prefix reduction: rank r's {@code recv} gets ranks 0..r-1 combined in rank order;
     * rank 0's {@code recv} is not written. {@code send} may be {@link #IN_PLACE}.
     */
    public final void exscan(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        runScan(Call.BLOCKING, true, send, recv, count, type, op, null);
    }

    /** Nonblocking exscan: returns at once; complete the request with wait or test. */
    public final Request iexscan(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runScan(Call.NONBLOCKING, true, send, recv, count, type, op, null);
    }

    /** Persistent exscan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request exscanInit(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return runScan(Call.PERSISTENT, true, send, recv, count, type, op, null);
    }

    /**
     * Exclusive prefix reduction: rank r's {@code recv} gets ranks 0..r-1 combined in rank order;
     * rank 0's {@code recv} is not written. {@code send} may be {@link #IN_PLACE}. With a
     * user-defined operation.
     */
    public final void exscan(Object send, Object recv, int count, Datatype type, UserOp op) {
        runScan(Call.BLOCKING, true, send, recv, count, type, null, op);
    }

    /** Nonblocking exscan: returns at once; complete the request with wait or test. */
    public final Request iexscan(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runScan(Call.NONBLOCKING, true, send, recv, count, type, null, op);
    }

    /** Persistent exscan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public final Request exscanInit(Object send, Object recv, int count, Datatype type, UserOp op) {
        return runScan(Call.PERSISTENT, true, send, recv, count, type, null, op);
    }

    /**
     * Forces {@code algorithm} for {@code operation} (barrier, bcast, reduce, allreduce,
     * reducescatter, scan, exscan, gather, scatter, allgather, alltoall) on this communicator, as
     * {@code TUTTI_COLL_<OP>} does for the whole job; null returns to the automatic choice. Every
     * rank must make the same choice. The algorithms are listed in docs/guide/collectives.md. An
     * intercommunicator's collectives have one algorithm each: there it fails with
     * {@link TuttiException.Unsupported}.
     */
    public abstract void setAlgorithm(String operation, String algorithm);

    // ------------------------------------------------------------ offloaded persistent collectives

    /** Persistent barrier, on the host or offloaded to the software NIC ({@link Offload}). */
    public final Request barrierInit(Offload where) {
        return where == Offload.HOST ? barrierInit() : offloadBarrier();
    }

    /** Persistent broadcast, on the host or offloaded to the software NIC. */
    public final Request bcastInit(Object buf, int count, Datatype type, int root, Offload where) {
        return where == Offload.HOST ? bcastInit(buf, count, type, root) : offloadBcast(buf, count, type, root);
    }

    /** Persistent allgather, on the host or offloaded to the software NIC. */
    public final Request allgatherInit(Object send, Object recv, int count, Datatype type, Offload where) {
        return where == Offload.HOST ? allgatherInit(send, recv, count, type)
                : offloadAllgather(send, recv, count, type);
    }

    /** Persistent reduce, on the host or offloaded to the software NIC (its ALU: no PROD, no 8/16-bit types). */
    public final Request reduceInit(Object send, Object recv, int count, Datatype type, ReduceOp op, int root,
                                    Offload where) {
        return where == Offload.HOST ? reduceInit(send, recv, count, type, op, root)
                : offloadReduce(send, recv, count, type, op, root);
    }

    /** Persistent allreduce, on the host or offloaded to the software NIC (its ALU: no PROD, no 8/16-bit types). */
    public final Request allreduceInit(Object send, Object recv, int count, Datatype type, ReduceOp op,
                                       Offload where) {
        return where == Offload.HOST ? allreduceInit(send, recv, count, type, op)
                : offloadAllreduce(send, recv, count, type, op);
    }

    // ------------------------------------------------------------ communicators

    /** A new communicator with the same ranks and a message space of its own. Collective. */
    public Communicator dup() {
        return split(0, rank());
    }

    /**
     * A communicator of the ranks {@code ranks} of this one, in that order, called by those ranks only
     * (MPI_COMM_CREATE_GROUP): the others take no part and may be doing anything else. The first of
     * them agrees the new context with the others over this communicator; every member must pass
     * the same ranks and {@code tag} (else every member fails with {@link TuttiException.InvalidArgument}
     * naming the difference, rather than waiting).
     */
    public abstract Communicator createGroup(int[] ranks, int tag);

    /**
     * An intercommunicator between this communicator's ranks (the local group) and the ranks of
     * another, disjoint communicator (the remote group), as MPI_INTERCOMM_CREATE: collective over
     * both groups. Each group names a leader ({@code localLeader}, a rank of this communicator); the
     * two leaders reach each other over {@code peer}, a communicator both belong to, where the local
     * leader names the other as {@code remoteLeader}; {@code peer} and {@code remoteLeader} are read
     * at the leader only (elsewhere {@code peer} may be null). Both leaders must pass the same
     * {@code tag}: a difference fails both groups with {@link TuttiException.InvalidArgument}.
     */
    public abstract Intercommunicator createIntercomm(int localLeader, Communicator peer, int remoteLeader, int tag);

    /**
     * Splits the ranks by {@code color}; within a color, new ranks follow {@code key}, then the old
     * rank. A negative color ({@link #UNDEFINED}) returns null for that rank. Collective.
     */
    public abstract Communicator split(int color, int key);

    // ------------------------------------------------------------ dynamic processes

    /**
     * Starts {@code count} new processes, each running {@code mainClass} with {@code args} on this
     * job's class path, and returns an intercommunicator whose remote group is their world
     * (MPI_COMM_SPAWN); they reach this communicator's ranks through {@link Tutti#parent()}. Collective
     * over this communicator; {@code mainClass}, {@code args} and {@code count} are read at
     * {@code root} only. Needs {@code tutti run} with a JVM per rank on the launcher's host; elsewhere
     * every rank fails with {@link TuttiException.Unsupported} saying why. docs/guide/api.md,
     * "Dynamic processes".
     */
    public final Intercommunicator spawn(String mainClass, java.util.List<String> args, int count, int root) {
        return spawn(java.util.List.of(new Program(mainClass, args, count)), root);
    }

    /**
     * As {@link #spawn(String, java.util.List, int, int)}, for several programs at once
     * (MPI_COMM_SPAWN_MULTIPLE): their processes form one world, the first program's first.
     * {@code programs} is read at {@code root} only.
     */
    public abstract Intercommunicator spawn(java.util.List<Program> programs, int root);

    /**
     * Waits at {@code root} for a {@link #connect} to {@code port} ({@link Tutti#openPort}) and
     * returns the intercommunicator to the connecting group (MPI_COMM_ACCEPT). Collective; only the
     * root's {@code port} counts. Waits until a connect comes, the port is closed, or the job ends.
     */
    public abstract Intercommunicator accept(String port, int root);

    /**
     * Connects to the group that accepts at {@code port} and returns the intercommunicator to it
     * (MPI_COMM_CONNECT). Collective; only the root's {@code port} counts.
     */
    public abstract Intercommunicator connect(String port, int root);

    /**
     * {@code count} processes of {@code mainClass}, each given {@code args}: one program of a {@link #spawn}.
     *
     * @param mainClass the class whose {@code main} the processes run, on the job's class path
     * @param args      its arguments
     * @param count     how many processes run it
     */
    public record Program(String mainClass, java.util.List<String> args, int count) {
    }

    // ------------------------------------------------------------ surviving failed ranks (ULFM)
    //
    // Fail-stop failures, as the MPI fault-tolerance proposal (ULFM) handles them: operations that
    // need a failed rank throw TuttiException.PeerFailed; a rank that notices revokes the
    // communicator so that every rank leaves what it was waiting in, then the survivors shrink it
    // into a communicator of their own. docs/guide/fault-tolerance.md has the protocol and the rules.

    /**
     * Revokes this communicator at every rank (MPIX_Comm_revoke): every pending and later operation
     * on it fails promptly with {@link TuttiException.Revoked}, at every live rank, even one blocked
     * in a receive or a collective, save {@link #agree} and {@link #shrink}. Local: returns at once.
     */
    public abstract void revoke();

    /** Whether this communicator has been revoked, here or (as far as this rank has heard) elsewhere. */
    public abstract boolean isRevoked();

    /**
     * A new communicator of the ranks that have not failed, in the same order (MPIX_Comm_shrink).
     * Collective over the survivors, and works on a revoked communicator; the survivors agree on
     * the failed set, so every one gets the same group even when only some have noticed a failure.
     * A rank that fails during the call may still be in the group: the next operation that needs it
     * says so, and shrinking again removes it.
     */
    public abstract Communicator shrink();

    /**
     * Fault-tolerant agreement (MPIX_Comm_agree): returns the bitwise AND of the {@code flag}s of the
     * ranks that took part, the same value at every survivor, and completes despite failures before
     * or during it; works on a revoked communicator. Collective over the survivors. Throws {@link
     * TuttiException.PeerFailed} at every survivor alike (the agreement completes first; the message
     * gives the flag) when the agreed failed set holds a rank whose failure not every rank had
     * acknowledged with {@link #ackFailed()} before the call; acknowledge and call again.
     */
    public abstract int agree(int flag);

    /** The ranks of this communicator this rank knows to have failed, ascending (a check of each, now). */
    public abstract int[] failedRanks();

    /**
     * Acknowledges the failures this rank knows of now (MPIX_Comm_failure_ack) and returns those
     * ranks, ascending (MPIX_Comm_failure_get_acked): receives from {@link #ANY_SOURCE} no longer
     * fail because of them, and {@link #agree} no longer reports them.
     */
    public abstract int[] ackFailed();

    @Override
    public String toString() {
        return "Communicator[context=" + context() + ", rank=" + rank() + ", size=" + size() + "]";
    }

    // ------------------------------------------------------------ one-sided communication

    /**
     * Creates a window over {@code memory}, which the caller owns and keeps alive until the window is
     * closed: a native segment (from an {@code Arena} or a mapping). Collective. Heap segments are
     * refused, because the garbage collector moves arrays while peers address them. Peers on this
     * host reach it with one copy through the kernel, peers on others through messages that this
     * rank's progress agent serves; see {@link Window}.
     *
     * @param dispUnit bytes per displacement unit of this rank's window (1 for bytes, the element size
     *                 for arrays of one type)
     */
    public final Window createWindow(MemorySegment memory, int dispUnit) {
        if (memory == null || !memory.isNative()) {
            throw new TuttiException.InvalidArgument("window memory must be a native MemorySegment (from an Arena),"
                    + " not " + (memory == null ? "null" : "a heap segment: the garbage collector moves arrays"
                    + " while peers address them; use allocateWindow to have Tutti allocate the memory"));
        }
        checkDispUnit(dispUnit);
        return openWindow(WindowKind.CREATE, memory, memory.byteSize(), dispUnit);
    }

    /** {@link #createWindow(MemorySegment, int)} over a direct buffer's whole capacity. Collective. */
    public final Window createWindow(ByteBuffer direct, int dispUnit) {
        if (direct == null || !direct.isDirect()) {
            throw new TuttiException.InvalidArgument("window memory must be a direct ByteBuffer"
                    + " (ByteBuffer.allocateDirect), not " + (direct == null ? "null" : "a heap buffer: the garbage"
                    + " collector moves its array while peers address it"));
        }
        return createWindow(MemorySegment.ofBuffer(direct.duplicate().clear()), dispUnit);
    }

    /**
     * Allocates {@code bytes} zeroed bytes of window memory for this rank ({@link Window#segment()}),
     * freed when the window is closed: the fastest kind, since peers on this host load and store it
     * directly (peers on other hosts through messages). Collective; the ranks may ask for different sizes.
     */
    public final Window allocateWindow(long bytes, int dispUnit) {
        checkDispUnit(dispUnit);
        checkWindowBytes(bytes);
        return openWindow(WindowKind.ALLOCATE, null, bytes, dispUnit);
    }

    /**
     * As {@link #allocateWindow}, where every rank may also load and store its peers' memory directly
     * through {@link Window#sharedSegment(int)} (MPI_Win_allocate_shared). All ranks of the
     * communicator must run on one host; collective.
     */
    public final Window allocateSharedWindow(long bytes, int dispUnit) {
        checkDispUnit(dispUnit);
        checkWindowBytes(bytes);
        return openWindow(WindowKind.SHARED, null, bytes, dispUnit);
    }

    /**
     * Creates a dynamic window (MPI_Win_create_dynamic): no memory at first; each rank then
     * {@link Window#attach}es regions of its own memory and tells its peers their addresses, which
     * they use as displacements (unit 1 byte). Across hosts each target checks the addresses against
     * its regions as records arrive, and a refusal fails the origin's flush. Collective; see
     * {@link Window#attach}.
     */
    public final Window createDynamicWindow() {
        return openWindow(WindowKind.DYNAMIC, null, 0, 1);
    }

    private static void checkDispUnit(int dispUnit) {
        if (dispUnit <= 0) {
            throw new TuttiException.InvalidArgument("displacement unit must be positive, got " + dispUnit);
        }
    }

    private static void checkWindowBytes(long bytes) {
        if (bytes < 0) {
            throw new TuttiException.InvalidArgument("window size must not be negative, got " + bytes);
        }
    }

    /** Where a window's memory comes from. */
    protected enum WindowKind { CREATE, ALLOCATE, SHARED, DYNAMIC }

    /** Creates this rank's part of a window, collectively; {@code memory} is null unless {@code kind} is CREATE. */
    protected abstract Window openWindow(WindowKind kind, MemorySegment memory, long bytes, int dispUnit);

    // ------------------------------------------------------------ what the runtime implements
    //
    // The collectives with their arguments as the program gave them (buffers, counts in elements,
    // IN_PLACE), unchecked; the runtime checks them and returns null for a BLOCKING call.

    protected abstract Request runBarrier(Call how);

    protected abstract Request runBcast(Call how, Object buf, int count, Datatype type, int root);

    protected abstract Request runReduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                         UserOp userOp, int root);

    protected abstract Request runAllreduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                            UserOp userOp);

    /** {@link #reduceLocal}: checks its arguments and combines the buffers. */
    protected abstract void runReduceLocal(Object in, Object inout, int count, Datatype type, ReduceOp op,
                                           UserOp userOp);

    /** Inclusive ({@code exclusive} false) or exclusive prefix reduction. */
    protected abstract Request runScan(Call how, boolean exclusive, Object send, Object recv, int count, Datatype type,
                                       ReduceOp op, UserOp userOp);

    /** {@code counts} null: {@code count} elements per rank (reduceScatterBlock). */
    protected abstract Request runReduceScatter(Call how, Object send, Object recv, int[] counts, int count,
                                                Datatype type, ReduceOp op, UserOp userOp);

    /**
     * {@code vector}: scatterv, whose {@code counts} and {@code displs} only the root needs (null
     * elsewhere is allowed); else scatter, {@code recvCount} elements per rank at r * recvCount.
     */
    protected abstract Request runScatter(Call how, Object send, int[] counts, int[] displs, Object recv,
                                          int recvCount, Datatype type, int root, boolean vector);

    /**
     * {@code vector}: gatherv, whose {@code counts} and {@code displs} only the root needs (null
     * elsewhere is allowed); else gather, {@code sendCount} elements per rank at r * sendCount.
     */
    protected abstract Request runGather(Call how, Object send, int sendCount, Object recv, int[] counts,
                                         int[] displs, Datatype type, int root, boolean vector);

    /** {@code counts} null: {@code sendCount} elements per rank (allgather), else allgatherv. */
    protected abstract Request runAllgather(Call how, Object send, int sendCount, Object recv, int[] counts,
                                            int[] displs, Datatype type);

    /** Null counts and displacements: {@code count} elements per rank (alltoall), else alltoallv. */
    protected abstract Request runAlltoall(Call how, Object send, int[] sendCounts, int[] sendDispls, Object recv,
                                           int[] recvCounts, int[] recvDispls, int count, Datatype type);

    protected abstract Request offloadBarrier();

    protected abstract Request offloadBcast(Object buf, int count, Datatype type, int root);

    protected abstract Request offloadAllgather(Object send, Object recv, int count, Datatype type);

    protected abstract Request offloadReduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root);

    protected abstract Request offloadAllreduce(Object send, Object recv, int count, Datatype type, ReduceOp op);
}

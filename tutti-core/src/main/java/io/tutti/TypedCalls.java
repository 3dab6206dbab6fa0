package io.tutti;

import java.lang.reflect.Array;

/**
 * The whole-array forms of the point-to-point calls and of the common collectives, for {@code byte[]},
 * {@code int[]}, {@code long[]}, {@code float[]} and {@code double[]}: the datatype follows from the
 * array and the count from its length, so that the compiler rejects a {@code double[]} sent as INT and
 * a program need not repeat a length the array already has. Each form checks the lengths against
 * each other and calls a count-and-datatype form of {@link Communicator} or {@link PointToPoint},
 * which stay for parts of arrays, segments, the v-forms, nonblocking and persistent collectives and
 * user operations; no call here has a path or an allocation of its own. A class of its own so that
 * neither of those reads as a wall of overloads; programs use {@code Communicator}.
 *
 * <p>The one-array forms ({@code allreduce(inOut, op)}, ...) are the collectives with {@link
 * Communicator#IN_PLACE}. With MAXLOC and MINLOC a reduction reads its arrays as (value, index) pairs
 * of the array's own type ({@link Datatype#INT2} for an {@code int[]}, ...), so their length is even;
 * {@code byte[]} has no pair type.
 */
abstract class TypedCalls extends PointToPoint {
    TypedCalls(int context, int[] group, int worldRank, int worldSize) {
        super(context, group, worldRank, worldSize);
    }

    TypedCalls(int context, int[] localGroup, int[] group, int worldRank, int worldSize) {
        super(context, localGroup, group, worldRank, worldSize);
    }

    // ------------------------------------------------------------ byte[]

    /** Blocking send of the whole array. */
    public final void send(byte[] buf, int dest, int tag) {
        send(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements; returns the status (allocated: see the next form). */
    public final Status recv(byte[] buf, int source, int tag) {
        return recv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements that fills {@code status} (may be null). */
    public final void recv(byte[] buf, int source, int tag, Status status) {
        recv(buf, 0, buf == null ? 0 : buf.length, source, tag, status);
    }

    /** Nonblocking send of the whole array; it must not change until the request completes. */
    public final Request isend(byte[] buf, int dest, int tag) {
        return isend(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Nonblocking receive of up to {@code buf.length} elements. */
    public final Request irecv(byte[] buf, int source, int tag) {
        return irecv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Broadcasts the root's {@code buf} to every rank's; every rank passes an array of the same length. */
    public final void bcast(byte[] buf, int root) {
        bcast(buf, length(buf, "bcast", "buf"), Datatype.BYTE, root);
    }

    /** Gathers every rank's {@code in} into the root's {@code out}, of {@code size() * in.length} (null elsewhere). */
    public final void gather(byte[] in, byte[] out, int root) {
        gather(in, out, gatherCount(in, out, root), Datatype.BYTE, root);
    }

    /** Scatters the root's {@code in}, of {@code size() * out.length} (null elsewhere), to every rank's {@code out}. */
    public final void scatter(byte[] in, byte[] out, int root) {
        scatter(in, out, scatterCount(in, out, root), Datatype.BYTE, root);
    }

    /** Every rank's {@code in} into every rank's {@code out}, rank r's at {@code r * in.length}. */
    public final void allgather(byte[] in, byte[] out) {
        allgather(in, out, allgatherCount(in, out), Datatype.BYTE);
    }

    /** In-place allgather: rank r's block of {@code inOut} ({@code inOut.length / size()} elements) is its input. */
    public final void allgather(byte[] inOut) {
        allgather(Communicator.IN_PLACE, inOut, block(inOut, "allgather", "inOut"), Datatype.BYTE);
    }

    /** Block q of {@code in} to rank q, which keeps it as block r of {@code out} (both {@code size()} blocks). */
    public final void alltoall(byte[] in, byte[] out) {
        alltoall(in, out, alltoallCount(in, out), Datatype.BYTE);
    }

    /** In-place alltoall: block q of {@code inOut} goes to rank q and is replaced by rank q's block r. */
    public final void alltoall(byte[] inOut) {
        alltoall(Communicator.IN_PLACE, inOut, block(inOut, "alltoall", "inOut"), Datatype.BYTE);
    }

    /** Combines every rank's {@code in} with {@code op} into the root's {@code out} (may be null elsewhere). */
    public final void reduce(byte[] in, byte[] out, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.BYTE, op);
        reduce(in, out, items(t, rootedSame(in, out, root, "reduce")), t, op, root);
    }

    /** In-place reduce: {@code inOut} is every rank's input and, at the root, the result. */
    public final void reduce(byte[] inOut, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.BYTE, op);
        int n = items(t, length(inOut, "reduce", "inOut"));
        reduce(isRoot(root) ? Communicator.IN_PLACE : inOut, isRoot(root) ? inOut : null, n, t, op, root);
    }

    /** Combines every rank's {@code in} with {@code op} into every rank's {@code out}. */
    public final void allreduce(byte[] in, byte[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        allreduce(in, out, items(t, same(in, out, "allreduce")), t, op);
    }

    /** In-place allreduce: {@code inOut} is the input and is overwritten with the result. */
    public final void allreduce(byte[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        allreduce(Communicator.IN_PLACE, inOut, items(t, length(inOut, "allreduce", "inOut")), t, op);
    }

    /** Inclusive prefix reduction: rank r's {@code out} gets the {@code in} of ranks 0..r combined. */
    public final void scan(byte[] in, byte[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        scan(in, out, items(t, same(in, out, "scan")), t, op);
    }

    /** In-place inclusive prefix reduction. */
    public final void scan(byte[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        scan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "scan", "inOut")), t, op);
    }

    /** Exclusive prefix reduction: rank r's {@code out} gets ranks 0..r-1 combined; rank 0's is not written. */
    public final void exscan(byte[] in, byte[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        exscan(in, out, items(t, same(in, out, "exscan")), t, op);
    }

    /** In-place exclusive prefix reduction (rank 0's {@code inOut} is left as it was). */
    public final void exscan(byte[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.BYTE, op);
        exscan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "exscan", "inOut")), t, op);
    }

    // ------------------------------------------------------------ int[]

    /** Blocking send of the whole array. */
    public final void send(int[] buf, int dest, int tag) {
        send(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements; returns the status (allocated: see the next form). */
    public final Status recv(int[] buf, int source, int tag) {
        return recv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements that fills {@code status} (may be null). */
    public final void recv(int[] buf, int source, int tag, Status status) {
        recv(buf, 0, buf == null ? 0 : buf.length, source, tag, status);
    }

    /** Nonblocking send of the whole array; it must not change until the request completes. */
    public final Request isend(int[] buf, int dest, int tag) {
        return isend(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Nonblocking receive of up to {@code buf.length} elements. */
    public final Request irecv(int[] buf, int source, int tag) {
        return irecv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Broadcasts the root's {@code buf} to every rank's; every rank passes an array of the same length. */
    public final void bcast(int[] buf, int root) {
        bcast(buf, length(buf, "bcast", "buf"), Datatype.INT, root);
    }

    /** Gathers every rank's {@code in} into the root's {@code out}, of {@code size() * in.length} (null elsewhere). */
    public final void gather(int[] in, int[] out, int root) {
        gather(in, out, gatherCount(in, out, root), Datatype.INT, root);
    }

    /** Scatters the root's {@code in}, of {@code size() * out.length} (null elsewhere), to every rank's {@code out}. */
    public final void scatter(int[] in, int[] out, int root) {
        scatter(in, out, scatterCount(in, out, root), Datatype.INT, root);
    }

    /** Every rank's {@code in} into every rank's {@code out}, rank r's at {@code r * in.length}. */
    public final void allgather(int[] in, int[] out) {
        allgather(in, out, allgatherCount(in, out), Datatype.INT);
    }

    /** In-place allgather: rank r's block of {@code inOut} ({@code inOut.length / size()} elements) is its input. */
    public final void allgather(int[] inOut) {
        allgather(Communicator.IN_PLACE, inOut, block(inOut, "allgather", "inOut"), Datatype.INT);
    }

    /** Block q of {@code in} to rank q, which keeps it as block r of {@code out} (both {@code size()} blocks). */
    public final void alltoall(int[] in, int[] out) {
        alltoall(in, out, alltoallCount(in, out), Datatype.INT);
    }

    /** In-place alltoall: block q of {@code inOut} goes to rank q and is replaced by rank q's block r. */
    public final void alltoall(int[] inOut) {
        alltoall(Communicator.IN_PLACE, inOut, block(inOut, "alltoall", "inOut"), Datatype.INT);
    }

    /** Combines every rank's {@code in} with {@code op} into the root's {@code out} (may be null elsewhere). */
    public final void reduce(int[] in, int[] out, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.INT, op);
        reduce(in, out, items(t, rootedSame(in, out, root, "reduce")), t, op, root);
    }

    /** In-place reduce: {@code inOut} is every rank's input and, at the root, the result. */
    public final void reduce(int[] inOut, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.INT, op);
        int n = items(t, length(inOut, "reduce", "inOut"));
        reduce(isRoot(root) ? Communicator.IN_PLACE : inOut, isRoot(root) ? inOut : null, n, t, op, root);
    }

    /** Combines every rank's {@code in} with {@code op} into every rank's {@code out}. */
    public final void allreduce(int[] in, int[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        allreduce(in, out, items(t, same(in, out, "allreduce")), t, op);
    }

    /** In-place allreduce: {@code inOut} is the input and is overwritten with the result. */
    public final void allreduce(int[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        allreduce(Communicator.IN_PLACE, inOut, items(t, length(inOut, "allreduce", "inOut")), t, op);
    }

    /** Inclusive prefix reduction: rank r's {@code out} gets the {@code in} of ranks 0..r combined. */
    public final void scan(int[] in, int[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        scan(in, out, items(t, same(in, out, "scan")), t, op);
    }

    /** In-place inclusive prefix reduction. */
    public final void scan(int[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        scan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "scan", "inOut")), t, op);
    }

    /** Exclusive prefix reduction: rank r's {@code out} gets ranks 0..r-1 combined; rank 0's is not written. */
    public final void exscan(int[] in, int[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        exscan(in, out, items(t, same(in, out, "exscan")), t, op);
    }

    /** In-place exclusive prefix reduction (rank 0's {@code inOut} is left as it was). */
    public final void exscan(int[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.INT, op);
        exscan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "exscan", "inOut")), t, op);
    }

    // ------------------------------------------------------------ long[]

    /** Blocking send of the whole array. */
    public final void send(long[] buf, int dest, int tag) {
        send(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements; returns the status (allocated: see the next form). */
    public final Status recv(long[] buf, int source, int tag) {
        return recv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements that fills {@code status} (may be null). */
    public final void recv(long[] buf, int source, int tag, Status status) {
        recv(buf, 0, buf == null ? 0 : buf.length, source, tag, status);
    }

    /** Nonblocking send of the whole array; it must not change until the request completes. */
    public final Request isend(long[] buf, int dest, int tag) {
        return isend(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Nonblocking receive of up to {@code buf.length} elements. */
    public final Request irecv(long[] buf, int source, int tag) {
        return irecv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Broadcasts the root's {@code buf} to every rank's; every rank passes an array of the same length. */
    public final void bcast(long[] buf, int root) {
        bcast(buf, length(buf, "bcast", "buf"), Datatype.LONG, root);
    }

    /** Gathers every rank's {@code in} into the root's {@code out}, of {@code size() * in.length} (null elsewhere). */
    public final void gather(long[] in, long[] out, int root) {
        gather(in, out, gatherCount(in, out, root), Datatype.LONG, root);
    }

    /** Scatters the root's {@code in}, of {@code size() * out.length} (null elsewhere), to every rank's {@code out}. */
    public final void scatter(long[] in, long[] out, int root) {
        scatter(in, out, scatterCount(in, out, root), Datatype.LONG, root);
    }

    /** Every rank's {@code in} into every rank's {@code out}, rank r's at {@code r * in.length}. */
    public final void allgather(long[] in, long[] out) {
        allgather(in, out, allgatherCount(in, out), Datatype.LONG);
    }

    /** In-place allgather: rank r's block of {@code inOut} ({@code inOut.length / size()} elements) is its input. */
    public final void allgather(long[] inOut) {
        allgather(Communicator.IN_PLACE, inOut, block(inOut, "allgather", "inOut"), Datatype.LONG);
    }

    /** Block q of {@code in} to rank q, which keeps it as block r of {@code out} (both {@code size()} blocks). */
    public final void alltoall(long[] in, long[] out) {
        alltoall(in, out, alltoallCount(in, out), Datatype.LONG);
    }

    /** In-place alltoall: block q of {@code inOut} goes to rank q and is replaced by rank q's block r. */
    public final void alltoall(long[] inOut) {
        alltoall(Communicator.IN_PLACE, inOut, block(inOut, "alltoall", "inOut"), Datatype.LONG);
    }

    /** Combines every rank's {@code in} with {@code op} into the root's {@code out} (may be null elsewhere). */
    public final void reduce(long[] in, long[] out, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.LONG, op);
        reduce(in, out, items(t, rootedSame(in, out, root, "reduce")), t, op, root);
    }

    /** In-place reduce: {@code inOut} is every rank's input and, at the root, the result. */
    public final void reduce(long[] inOut, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.LONG, op);
        int n = items(t, length(inOut, "reduce", "inOut"));
        reduce(isRoot(root) ? Communicator.IN_PLACE : inOut, isRoot(root) ? inOut : null, n, t, op, root);
    }

    /** Combines every rank's {@code in} with {@code op} into every rank's {@code out}. */
    public final void allreduce(long[] in, long[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        allreduce(in, out, items(t, same(in, out, "allreduce")), t, op);
    }

    /** In-place allreduce: {@code inOut} is the input and is overwritten with the result. */
    public final void allreduce(long[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        allreduce(Communicator.IN_PLACE, inOut, items(t, length(inOut, "allreduce", "inOut")), t, op);
    }

    /** Inclusive prefix reduction: rank r's {@code out} gets the {@code in} of ranks 0..r combined. */
    public final void scan(long[] in, long[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        scan(in, out, items(t, same(in, out, "scan")), t, op);
    }

    /** In-place inclusive prefix reduction. */
    public final void scan(long[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        scan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "scan", "inOut")), t, op);
    }

    /** Exclusive prefix reduction: rank r's {@code out} gets ranks 0..r-1 combined; rank 0's is not written. */
    public final void exscan(long[] in, long[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        exscan(in, out, items(t, same(in, out, "exscan")), t, op);
    }

    /** In-place exclusive prefix reduction (rank 0's {@code inOut} is left as it was). */
    public final void exscan(long[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.LONG, op);
        exscan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "exscan", "inOut")), t, op);
    }

    // ------------------------------------------------------------ float[]

    /** Blocking send of the whole array. */
    public final void send(float[] buf, int dest, int tag) {
        send(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements; returns the status (allocated: see the next form). */
    public final Status recv(float[] buf, int source, int tag) {
        return recv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements that fills {@code status} (may be null). */
    public final void recv(float[] buf, int source, int tag, Status status) {
        recv(buf, 0, buf == null ? 0 : buf.length, source, tag, status);
    }

    /** Nonblocking send of the whole array; it must not change until the request completes. */
    public final Request isend(float[] buf, int dest, int tag) {
        return isend(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Nonblocking receive of up to {@code buf.length} elements. */
    public final Request irecv(float[] buf, int source, int tag) {
        return irecv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Broadcasts the root's {@code buf} to every rank's; every rank passes an array of the same length. */
    public final void bcast(float[] buf, int root) {
        bcast(buf, length(buf, "bcast", "buf"), Datatype.FLOAT, root);
    }

    /** Gathers every rank's {@code in} into the root's {@code out}, of {@code size() * in.length} (null elsewhere). */
    public final void gather(float[] in, float[] out, int root) {
        gather(in, out, gatherCount(in, out, root), Datatype.FLOAT, root);
    }

    /** Scatters the root's {@code in}, of {@code size() * out.length} (null elsewhere), to every rank's {@code out}. */
    public final void scatter(float[] in, float[] out, int root) {
        scatter(in, out, scatterCount(in, out, root), Datatype.FLOAT, root);
    }

    /** Every rank's {@code in} into every rank's {@code out}, rank r's at {@code r * in.length}. */
    public final void allgather(float[] in, float[] out) {
        allgather(in, out, allgatherCount(in, out), Datatype.FLOAT);
    }

    /** In-place allgather: rank r's block of {@code inOut} ({@code inOut.length / size()} elements) is its input. */
    public final void allgather(float[] inOut) {
        allgather(Communicator.IN_PLACE, inOut, block(inOut, "allgather", "inOut"), Datatype.FLOAT);
    }

    /** Block q of {@code in} to rank q, which keeps it as block r of {@code out} (both {@code size()} blocks). */
    public final void alltoall(float[] in, float[] out) {
        alltoall(in, out, alltoallCount(in, out), Datatype.FLOAT);
    }

    /** In-place alltoall: block q of {@code inOut} goes to rank q and is replaced by rank q's block r. */
    public final void alltoall(float[] inOut) {
        alltoall(Communicator.IN_PLACE, inOut, block(inOut, "alltoall", "inOut"), Datatype.FLOAT);
    }

    /** Combines every rank's {@code in} with {@code op} into the root's {@code out} (may be null elsewhere). */
    public final void reduce(float[] in, float[] out, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        reduce(in, out, items(t, rootedSame(in, out, root, "reduce")), t, op, root);
    }

    /** In-place reduce: {@code inOut} is every rank's input and, at the root, the result. */
    public final void reduce(float[] inOut, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        int n = items(t, length(inOut, "reduce", "inOut"));
        reduce(isRoot(root) ? Communicator.IN_PLACE : inOut, isRoot(root) ? inOut : null, n, t, op, root);
    }

    /** Combines every rank's {@code in} with {@code op} into every rank's {@code out}. */
    public final void allreduce(float[] in, float[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        allreduce(in, out, items(t, same(in, out, "allreduce")), t, op);
    }

    /** In-place allreduce: {@code inOut} is the input and is overwritten with the result. */
    public final void allreduce(float[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        allreduce(Communicator.IN_PLACE, inOut, items(t, length(inOut, "allreduce", "inOut")), t, op);
    }

    /** Inclusive prefix reduction: rank r's {@code out} gets the {@code in} of ranks 0..r combined. */
    public final void scan(float[] in, float[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        scan(in, out, items(t, same(in, out, "scan")), t, op);
    }

    /** In-place inclusive prefix reduction. */
    public final void scan(float[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        scan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "scan", "inOut")), t, op);
    }

    /** Exclusive prefix reduction: rank r's {@code out} gets ranks 0..r-1 combined; rank 0's is not written. */
    public final void exscan(float[] in, float[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        exscan(in, out, items(t, same(in, out, "exscan")), t, op);
    }

    /** In-place exclusive prefix reduction (rank 0's {@code inOut} is left as it was). */
    public final void exscan(float[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.FLOAT, op);
        exscan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "exscan", "inOut")), t, op);
    }

    // ------------------------------------------------------------ double[]

    /** Blocking send of the whole array. */
    public final void send(double[] buf, int dest, int tag) {
        send(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements; returns the status (allocated: see the next form). */
    public final Status recv(double[] buf, int source, int tag) {
        return recv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Blocking receive of up to {@code buf.length} elements that fills {@code status} (may be null). */
    public final void recv(double[] buf, int source, int tag, Status status) {
        recv(buf, 0, buf == null ? 0 : buf.length, source, tag, status);
    }

    /** Nonblocking send of the whole array; it must not change until the request completes. */
    public final Request isend(double[] buf, int dest, int tag) {
        return isend(buf, 0, buf == null ? 0 : buf.length, dest, tag);
    }

    /** Nonblocking receive of up to {@code buf.length} elements. */
    public final Request irecv(double[] buf, int source, int tag) {
        return irecv(buf, 0, buf == null ? 0 : buf.length, source, tag);
    }

    /** Broadcasts the root's {@code buf} to every rank's; every rank passes an array of the same length. */
    public final void bcast(double[] buf, int root) {
        bcast(buf, length(buf, "bcast", "buf"), Datatype.DOUBLE, root);
    }

    /** Gathers every rank's {@code in} into the root's {@code out}, of {@code size() * in.length} (null elsewhere). */
    public final void gather(double[] in, double[] out, int root) {
        gather(in, out, gatherCount(in, out, root), Datatype.DOUBLE, root);
    }

    /** Scatters the root's {@code in}, of {@code size() * out.length} (null elsewhere), to every rank's {@code out}. */
    public final void scatter(double[] in, double[] out, int root) {
        scatter(in, out, scatterCount(in, out, root), Datatype.DOUBLE, root);
    }

    /** Every rank's {@code in} into every rank's {@code out}, rank r's at {@code r * in.length}. */
    public final void allgather(double[] in, double[] out) {
        allgather(in, out, allgatherCount(in, out), Datatype.DOUBLE);
    }

    /** In-place allgather: rank r's block of {@code inOut} ({@code inOut.length / size()} elements) is its input. */
    public final void allgather(double[] inOut) {
        allgather(Communicator.IN_PLACE, inOut, block(inOut, "allgather", "inOut"), Datatype.DOUBLE);
    }

    /** Block q of {@code in} to rank q, which keeps it as block r of {@code out} (both {@code size()} blocks). */
    public final void alltoall(double[] in, double[] out) {
        alltoall(in, out, alltoallCount(in, out), Datatype.DOUBLE);
    }

    /** In-place alltoall: block q of {@code inOut} goes to rank q and is replaced by rank q's block r. */
    public final void alltoall(double[] inOut) {
        alltoall(Communicator.IN_PLACE, inOut, block(inOut, "alltoall", "inOut"), Datatype.DOUBLE);
    }

    /** Combines every rank's {@code in} with {@code op} into the root's {@code out} (may be null elsewhere). */
    public final void reduce(double[] in, double[] out, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        reduce(in, out, items(t, rootedSame(in, out, root, "reduce")), t, op, root);
    }

    /** In-place reduce: {@code inOut} is every rank's input and, at the root, the result. */
    public final void reduce(double[] inOut, ReduceOp op, int root) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        int n = items(t, length(inOut, "reduce", "inOut"));
        reduce(isRoot(root) ? Communicator.IN_PLACE : inOut, isRoot(root) ? inOut : null, n, t, op, root);
    }

    /** Combines every rank's {@code in} with {@code op} into every rank's {@code out}. */
    public final void allreduce(double[] in, double[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        allreduce(in, out, items(t, same(in, out, "allreduce")), t, op);
    }

    /** In-place allreduce: {@code inOut} is the input and is overwritten with the result. */
    public final void allreduce(double[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        allreduce(Communicator.IN_PLACE, inOut, items(t, length(inOut, "allreduce", "inOut")), t, op);
    }

    /** Inclusive prefix reduction: rank r's {@code out} gets the {@code in} of ranks 0..r combined. */
    public final void scan(double[] in, double[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        scan(in, out, items(t, same(in, out, "scan")), t, op);
    }

    /** In-place inclusive prefix reduction. */
    public final void scan(double[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        scan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "scan", "inOut")), t, op);
    }

    /** Exclusive prefix reduction: rank r's {@code out} gets ranks 0..r-1 combined; rank 0's is not written. */
    public final void exscan(double[] in, double[] out, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        exscan(in, out, items(t, same(in, out, "exscan")), t, op);
    }

    /** In-place exclusive prefix reduction (rank 0's {@code inOut} is left as it was). */
    public final void exscan(double[] inOut, ReduceOp op) {
        Datatype t = typeFor(Datatype.DOUBLE, op);
        exscan(Communicator.IN_PLACE, inOut, items(t, length(inOut, "exscan", "inOut")), t, op);
    }

    // ------------------------------------------------------------ the forms they call
    //
    // Communicator's public count-and-datatype forms implement these.

    abstract void bcast(Object buf, int count, Datatype type, int root);

    abstract void gather(Object send, Object recv, int count, Datatype type, int root);

    abstract void scatter(Object send, Object recv, int count, Datatype type, int root);

    abstract void allgather(Object send, Object recv, int count, Datatype type);

    abstract void alltoall(Object send, Object recv, int count, Datatype type);

    abstract void reduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root);

    abstract void allreduce(Object send, Object recv, int count, Datatype type, ReduceOp op);

    abstract void scan(Object send, Object recv, int count, Datatype type, ReduceOp op);

    abstract void exscan(Object send, Object recv, int count, Datatype type, ReduceOp op);

    /** Whether {@code root} names this rank as a rooted collective's root (an intercommunicator's root passes ROOT). */
    boolean isRoot(int root) {
        return rank() == root;
    }

    // ------------------------------------------------------------ counts from lengths

    /** The length of a collective's array argument {@code name}, which must not be null. */
    private static int length(Object buf, String call, String name) {
        if (buf == null) {
            throw new TuttiException.InvalidArgument(call + ": " + name + " is null");
        }
        return Array.getLength(buf);
    }

    /** The common length of {@code in} and {@code out}. */
    private static int same(Object in, Object out, String call) {
        int n = length(in, call, "in");
        int m = length(out, call, "out");
        if (m != n) {
            throw new TuttiException.InvalidArgument(call + ": out has " + m + " elements and in " + n + "; the"
                    + " typed form takes whole arrays of one length (the form with a count and a Datatype takes"
                    + " a part of one)");
        }
        return n;
    }

    /** The length of {@code in}, which the root's {@code out} must have too. */
    private int rootedSame(Object in, Object out, int root, String call) {
        return isRoot(root) ? same(in, out, call) : length(in, call, "in");
    }

    private int gatherCount(Object in, Object out, int root) {
        int n = length(in, "gather", "in");
        if (isRoot(root)) {
            blocks(length(out, "gather", "out (at the root)"), n, "gather", "out", "in");
        }
        return n;
    }

    private int scatterCount(Object in, Object out, int root) {
        int n = length(out, "scatter", "out");
        if (isRoot(root)) {
            blocks(length(in, "scatter", "in (at the root)"), n, "scatter", "in", "out");
        }
        return n;
    }

    private int allgatherCount(Object in, Object out) {
        int n = length(in, "allgather", "in");
        blocks(length(out, "allgather", "out"), n, "allgather", "out", "in");
        return n;
    }

    private int alltoallCount(Object in, Object out) {
        same(in, out, "alltoall");
        return block(in, "alltoall", "in and out");
    }

    /** Checks that {@code whole}'s length {@code m} is size() blocks of {@code part}'s length {@code n}. */
    private void blocks(int m, int n, String call, String whole, String part) {
        if (m != (long) peerCount() * n) {
            throw new TuttiException.InvalidArgument(call + ": " + whole + " has " + m + " elements; it needs one block"
                    + " of " + part + ".length = " + n + " per rank, " + blocksName() + " * " + n + " = "
                    + (long) peerCount() * n);
        }
    }

    /** What counts a collective's blocks: size(), or an intercommunicator's remoteSize(). */
    private String blocksName() {
        return this instanceof Intercommunicator ? "remoteSize()" : "size()";
    }

    /** The length of one block of {@code buf}, which holds one per rank. */
    private int block(Object buf, String call, String name) {
        int m = length(buf, call, name);
        if (m % peerCount() != 0) {
            throw new TuttiException.InvalidArgument(call + ": " + name + " has " + m + " elements, which is not one"
                    + " block per rank: the length must be a multiple of " + blocksName() + " = " + peerCount());
        }
        return m / peerCount();
    }

    // ------------------------------------------------------------ MAXLOC and MINLOC

    /** The datatype of a typed reduction: the array's own, or its pair type for MAXLOC and MINLOC. */
    private static Datatype typeFor(Datatype plain, ReduceOp op) {
        if (op != ReduceOp.MAXLOC && op != ReduceOp.MINLOC) {
            return plain;
        }
        return switch (plain) {
            case INT -> Datatype.INT2;
            case LONG -> Datatype.LONG2;
            case FLOAT -> Datatype.FLOAT2;
            case DOUBLE -> Datatype.DOUBLE2;
            default -> throw new TuttiException.InvalidArgument(op + " on a byte[]: bytes have no (value, index) pair"
                    + " type; put the pairs in an int[] (INT2), or in a short[] with Datatype.SHORT2");
        };
    }

    /** What a typed reduction counts: elements, or (value, index) pairs of a pair type. */
    private static int items(Datatype type, int length) {
        if (!type.isPair()) {
            return length;
        }
        if (length % 2 != 0) {
            throw new TuttiException.InvalidArgument("MAXLOC and MINLOC take (value, index) pairs, two elements each"
                    + " (" + type + "): the arrays' length must be even, not " + length);
        }
        return length / 2;
    }
}

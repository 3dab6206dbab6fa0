package io.tutti.bench;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.ReduceOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * One collective operation of {@link CollectiveBenchmark} at one size, with its buffers allocated
 * once: {@link #run()} performs it once (a persistent request started and waited for, or the
 * blocking call), {@link #start()} starts the nonblocking variant for the OSU overlap method.
 *
 * <p>Sizes follow the OSU convention, bytes per rank: the message for bcast; the vector for reduce
 * and allreduce; each rank's block for scatter, gather and allgather (the root's or the receive
 * buffer holds P of them); the block each pair exchanges for alltoall; each rank's result block
 * for reducescatter (the send buffer holds P blocks); the message each rank sends in shift.
 * Reductions combine {@code size / 8} doubles with SUM, as OSU does.
 */
abstract class CollectiveOp implements AutoCloseable {
    /** Every operation {@code tutti bench} knows, in the order of the help text. */
    static final List<String> NAMES = List.of("barrier", "bcast", "reduce", "allreduce", "scatter", "gather",
            "allgather", "alltoall", "reducescatter", "shift");

    /** The operations that run offloaded to the software NIC ({@code --offload}). */
    static final java.util.List<String> OFFLOADED = java.util.List.of("barrier", "bcast", "reduce", "allreduce",
            "allgather");

    /** The operations that have nonblocking ({@code i}-prefixed) variants; shift is point-to-point. */
    static final List<String> NONBLOCKING = List.of("barrier", "bcast", "reduce", "allreduce", "scatter", "gather",
            "allgather", "alltoall", "reducescatter");

    static final int ROOT = 0;
    static final int SHIFT_TAG = 7;

    /**
     * The operation name {@link Communicator#setAlgorithm} takes for a benchmark name, or null when
     * no algorithm can be chosen (shift is not a collective).
     */
    static String algorithmOperation(String op) {
        return switch (op) {
            case "reducescatter" -> "reducescatter";
            case "shift" -> null;
            default -> op;
        };
    }

    /** Whether the operation reduces doubles (count = size / 8) rather than moving bytes. */
    static boolean reduces(String op) {
        return op.equals("reduce") || op.equals("allreduce") || op.equals("reducescatter");
    }

    /** The element count for {@code size} bytes per rank: bytes, or doubles for reductions. */
    static int count(String op, long size) {
        return (int) (reduces(op) ? size / Double.BYTES : size);
    }

    /** The bytes per rank a size really measures: reductions round down to whole doubles (at least one). */
    static long effectiveSize(String op, long size) {
        if (op.equals("barrier")) {
            return 0;
        }
        return reduces(op) ? Math.max(1, size / Double.BYTES) * Double.BYTES : size;
    }

    final String name;
    final long size;
    final Communicator comm;
    final boolean blocking;
    private Request persistent;
    /** Where persistent requests run ({@code --offload}: the software NIC). */
    private io.tutti.Offload where = io.tutti.Offload.HOST;

    private CollectiveOp(String name, long size, Communicator comm, boolean blocking) {
        this.name = name;
        this.size = size;
        this.comm = comm;
        this.blocking = blocking;
    }

    /** Performs the operation once; allocation-free unless built with blocking calls. */
    void run() {
        if (blocking) {
            blockingCall();
        } else {
            if (persistent == null) {
                persistent = init();
            }
            persistent.start();
            persistent.waitFor(null);
        }
    }

    /** Starts the nonblocking variant ({@code iallreduce} ...); the caller tests and waits. */
    abstract Request start();

    /**
     * Starts one run for the overlap method: the nonblocking variant, or with {@code --offload} the
     * offloaded persistent request (which the progress agent runs while the caller computes).
     */
    Request begin() {
        if (where == io.tutti.Offload.HOST) {
            return start();
        }
        if (persistent == null) {
            persistent = init();
        }
        persistent.start();
        return persistent;
    }

    abstract void blockingCall();

    abstract Request init();

    @Override
    public void close() {
        if (persistent != null) {
            persistent.free();
            persistent = null;
        }
    }

    /**
     * Builds {@code op} for {@code size} bytes per rank over {@code comm}, with buffers from
     * {@code arena} (off-heap) or Java arrays, filled with ones so reductions stay finite.
     */
    static CollectiveOp create(String op, long size, Communicator comm, Arena arena, boolean segment,
                               boolean blocking, io.tutti.Offload where) {
        CollectiveOp c = build(op, size, comm, arena, segment, blocking, where);
        c.where = where;
        return c;
    }

    private static CollectiveOp build(String op, long size, Communicator comm, Arena arena, boolean segment,
                                      boolean blocking, io.tutti.Offload where) {
        int p = comm.size();
        int n = count(op, effectiveSize(op, size));
        return switch (op) {
            case "barrier" -> new CollectiveOp(op, 0, comm, blocking) {
                @Override Request start() { return comm.ibarrier(); }
                @Override void blockingCall() { comm.barrier(); }
                @Override Request init() { return comm.barrierInit(where); }
            };
            case "bcast" -> {
                Object b = bytes(size, segment, arena);
                yield new CollectiveOp(op, size, comm, blocking) {
                    @Override Request start() { return comm.ibcast(b, n, Datatype.BYTE, ROOT); }
                    @Override void blockingCall() { comm.bcast(b, n, Datatype.BYTE, ROOT); }
                    @Override Request init() { return comm.bcastInit(b, n, Datatype.BYTE, ROOT, where); }
                };
            }
            case "reduce" -> {
                Object s = doubles(n, segment, arena);
                Object r = doubles(n, segment, arena);
                yield new CollectiveOp(op, n * 8L, comm, blocking) {
                    @Override Request start() { return comm.ireduce(s, r, n, Datatype.DOUBLE, ReduceOp.SUM, ROOT); }
                    @Override void blockingCall() { comm.reduce(s, r, n, Datatype.DOUBLE, ReduceOp.SUM, ROOT); }
                    @Override Request init() {
                        return comm.reduceInit(s, r, n, Datatype.DOUBLE, ReduceOp.SUM, ROOT, where);
                    }
                };
            }
            case "allreduce" -> {
                Object s = doubles(n, segment, arena);
                Object r = doubles(n, segment, arena);
                yield new CollectiveOp(op, n * 8L, comm, blocking) {
                    @Override Request start() { return comm.iallreduce(s, r, n, Datatype.DOUBLE, ReduceOp.SUM); }
                    @Override void blockingCall() { comm.allreduce(s, r, n, Datatype.DOUBLE, ReduceOp.SUM); }
                    @Override Request init() {
                        return comm.allreduceInit(s, r, n, Datatype.DOUBLE, ReduceOp.SUM, where);
                    }
                };
            }
            case "scatter" -> {
                Object s = bytes(size * p, segment, arena);
                Object r = bytes(size, segment, arena);
                yield new CollectiveOp(op, size, comm, blocking) {
                    @Override Request start() { return comm.iscatter(s, r, n, Datatype.BYTE, ROOT); }
                    @Override void blockingCall() { comm.scatter(s, r, n, Datatype.BYTE, ROOT); }
                    @Override Request init() { return comm.scatterInit(s, r, n, Datatype.BYTE, ROOT); }
                };
            }
            case "gather" -> {
                Object s = bytes(size, segment, arena);
                Object r = bytes(size * p, segment, arena);
                yield new CollectiveOp(op, size, comm, blocking) {
                    @Override Request start() { return comm.igather(s, r, n, Datatype.BYTE, ROOT); }
                    @Override void blockingCall() { comm.gather(s, r, n, Datatype.BYTE, ROOT); }
                    @Override Request init() { return comm.gatherInit(s, r, n, Datatype.BYTE, ROOT); }
                };
            }
            case "allgather" -> {
                Object s = bytes(size, segment, arena);
                Object r = bytes(size * p, segment, arena);
                yield new CollectiveOp(op, size, comm, blocking) {
                    @Override Request start() { return comm.iallgather(s, r, n, Datatype.BYTE); }
                    @Override void blockingCall() { comm.allgather(s, r, n, Datatype.BYTE); }
                    @Override Request init() { return comm.allgatherInit(s, r, n, Datatype.BYTE, where); }
                };
            }
            case "alltoall" -> {
                Object s = bytes(size * p, segment, arena);
                Object r = bytes(size * p, segment, arena);
                yield new CollectiveOp(op, size, comm, blocking) {
                    @Override Request start() { return comm.ialltoall(s, r, n, Datatype.BYTE); }
                    @Override void blockingCall() { comm.alltoall(s, r, n, Datatype.BYTE); }
                    @Override Request init() { return comm.alltoallInit(s, r, n, Datatype.BYTE); }
                };
            }
            case "reducescatter" -> {
                Object s = doubles((long) n * p, segment, arena);
                Object r = doubles(n, segment, arena);
                yield new CollectiveOp(op, n * 8L, comm, blocking) {
                    @Override Request start() {
                        return comm.ireduceScatterBlock(s, r, n, Datatype.DOUBLE, ReduceOp.SUM);
                    }
                    @Override void blockingCall() { comm.reduceScatterBlock(s, r, n, Datatype.DOUBLE, ReduceOp.SUM); }
                    @Override Request init() {
                        return comm.reduceScatterBlockInit(s, r, n, Datatype.DOUBLE, ReduceOp.SUM);
                    }
                };
            }
            case "shift" -> new Shift(size, comm, blocking, bytes(size, segment, arena), bytes(size, segment, arena));
            default -> throw new IllegalArgumentException("unknown collective '" + op + "': use one of "
                    + String.join(", ", NAMES));
        };
    }

    /**
     * Every rank sends to rank + 1 and receives from rank − 1 ([BCL-3]'s "right shift"): a pair of
     * persistent requests started together, or {@code sendrecv} with {@code --blocking}.
     */
    private static final class Shift extends CollectiveOp {
        private final Object send;
        private final Object recv;
        private final int right;
        private final int left;
        private Request sendReq;
        private Request recvReq;

        Shift(long size, Communicator comm, boolean blocking, Object send, Object recv) {
            super("shift", size, comm, blocking);
            this.send = send;
            this.recv = recv;
            this.right = (comm.rank() + 1) % comm.size();
            this.left = (comm.rank() - 1 + comm.size()) % comm.size();
        }

        @Override
        void run() {
            if (blocking) {
                blockingCall();
                return;
            }
            if (sendReq == null) {
                sendReq = sendInit();
                recvReq = recvInit();
            }
            recvReq.start();
            sendReq.start();
            sendReq.waitFor(null);
            recvReq.waitFor(null);
        }

        private Request sendInit() {
            return send instanceof MemorySegment m ? comm.sendInit(m, right, SHIFT_TAG)
                    : comm.sendInit((byte[]) send, 0, ((byte[]) send).length, right, SHIFT_TAG);
        }

        private Request recvInit() {
            return recv instanceof MemorySegment m ? comm.recvInit(m, left, SHIFT_TAG)
                    : comm.recvInit((byte[]) recv, 0, ((byte[]) recv).length, left, SHIFT_TAG);
        }

        @Override
        void blockingCall() {
            int n = (int) size;
            comm.sendrecv(send, 0, n, right, SHIFT_TAG, recv, 0, n, left, SHIFT_TAG);
        }

        @Override
        Request start() {
            throw new UnsupportedOperationException("shift has no nonblocking collective variant");
        }

        @Override
        Request init() {
            throw new UnsupportedOperationException("shift runs a pair of persistent requests");
        }

        @Override
        public void close() {
            sendReq = null;
            recvReq = null;
        }
    }

    private static Object bytes(long size, boolean segment, Arena arena) {
        checkSize(size);
        if (segment) {
            MemorySegment m = arena.allocate(Math.max(1, size), 64).asSlice(0, size);
            m.fill((byte) 1);
            return m;
        }
        byte[] a = new byte[(int) size];
        java.util.Arrays.fill(a, (byte) 1);
        return a;
    }

    private static Object doubles(long count, boolean segment, Arena arena) {
        checkSize(count * Double.BYTES);
        if (segment) {
            MemorySegment m = arena.allocate(Math.max(8, count * Double.BYTES), 64).asSlice(0, count * Double.BYTES);
            for (long i = 0; i < count; i++) {
                m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i, 1.0);
            }
            return m;
        }
        double[] a = new double[(int) count];
        java.util.Arrays.fill(a, 1.0);
        return a;
    }

    private static void checkSize(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "a buffer of %d bytes is too large: choose smaller --sizes", bytes));
        }
    }
}

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.MPI;
import mpi.MPIException;

/**
 * The cost of the {@code mpi} layer (tutti-mpi) over {@code io.tutti}: one loop per benchmark, run
 * through either API, each call written as a user of that API would write it (the {@code mpi} side
 * through Open MPI's Java bindings' calls, the other through Tutti's own). Rank 0 prints
 * {@code RESULT BENCHMARK API SIZE FIGURE UNIT}. bench/compare-mpi-api.sh runs it by turns.
 *
 * <p>Usage: {@code ApiOverhead mpi|tutti|both latency|bw|allreduce SIZE [SECONDS]}: latency is the
 * median of ping-pong round trips / 2 (us), bw windows of 64 nonblocking sends on direct buffers
 * (MB/s), allreduce the median over ranks of the mean time per call (us) of SIZE/8 doubles summed.
 * Each runs its loop untimed for SECONDS (default 3) first, so both APIs meet a JIT that is done.
 * {@code both} runs the two APIs in one job, in {@value #PAIRS} pairs of blocks of a tenth of the
 * calls each (the pair's order alternating), and prints each API's median over its blocks and the
 * median of the pairs' ratios: the two then share the processes' cores and the machine's phase,
 * which differ from job to job by more than the layer costs (docs/perf/mpi-api.md).
 */
public final class ApiOverhead {
    private static final int WINDOW = 64;
    /** Pairs of blocks of a paired run ({@code both}). */
    private static final int PAIRS = 10;

    /** The calls the loops make, through one API or the other. */
    private interface Api {
        int rank();

        int size();

        void send(byte[] b, int count, int dest, int tag) throws Exception;

        void recv(byte[] b, int count, int source, int tag) throws Exception;

        /** A window of sends of {@code count} bytes each from {@code b}, or of receives into it, waited for. */
        void window(ByteBuffer b, int count, boolean send, int peer) throws Exception;

        void allreduce(double[] in, double[] out, int count) throws Exception;

        void barrier() throws Exception;

        void close() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ApiOverhead mpi|tutti|both latency|bw|allreduce SIZE [SECONDS]");
            System.exit(2);
        }
        String mode = args[1];
        int size = Integer.parseInt(args[2]);
        long warmNanos = (long) (Double.parseDouble(args.length > 3 ? args[3] : "3") * 1e9);
        if (args[0].equals("both")) {
            paired(args, mode, size, warmNanos);
            return;
        }
        Api api = args[0].equals("mpi") ? mpi(args) : tutti(args);
        Bench b = bench(mode, size);
        long until = System.nanoTime() + warmNanos;
        while (agreeGoOn(api, until)) {
            b.loop().run(api, b.warmCalls());
        }
        double figure = b.loop().run(api, b.calls());
        if (api.rank() == 0) {
            System.out.printf(java.util.Locale.ROOT, "RESULT %s %s %d %.3f %s%n", mode, args[0], size, figure, b.unit());
        }
        api.close();
    }

    /** One benchmark's timed loop of {@code calls} calls through {@code api}: its figure (rank 0's). */
    private interface Loop {
        double run(Api api, int calls) throws Exception;
    }

    /** A benchmark: its loop, the calls a run times and a warm-up round makes, and its figure's unit. */
    private record Bench(Loop loop, int calls, int warmCalls, String unit) {
    }

    /** Benchmark {@code mode} at {@code size} bytes, with its own buffers. */
    private static Bench bench(String mode, int size) {
        boolean big = size >= 65536;
        return switch (mode) {
            case "latency" -> {
                byte[] b = new byte[Math.max(1, size)];
                yield new Bench((api, n) -> latency(api, b, size, n), big ? 2000 : 100_000, 1000, "us");
            }
            case "bw" -> {
                ByteBuffer b = ByteBuffer.allocateDirect(Math.max(1, size));
                yield new Bench((api, n) -> bandwidth(api, b, size, n), big ? 100 : 2000, 10, "MB/s");
            }
            case "allreduce" -> {
                int count = Math.max(1, size / 8);
                double[] in = new double[count];
                double[] out = new double[count];
                yield new Bench((api, n) -> allreduce(api, in, out, count, n), big ? 500 : 50_000, 1000, "us");
            }
            default -> throw new IllegalArgumentException("unknown benchmark " + mode + ": latency, bw or allreduce");
        };
    }

    /**
     * Both APIs in one job: warm-up by turns, then {@link #PAIRS} pairs of blocks, each block a tenth
     * of the unpaired run's calls; prints the medians and the median of the pairs' ratios (mpi / tutti).
     */
    private static void paired(String[] args, String mode, int size, long warmNanos) throws Exception {
        Api m = mpi(args);
        Api t = tutti(runtimeUnderMpi());
        Bench b = bench(mode, size);
        long until = System.nanoTime() + warmNanos;
        while (agreeGoOn(m, until)) {
            b.loop().run(m, b.warmCalls());
            b.loop().run(t, b.warmCalls());
        }
        double[] ofMpi = new double[PAIRS];
        double[] ofTutti = new double[PAIRS];
        double[] ratio = new double[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            boolean mpiFirst = i % 2 == 0;
            double first = b.loop().run(mpiFirst ? m : t, b.calls() / PAIRS);
            double second = b.loop().run(mpiFirst ? t : m, b.calls() / PAIRS);
            ofMpi[i] = mpiFirst ? first : second;
            ofTutti[i] = mpiFirst ? second : first;
            ratio[i] = ofMpi[i] / ofTutti[i];
        }
        if (m.rank() == 0) {
            System.out.printf(java.util.Locale.ROOT, "RESULT %s mpi %d %.3f %s%n", mode, size, median(ofMpi), b.unit());
            System.out.printf(java.util.Locale.ROOT, "RESULT %s tutti %d %.3f %s%n", mode, size, median(ofTutti),
                    b.unit());
            System.out.printf(java.util.Locale.ROOT, "RESULT %s ratio %d %.4f mpi/tutti%n", mode, size, median(ratio));
        }
        m.close();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /**
     * The Tutti runtime that {@code MPI.Init} started: the layer keeps it package-private (the
     * bindings' API has no such call), so a benchmark that compares the two in one job reaches it
     * by reflection.
     */
    private static Tutti runtimeUnderMpi() throws ReflectiveOperationException {
        java.lang.reflect.Method m = MPI.class.getDeclaredMethod("runtime");
        m.setAccessible(true);
        return (Tutti) m.invoke(null);
    }

    /** Whether every rank goes on warming up: rank 0's clock decides, so all stop at one round. */
    private static boolean agreeGoOn(Api api, long until) throws Exception {
        double[] flag = {api.rank() == 0 && System.nanoTime() < until ? 1 : 0};
        double[] all = new double[1];
        api.allreduce(flag, all, 1);
        return all[0] > 0;
    }

    /** Ranks 0 and 1 ping-pong; the median round trip / 2 in us (rank 0's). */
    private static double latency(Api api, byte[] b, int size, int iters) throws Exception {
        long[] rtt = new long[iters];
        int me = api.rank();
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            if (me == 0) {
                api.send(b, size, 1, 1);
                api.recv(b, size, 1, 1);
            } else if (me == 1) {
                api.recv(b, size, 0, 1);
                api.send(b, size, 0, 1);
            }
            rtt[i] = System.nanoTime() - t0;
        }
        Arrays.sort(rtt);
        return rtt[iters / 2] / 2e3;
    }

    /** Rank 0 sends windows to rank 1, which acknowledges each with 4 bytes; MB/s at rank 0. */
    private static double bandwidth(Api api, ByteBuffer b, int size, int windows) throws Exception {
        byte[] ack = new byte[4];
        int me = api.rank();
        long t0 = System.nanoTime();
        for (int w = 0; w < windows; w++) {
            if (me == 0) {
                api.window(b, size, true, 1);
                api.recv(ack, 4, 1, 2);
            } else if (me == 1) {
                api.window(b, size, false, 0);
                api.send(ack, 4, 0, 2);
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return (double) size * WINDOW * windows / seconds / 1e6;
    }

    /** Each rank's mean time per allreduce, then the median over the ranks, in us. */
    private static double allreduce(Api api, double[] in, double[] out, int count, int iters) throws Exception {
        api.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            api.allreduce(in, out, count);
        }
        double mine = (System.nanoTime() - t0) / 1e3 / iters;
        double[] all = new double[api.size()];
        double[] one = new double[api.size()];
        one[api.rank()] = mine;
        api.allreduce(one, all, api.size());
        Arrays.sort(all);
        return all[all.length / 2];
    }

    private static Api mpi(String[] args) throws MPIException {
        MPI.Init(args);
        mpi.Intracomm w = MPI.COMM_WORLD;
        mpi.Request[] window = new mpi.Request[WINDOW];
        return new Api() {
            public int rank() {
                return rankOf(w);
            }

            public int size() {
                try {
                    return w.getSize();
                } catch (MPIException e) {
                    throw new IllegalStateException(e);
                }
            }

            public void send(byte[] b, int count, int dest, int tag) throws MPIException {
                w.send(b, count, MPI.BYTE, dest, tag);
            }

            public void recv(byte[] b, int count, int source, int tag) throws MPIException {
                w.recv(b, count, MPI.BYTE, source, tag);
            }

            public void window(ByteBuffer b, int count, boolean send, int peer) throws MPIException {
                for (int i = 0; i < WINDOW; i++) {
                    window[i] = send ? w.iSend(b, count, MPI.BYTE, peer, 3) : w.iRecv(b, count, MPI.BYTE, peer, 3);
                }
                mpi.Request.waitAll(window);
            }

            public void allreduce(double[] in, double[] out, int count) throws MPIException {
                w.allReduce(in, out, count, MPI.DOUBLE, MPI.SUM);
            }

            public void barrier() throws MPIException {
                w.barrier();
            }

            public void close() throws MPIException {
                MPI.Finalize();
            }
        };
    }

    private static int rankOf(mpi.Intracomm w) {
        try {
            return w.getRank();
        } catch (MPIException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Api tutti(String[] args) {
        return tutti(Tutti.init(args));
    }

    /** The calls through Tutti's own API; {@code close} closes {@code tutti}. */
    private static Api tutti(Tutti tutti) {
        Communicator w = tutti.world();
        io.tutti.Request[] window = new io.tutti.Request[WINDOW];
        io.tutti.Status status = new io.tutti.Status();
        return new Api() {
            private ByteBuffer sliced;
            private ByteBuffer of;
            private int slicedCount = -1;

            public int rank() {
                return w.rank();
            }

            public int size() {
                return w.size();
            }

            public void send(byte[] b, int count, int dest, int tag) {
                w.send(b, 0, count, dest, tag);
            }

            public void recv(byte[] b, int count, int source, int tag) {
                w.recv(b, 0, count, source, tag, status);
            }

            public void window(ByteBuffer b, int count, boolean send, int peer) {
                if (of != b || slicedCount != count) {
                    sliced = b.slice(0, count);
                    of = b;
                    slicedCount = count;
                }
                for (int i = 0; i < WINDOW; i++) {
                    window[i] = send ? w.isend(sliced, peer, 3) : w.irecv(sliced, peer, 3);
                }
                io.tutti.Request.waitAll(window);
            }

            public void allreduce(double[] in, double[] out, int count) {
                w.allreduce(in, out, count, Datatype.DOUBLE, ReduceOp.SUM);
            }

            public void barrier() {
                w.barrier();
            }

            public void close() {
                tutti.close();
            }
        };
    }
}

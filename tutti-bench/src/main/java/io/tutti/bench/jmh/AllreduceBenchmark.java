package io.tutti.bench.jmh;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A blocking allreduce of {@code count} doubles between two ranks that are threads of the benchmark
 * JVM, next to the exchange it is built on (each rank sends its block to the other and receives
 * the other's with {@code sendrecv}, which allocates its two requests): the difference is what the
 * collective layer costs on top of point-to-point. With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per call.
 *
 * <p>The peer rank repeats the same call until the sum it gets says stop: rank 0 contributes 0
 * while the benchmark runs and 1 to end it, so both ranks always make the same number of calls.
 *
 * <pre>java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main AllreduceBenchmark -prof gc</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class AllreduceBenchmark {
    private static final int TAG = 1;

    @Param({"1", "8192"})
    public int count;

    @Param({"allreduce", "exchange"})
    public String call;

    private ThreadRanks ranks;
    private Communicator world;
    private double[] send;
    private double[] recv;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        boolean exchange = call.equals("exchange");
        int n = count;
        ranks = new ThreadRanks(t -> peerLoop(t.world(), n, exchange));
        world = ranks.rank0().world();
        send = new double[count];
        recv = new double[count];
    }

    /** Rank 1: the same call as rank 0's, until rank 0's contribution says stop. */
    private static void peerLoop(Communicator w, int n, boolean exchange) {
        double[] s = new double[n];
        double[] r = new double[n];
        while (true) {
            if (exchange) {
                w.sendrecv(s, 0, n, 0, TAG, r, 0, n, 0, TAG);
            } else {
                w.allreduce(s, r, n, Datatype.DOUBLE, ReduceOp.SUM);
            }
            if (r[0] != 0) {
                return;
            }
        }
    }

    @Benchmark
    public double call() {
        if (call.equals("exchange")) {
            world.sendrecv(send, 0, count, 1, TAG, recv, 0, count, 1, TAG);
        } else {
            world.allreduce(send, recv, count, Datatype.DOUBLE, ReduceOp.SUM);
        }
        return recv[0];
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        send[0] = 1;
        call();
        ranks.close();
    }
}

package io.tutti.bench.jmh;

import io.tutti.Communicator;
import io.tutti.Status;
import io.tutti.Tutti;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * Round trip of one message between two ranks that are threads of the benchmark JVM, over the
 * shared-memory transport. Its purpose is the allocation figure: run with {@code -prof gc} and
 * {@code gc.alloc.rate.norm} is the bytes allocated per round trip (two messages) in steady state.
 *
 * <pre>java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main PingPongBenchmark -prof gc</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class PingPongBenchmark {
    private static final int TAG = 1;
    private static final int STOP_TAG = 2;

    @Param({"8", "1024", "65536"})
    public int size;

    @Param({"segment", "array"})
    public String buffer;

    private ThreadRanks ranks;
    private Communicator world;
    private Arena arena;
    private MemorySegment segment;
    private byte[] array;
    private final Status status = new Status();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ranks = new ThreadRanks(PingPongBenchmark::echoLoop);
        world = ranks.rank0().world();
        arena = Arena.ofShared();
        segment = arena.allocate(size, 64);
        array = new byte[size];
    }

    /** Rank 1: returns every message until told to stop. */
    private static void echoLoop(Tutti peer) {
        Communicator w = peer.world();
        byte[] buf = new byte[1 << 20];
        Status s = new Status();
        while (true) {
            w.recv(buf, 0, buf.length, 0, Communicator.ANY_TAG, s);
            if (s.tag() == STOP_TAG) {
                return;
            }
            w.send(buf, 0, (int) s.bytes(), 0, TAG);
        }
    }

    @Benchmark
    public long roundTrip() {
        if (buffer.equals("segment")) {
            world.send(segment, 1, TAG);
            world.recv(segment, 1, TAG, status);
        } else {
            world.send(array, 0, size, 1, TAG);
            world.recv(array, 0, size, 1, TAG, status);
        }
        return status.bytes();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        world.send(new byte[0], 0, 0, 1, STOP_TAG);
        ranks.close();
        arena.close();
    }
}

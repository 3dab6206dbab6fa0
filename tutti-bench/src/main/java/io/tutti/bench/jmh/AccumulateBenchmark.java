package io.tutti.bench.jmh;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.Window;
import io.tutti.reduce.Reduction;
import io.tutti.rma.WindowArea;
import io.tutti.rma.WindowAreaDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
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
 * The issue's question for accumulates over shared memory: atomic instructions on the window or the
 * lock per target that {@code ShmWindow} takes, whichever is faster. {@code elements} longs are
 * summed into a peer's window: {@link #windowFetchAndOp} through the API (the lock per target, its
 * checks, the reduction kernel), {@link #lockAndKernel} the same lock word and kernel alone,
 * {@link #atomicGetAndAdd} one hardware fetch-add per element on the mapped memory, and
 * {@link #atomicCasLoop} a compare-and-set loop per element (what MAX, PROD and floating point
 * would need). Contention: {@code -t 2} (not for windowFetchAndOp: a window is one thread's).
 *
 * <pre>java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main AccumulateBenchmark
 * java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main 'AccumulateBenchmark.(lock|atomic).*' -t 2</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class AccumulateBenchmark {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    @Param({"1", "64"})
    public int elements;

    private ThreadRanks ranks;
    private Communicator world;
    private Window window;
    private long[] ones;
    private long[] old;
    private Arena arena;
    private WindowArea area;
    private MemorySegment areaData;
    private MemorySegment origin;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ranks = new ThreadRanks(AccumulateBenchmark::peer);
        world = ranks.rank0().world();
        window = world.allocateSharedWindow(8L * elements, 8);
        window.lockAll();
        ones = new long[elements];
        java.util.Arrays.fill(ones, 1);
        old = new long[elements];
        arena = Arena.ofShared();
        MemorySegment file = arena.allocate(WindowAreaDescriptor.fileLength(2, 8L * elements), 4096);
        area = new WindowArea(file);
        areaData = file.asSlice(WindowAreaDescriptor.dataOffset(2), 8L * elements);
        origin = arena.allocate(8L * elements, 8);
        origin.fill((byte) 1);
    }

    /** Rank 1: creates the window with rank 0 (room for the most elements), and frees it when rank 0 is done. */
    private static void peer(Tutti peer) {
        Communicator w = peer.world();
        Window win = w.allocateSharedWindow(8L * 64, 8);
        w.barrier();
        win.close();
    }

    /** The API's getAccumulate of {@code elements} longs into rank 1's window: the lock per target. */
    @Benchmark
    public long windowFetchAndOp() {
        window.getAccumulate(ones, old, elements, Datatype.LONG, 1, 0, AccumulateOp.SUM);
        return old[0];
    }

    /** The window's accumulate lock word around the reduction kernel, without the API's checks. */
    @Benchmark
    public void lockAndKernel() {
        while (!area.tryLockAccumulate(0)) {
            Thread.onSpinWait();
        }
        try {
            Reduction.apply(ReduceOp.SUM, Datatype.LONG, areaData, 0, origin, 0, elements);
        } finally {
            area.unlockAccumulate();
        }
    }

    /** One hardware fetch-and-add per element (x86 LOCK XADD), no lock. */
    @Benchmark
    public long atomicGetAndAdd() {
        long last = 0;
        for (int i = 0; i < elements; i++) {
            last = (long) LONG.getAndAdd(areaData, 8L * i, 1L);
        }
        return last;
    }

    /** A compare-and-set loop per element: the atomic form of operations without a fetch-add instruction. */
    @Benchmark
    public long atomicCasLoop() {
        long last = 0;
        for (int i = 0; i < elements; i++) {
            long offset = 8L * i;
            long v;
            do {
                v = (long) LONG.getVolatile(areaData, offset);
            } while (!LONG.compareAndSet(areaData, offset, v, v + 1));
            last = v;
        }
        return last;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        window.unlockAll();
        world.barrier();
        window.close();
        ranks.close();
        arena.close();
    }
}

package io.tutti.bench.jmh;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.reduce.Reduction;
import io.tutti.os.Memory;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The local end of a short allreduce on shared-memory slots: one double from the peer's block
 * combined with this rank's, and the result copied into the user's array, in the two orders a
 * schedule can take. {@code user}: copy the peer's block into the user's buffer, then reduce this
 * rank's block into it (the recursive-doubling schedule; the user's operand goes through the
 * reduction's native staging). {@code scratch}: reduce in the scratch, both operands by address,
 * then copy the result out (the slot allreduce).
 *
 * <p>Before measuring, the setup reduces through heap segments of other element types and through
 * a native segment, as a rank's other collectives would, so that the segment accessors' profiles are
 * as polluted as in a real process.
 *
 * <pre>java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main ReductionBenchmark</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ReductionBenchmark {
    @Param({"user", "scratch"})
    public String reduceIn;

    private MemorySegment user;
    /** Scratch address: this rank's block at +0, the peer's at +8. */
    private long scratch;
    private boolean inScratch;

    @Setup(Level.Trial)
    public void setUp() {
        Arena arena = Arena.ofAuto();
        scratch = arena.allocate(16, 16).address();
        user = MemorySegment.ofArray(new double[1]);
        inScratch = reduceIn.equals("scratch");
        MemorySegment[] others = {MemorySegment.ofArray(new int[4]), MemorySegment.ofArray(new byte[32]),
            arena.allocate(32), MemorySegment.ofArray(new long[4])};
        for (MemorySegment o : others) {
            for (int i = 0; i < 20_000; i++) {
                Reduction.apply(ReduceOp.SUM, Datatype.BYTE, o, 0, o, 0, 4);
            }
        }
    }

    @Benchmark
    public void reduceOneDouble() {
        if (inScratch) {
            Reduction.apply(ReduceOp.SUM, Datatype.DOUBLE, Memory.ALL, scratch + 8, Memory.ALL, scratch, 1);
            Memory.copy(Memory.ALL, scratch + 8, user, 0, 8);
        } else {
            Memory.copy(Memory.ALL, scratch + 8, user, 0, 8);
            Reduction.apply(ReduceOp.SUM, Datatype.DOUBLE, user, 0, Memory.ALL, scratch, 1);
        }
    }
}

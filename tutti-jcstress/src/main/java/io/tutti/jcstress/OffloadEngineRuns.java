package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.coll.algo.ChainBcast;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.offload.Counter;
import io.tutti.offload.OffloadCompiler;
import io.tutti.offload.OffloadEngine;
import io.tutti.offload.OffloadProgram;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link OffloadEngine}'s thread contract: the arrival methods ({@link OffloadEngine#onPut}) write
 * data, then add to a counter; {@link OffloadEngine#progress()} reads the counter (acquire) before
 * it fires on that data; {@link OffloadEngine#completedRuns()} is an acquire load of the count the
 * COMPLETE entry stores with release. Two engines run a pipelined broadcast (16 segments of 16 bytes,
 * 2 ranks), each rank's progress on its own actor, the root's thread landing its PUTs straight in
 * the leaf's engine; each actor runs 3 back-to-back runs, so the counters wrap to 0 and are reused,
 * and the leaf checks every word of each run once it sees that run complete. The actors wait for
 * each other, as the two ranks do (jcstress starts every actor of a test together).
 * Result: words the leaf found wrong, runs the leaf and the root completed, then the counters'
 * levels afterwards (both 0).
 */
@JCStressTest
@Outcome(id = "0, 3, 3, 0", expect = ACCEPTABLE,
        desc = "every run's data was there when the leaf saw it complete; the counters wrapped to 0")
@Outcome(id = "[1-9][0-9]*, .*", expect = FORBIDDEN,
        desc = "the leaf saw a run complete before all the data it counted was there")
@Outcome(expect = FORBIDDEN, desc = "a run did not complete, or a counter did not wrap back to 0")
@State
public class OffloadEngineRuns {
    private static final int SEGMENTS = 16;
    private static final int SEGMENT = 16;
    private static final int BYTES = SEGMENTS * SEGMENT;
    private static final int RUNS = 3;
    /** How long a rank waits for a run before it gives up: far more than a run takes, so only a hang reaches it. */
    private static final long PATIENCE_NANOS = 10_000_000_000L;
    private static final OffloadProgram[] PROGRAMS = {program(0), program(1)};

    private final OffloadEngine root;
    private final OffloadEngine leaf;

    private static OffloadProgram program(int rank) {
        return OffloadCompiler.singleSource(r -> new ChainBcast().build(CollectiveCall.bcast(BYTES, 0), r, 2,
                ScheduleAlgorithm.Params.DEFAULT.withSegment(SEGMENT)), rank);
    }

    public OffloadEngineRuns() {
        OffloadEngine[] e = new OffloadEngine[2];
        OffloadEngine.Port port = new OffloadEngine.Port() {
            @Override
            public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf,
                            long roff, int counter, long add, int arrival) {
                e[peer].onPut(src, off, len, rbuf, roff, counter, add); // the sender's thread is the arrival path
            }

            @Override
            public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
                e[peer].onRemoteAdd(counter, value);
            }

            @Override
            public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
                e[peer].onDescriptor(d, at);
            }
        };
        for (int r = 0; r < 2; r++) {
            MemorySegment[] memory = new MemorySegment[OffloadProgram.BUFFERS];
            memory[OffloadProgram.RECV_BUFFER] = Arena.ofAuto().allocate(BYTES, 8);
            e[r] = new OffloadEngine(PROGRAMS[r], new Counter[] {new Counter()}, memory, port, null);
        }
        root = e[0];
        leaf = e[1];
    }

    /** Runs the engine until run {@code run} completes; false if it does not within {@link #PATIENCE_NANOS}. */
    private static boolean complete(OffloadEngine engine, int run) {
        long deadline = 0;
        for (int spins = 1; engine.completedRuns() < run; spins++) {
            if ((spins & 4095) == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + PATIENCE_NANOS;
                } else if (now - deadline > 0) {
                    return false;
                }
            }
            engine.progress();
            Thread.onSpinWait();
        }
        return true;
    }

    @Actor
    public void root() {
        MemorySegment data = root.memory(OffloadProgram.RECV_BUFFER);
        for (int run = 1; run <= RUNS; run++) {
            for (int i = 0; i < BYTES / 8; i++) {
                data.setAtIndex(ValueLayout.JAVA_LONG, i, run * 1_000_000L + i);
            }
            root.start();
            if (!complete(root, run)) {
                return;
            }
        }
    }

    @Actor
    public void leaf(IIII_Result r) {
        MemorySegment data = leaf.memory(OffloadProgram.RECV_BUFFER);
        int wrong = 0;
        for (int run = 1; run <= RUNS; run++) {
            leaf.start();
            if (!complete(leaf, run)) {
                break;
            }
            for (int i = 0; i < BYTES / 8; i++) {
                if (data.getAtIndex(ValueLayout.JAVA_LONG, i) != run * 1_000_000L + i) {
                    wrong++;
                }
            }
        }
        r.r1 = wrong;
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r2 = (int) leaf.completedRuns();
        r.r3 = (int) root.completedRuns();
        r.r4 = root.counter(0).level() == 0 && leaf.counter(0).level() == 0 ? 0 : 1;
    }
}

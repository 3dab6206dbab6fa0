package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import io.tutti.TuttiException;
import io.tutti.coll.schedule.Schedule;
import java.util.BitSet;
import java.util.function.IntFunction;

/**
 * Turns collectives into deferred-work programs ([water-tank] §4; [NIC-reduce] §3.2) by one of three
 * patterns, each in a class of its own that says how it works:
 *
 * <ul>
 *   <li>{@link #bucket} ({@code BucketPattern}): the water tank's 2^n scheme on one counter per rank,
 *       for any {@link Schedule} whose steps wait for their arrivals in one fixed order;</li>
 *   <li>{@link #singleSource} ({@code SingleSourcePattern}): branch and pipeline, for a schedule in
 *       which every rank receives from one peer only (a broadcast tree or chain);</li>
 *   <li>{@link #nicTree} ({@code NicTreePattern}): the NIC reduction tree, built from the collective's
 *       kind, size, rank and root rather than from a schedule.</li>
 * </ul>
 *
 * A schedule a pattern cannot express is refused with {@link Refused}, whose message says why.
 * Compiling rank r reads the schedules of r's peers (to learn which bucket each of r's packets
 * fills there), so {@code schedules} should be cheap and may be called for any rank.
 */
public final class OffloadCompiler {
    /** A schedule the requested pattern cannot express; the message says why. */
    public static final class Refused extends TuttiException.InvalidArgument {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }

    /** Arrivals one counter can tell apart in the 2^n scheme: bucket weights up to 2^62, sum below 2^63. */
    public static final int MAX_BUCKETS = 63;

    private OffloadCompiler() {
    }

    // ---------------------------------------------------------------- the patterns

    /**
     * The 2^n scheme on one counter for {@code rank}'s schedule. {@code op} and {@code type} are the
     * ALU's for a schedule with REDUCE steps (null otherwise).
     *
     * @throws Refused if two of the rank's entries (or of a peer's) wait for sets of arrivals neither of
     *                 which includes the other, if a rank expects more than {@value #MAX_BUCKETS}
     *                 arrivals, or a send has no matching receive of the same length
     */
    public static OffloadProgram bucket(IntFunction<Schedule> schedules, int rank, OffloadAlu.Op op,
                                        OffloadAlu.Type type) {
        return bucket(schedules, rank, op, type, false);
    }

    /**
     * The 2^n scheme with every receive posted when a run starts ({@code prePosted}): no RTR, and a
     * data message is one PUT that carries the receiver's counter add, so an exchange costs one
     * packet and one trip instead of table 5's three packets and two trips. Sound because the engine
     * keeps a packet of a later run until that run starts (runs never overlap), provided no step
     * touches a receive's region before that receive completes; a schedule that does is refused.
     * The schedules of {@code RecursiveDoublingAllreduce.buildOwnRegions} qualify.
     */
    public static OffloadProgram bucket(IntFunction<Schedule> schedules, int rank, OffloadAlu.Op op,
                                        OffloadAlu.Type type, boolean prePosted) {
        return BucketPattern.compile(schedules, rank, op, type, prePosted);
    }

    /**
     * Branch and pipeline ([water-tank] §4.1) for a schedule in which each step forwards data
     * from at most one source: a broadcast tree or chain (one source per rank, one counter), or
     * several pipelines through a rank (Trinaryx3: one counter per source, each counting its
     * segments, plus a completion counter that each source's counter bumps when its part is done).
     * The root waits for a sync from every other rank (table 2, Rq 0) before it sends.
     *
     * @throws Refused if a step waits for data from two sources, a rank reduces, or forwards before
     *                 receiving
     */
    public static OffloadProgram singleSource(IntFunction<Schedule> schedules, int rank) {
        return SingleSourcePattern.compile(schedules, rank);
    }

    /**
     * The single-source pattern if the schedule is a broadcast (see {@link #singleSource}), else the
     * 2^n scheme. The choice is made for the whole schedule, not per rank, so that the ranks agree:
     * it reads every rank's schedule once.
     */
    public static OffloadProgram compile(IntFunction<Schedule> schedules, int rank, OffloadAlu.Op op,
                                         OffloadAlu.Type type) {
        int size = schedules.apply(rank).size();
        boolean broadcast;
        try {
            int root = SingleSourcePattern.rootOf(schedules, 0, size, "");
            broadcast = SingleSourcePattern.broadcastFrom(schedules, root, size) == null;
        } catch (Refused loops) {
            broadcast = false;
        }
        return broadcast ? singleSource(schedules, rank) : bucket(schedules, rank, op, type);
    }

    /**
     * The NIC reduction tree: leaves send their data to the parent as reduction descriptors; a parent
     * accumulates its Branch inputs in the accumulator (in arrival order), combines its own data and
     * sends the result up; the root combines its own data, writes the result to its receive buffer
     * and, for an allreduce, triggers the broadcast descriptors that carry the result back down the
     * tree. For a reduce, each parent instead releases its children with a counter add once its
     * accumulator has been sent, which bounds how far a persistent reduce's leaves run ahead. Messages
     * longer than {@value ReductionDescriptor#PAYLOAD} bytes take several descriptors; the counter
     * counts descriptors.
     *
     * @param allreduce whether the result goes to every rank (else only to the root)
     * @param bytes     bytes per rank, a whole number of ALU items
     */
    public static OffloadProgram nicTree(boolean allreduce, int size, int rank, int root, long bytes,
                                         OffloadAlu.Op op, OffloadAlu.Type type) {
        return NicTreePattern.compile(allreduce, size, rank, root, bytes, op, type);
    }

    // ---------------------------------------------------------------- resources

    /**
     * What a program uses, and what the send/recv-based ("pre-matched", Schneider et al.) offload of
     * the same algorithm would: per [water-tank]'s count, one counter per send and two per receive,
     * one triggered operation or matching entry per send and receive, the same rounds.
     *
     * <p>{@code rounds}: the communication rounds (dependency levels with a send or receive) of the
     * rank's schedule; for the NIC tree, the tree's levels up (and down, for an allreduce), the
     * critical path every rank waits through. {@code checkpoints}: distinct thresholds ([water-tank]'s
     * real rounds R). {@code arrivals}: packets counted per run.
     */
    public record Resources(String scheme, int counters, int entries, int rounds, int checkpoints, int arrivals,
                            int preMatchedCounters, int preMatchedEntries, int preMatchedRounds) {
    }

    /** {@code program}'s figures against the pre-matched offload of {@code hostSchedule}. */
    public static Resources resources(OffloadProgram program, Schedule hostSchedule) {
        int sends = 0;
        int recvs = 0;
        BitSet levels = new BitSet();
        int[] level = new int[hostSchedule.steps()];
        for (int i = 0; i < hostSchedule.steps(); i++) {
            int lv = 0;
            for (int d : hostSchedule.dependencies(i)) {
                lv = Math.max(lv, level[d] + 1);
            }
            level[i] = lv;
            if (hostSchedule.kind(i) == Schedule.SEND) {
                sends++;
                levels.set(lv);
            } else if (hostSchedule.kind(i) == Schedule.RECV) {
                recvs++;
                levels.set(lv);
            }
        }
        return new Resources(program.scheme(), program.counters(), program.entries(), program.rounds(),
                program.checkpoints(), program.arrivals(), sends + 2 * recvs, sends + recvs, levels.cardinality());
    }
}

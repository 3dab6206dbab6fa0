package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import io.tutti.TuttiException;
import io.tutti.coll.algo.BinomialReduce;
import io.tutti.coll.algo.ButterflyBarrier;
import io.tutti.coll.algo.KaryBcast;
import io.tutti.coll.algo.LinearAllreduce;
import io.tutti.coll.algo.LinearBarrier;
import io.tutti.coll.algo.RecursiveDoublingAllgather;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.Trinaryx3Bcast;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import java.util.BitSet;
import java.util.function.IntFunction;

/**
 * The offloaded collectives Tutti plans, each with the host algorithm it is compiled from and the
 * one the pre-matched comparison counts: barrier (butterfly, 2^n), allgather (recursive doubling,
 * 2^n with RTR/DAT/RTE), bcast (binary tree, single source), reduce and allreduce (NIC reduction
 * tree; compared with binomial reduce and recursive-doubling allreduce).
 *
 * <p>Allgather schedules list one COPY per rank, so above {@value #FULL_SCHEDULE_LIMIT} ranks the
 * plan compiles {@link #allgatherPattern}, the same SEND/RECV steps without the copies; the
 * results differ only in the COPY entries.
 */
public final class OffloadPlans {
    /** The collectives with an offloaded plan. */
    public enum Coll { BARRIER, BCAST, ALLGATHER, REDUCE, ALLREDUCE }

    /** Largest N for which the allgather plan compiles the full host schedule. */
    public static final int FULL_SCHEDULE_LIMIT = 1024;

    private static final ScheduleAlgorithm BUTTERFLY = new ButterflyBarrier();
    private static final ScheduleAlgorithm KARY_TREE = new KaryBcast();
    /** The binary tree: each rank forwards to at most two children. */
    private static final ScheduleAlgorithm.Params BINARY = ScheduleAlgorithm.Params.DEFAULT.withKary(2);
    private static final ScheduleAlgorithm DOUBLING = new RecursiveDoublingAllgather();

    private OffloadPlans() {
    }

    /** The host schedules the offloaded program is compiled from ({@code bytes} per rank). */
    public static IntFunction<Schedule> schedules(Coll coll, int n, long bytes, int root) {
        return switch (coll) {
            case BARRIER -> r -> BUTTERFLY.build(CollectiveCall.barrier(), r, n);
            case BCAST -> r -> KARY_TREE.build(CollectiveCall.bcast(bytes, root), r, n, BINARY);
            case ALLGATHER -> n > FULL_SCHEDULE_LIMIT ? r -> allgatherPattern(r, n, bytes) : r -> {
                long[] b = new long[n];
                long[] d = new long[n];
                for (int i = 0; i < n; i++) {
                    b[i] = bytes;
                    d[i] = i * bytes;
                }
                return DOUBLING.build(CollectiveCall.allgather(b, d, false), r, n);
            };
            case REDUCE, ALLREDUCE -> throw new TuttiException.InvalidArgument(coll
                    + " is offloaded as a NIC reduction tree, which is not compiled from a schedule");
        };
    }

    /** The host schedule whose send/recv-based offload the plan is compared with. */
    public static Schedule preMatched(Coll coll, int n, int rank, long bytes, int root) {
        return switch (coll) {
            case REDUCE -> new BinomialReduce().build(CollectiveCall.reduce(bytes, 8, root, false, true), rank, n);
            case ALLREDUCE -> new RecursiveDoublingAllreduce().build(CollectiveCall.allreduce(bytes, 8, false, true),
                    rank, n);
            default -> schedules(coll, n, bytes, root).apply(rank);
        };
    }

    /** Rank {@code rank}'s offloaded program; {@code op} and {@code type} matter for reductions only. */
    public static OffloadProgram program(Coll coll, int n, int rank, long bytes, int root, OffloadAlu.Op op,
                                         OffloadAlu.Type type) {
        checkRanks(n, rank, root);
        return switch (coll) {
            case BARRIER, ALLGATHER -> OffloadCompiler.bucket(schedules(coll, n, bytes, root), rank, null, null);
            case BCAST -> OffloadCompiler.singleSource(schedules(coll, n, bytes, root), rank);
            case REDUCE -> OffloadCompiler.nicTree(false, n, rank, root, bytes, op, type);
            case ALLREDUCE -> OffloadCompiler.nicTree(true, n, rank, root, bytes, op, type);
        };
    }

    /**
     * Rank {@code rank}'s program for an offloaded collective of a communicator of {@code n} ranks,
     * with the barrier and allreduce schemes {@code config} sets; the other collectives have one plan
     * each ({@link #program}). The barrier's linear scheme compiles {@link LinearBarrier}, the
     * allreduce's linear and recursive-doubling schemes {@link LinearAllreduce} and
     * {@link RecursiveDoublingAllreduce#buildOwnRegions}, all on one counter with every receive
     * posted when a run starts, so that each exchange is one PUT with no ready-to-receive round trip.
     *
     * @param bytes      bytes per rank
     * @param op         the ALU operation of a reduce or allreduce, else null
     * @param type       its operand type, else null
     * @param sharedNode whether every rank of the communicator shares this rank's node (its memory):
     *                   with {@code auto}, such ranks take the one-round schemes when one counter can
     *                   hold their P − 1 arrivals
     */
    public static OffloadProgram compile(Coll coll, OffloadConfig config, int n, int rank, long bytes, int root,
                                         OffloadAlu.Op op, OffloadAlu.Type type, boolean sharedNode) {
        checkRanks(n, rank, root);
        boolean oneNode = sharedNode && n - 1 <= OffloadCompiler.MAX_BUCKETS;
        int extent = op == null ? 1 : OffloadAlu.itemBytes(op, type);
        IntFunction<Schedule> schedules = switch (coll) {
            case BARRIER -> config.barrierScheme(oneNode).equals("linear") ? r -> LinearBarrier.build(r, n) : null;
            case ALLREDUCE -> switch (config.allreduceScheme(oneNode)) {
                case "linear" -> r -> LinearAllreduce.build(r, n, bytes, extent, false);
                case "recursive-doubling" -> r -> RecursiveDoublingAllreduce.buildOwnRegions(r, n, bytes, extent, true);
                default -> null;
            };
            default -> null;
        };
        return schedules != null ? OffloadCompiler.bucket(schedules, rank, op, type, true)
                : program(coll, n, rank, bytes, root, op, type);
    }

    private static void checkRanks(int n, int rank, int root) {
        if (n < 1 || rank < 0 || rank >= n || root < 0 || root >= n) {
            throw new TuttiException.InvalidArgument("need 0 <= rank, root < N and N >= 1; got rank " + rank + ", root "
                    + root + ", N " + n);
        }
    }

    /** Every rank's program. */
    public static OffloadProgram[] programs(Coll coll, int n, long bytes, int root, OffloadAlu.Op op,
                                            OffloadAlu.Type type) {
        OffloadProgram[] p = new OffloadProgram[n];
        for (int r = 0; r < n; r++) {
            p[r] = program(coll, n, r, bytes, root, op, type);
        }
        return p;
    }

    /** Rank {@code rank}'s figures, offloaded against pre-matched. */
    public static OffloadCompiler.Resources resources(Coll coll, int n, int rank, long bytes, int root) {
        OffloadProgram p = program(coll, n, rank, bytes, root, OffloadAlu.Op.ADD, OffloadAlu.Type.INT64);
        return OffloadCompiler.resources(p, preMatched(coll, n, rank, bytes, root));
    }

    /** {@link #maxima} examines every rank up to this many, and a sample covering every role above. */
    public static final int ALL_RANKS = 1024;

    /**
     * The largest figures over the ranks examined: what a NIC must provide for any rank, offloaded
     * and pre-matched. {@code checkpoints} are distinct thresholds; a pre-matched program waits
     * once per round, so its checkpoints are its rounds.
     *
     * @param examined how many of the {@code ranks} ranks were examined
     */
    public record Maxima(int ranks, int examined, int counters, int entries, int checkpoints, int preMatchedCounters,
                         int preMatchedEntries, int preMatchedCheckpoints) {
    }

    /** {@link Maxima} of {@code coll}'s plan over {@code n} ranks. */
    public static Maxima maxima(Coll coll, int n, long bytes, int root) {
        return maxima(r -> program(coll, n, r, bytes, root, OffloadAlu.Op.ADD, OffloadAlu.Type.INT64),
                r -> preMatched(coll, n, r, bytes, root), n, root);
    }

    /**
     * {@link Maxima} of the programs {@code programs} gives against the pre-matched offload of
     * {@code preMatched}'s schedules: over every rank up to {@link #ALL_RANKS}; above, over the
     * first and last 64 ranks, 64 around the end of the fold of a non-power-of-two butterfly and
     * around {@code root}, and every (n / 1024)-th rank: each role the butterflies and trees give a
     * rank (folded out, folded in, beyond the fold; root, inner, leaf) is among them.
     */
    public static Maxima maxima(IntFunction<OffloadProgram> programs, IntFunction<Schedule> preMatched, int n,
                                int root) {
        BitSet ranks = new BitSet(n);
        if (n <= ALL_RANKS) {
            ranks.set(0, n);
        } else {
            int fold = 2 * (n - Integer.highestOneBit(n));
            for (int c : new int[] {0, n - 64, fold - 32, root - 32}) {
                ranks.set(Math.max(0, c), Math.min(n, Math.max(0, c) + 64));
            }
            for (int r = 0; r < n; r += n / ALL_RANKS) {
                ranks.set(r);
            }
        }
        int[] max = new int[6];
        for (int r = ranks.nextSetBit(0); r >= 0; r = ranks.nextSetBit(r + 1)) {
            OffloadProgram p = programs.apply(r);
            OffloadCompiler.Resources res = OffloadCompiler.resources(p, preMatched.apply(r));
            int[] v = {res.counters(), res.entries(), res.checkpoints(), res.preMatchedCounters(),
                res.preMatchedEntries(), res.preMatchedRounds()};
            for (int i = 0; i < v.length; i++) {
                max[i] = Math.max(max[i], v[i]);
            }
        }
        return new Maxima(n, ranks.cardinality(), max[0], max[1], max[2], max[3], max[4], max[5]);
    }

    /**
     * [water-tank] table 6's formula for a butterfly over {@code n} nodes: ⌊log2 n⌋ rounds, plus 2
     * (the fold in and out) when n is not a power of two; the pre-matched offload needs 3 counters
     * per round (a send's and a receive's two), and with data every round has 2 checkpoints (R).
     */
    public static int paperRounds(int n) {
        int log = 31 - Integer.numberOfLeadingZeros(n);
        return log + (Integer.bitCount(n) == 1 ? 0 : 2);
    }

    /**
     * Trinaryx3 broadcast schedules ([water-tank] §5.1: the K computer's algorithm, three pipelined
     * ternary trees) of {@code bytes} from {@code root}, in segments of {@code segment} bytes.
     */
    public static IntFunction<Schedule> trinaryx3(int n, long bytes, int root, long segment) {
        ScheduleAlgorithm.Params p = ScheduleAlgorithm.Params.DEFAULT.withSegment(segment);
        ScheduleAlgorithm t = new Trinaryx3Bcast();
        return r -> t.build(CollectiveCall.bcast(bytes, root), r, n, p);
    }

    /**
     * The SEND/RECV steps of {@link RecursiveDoublingAllgather} for {@code bytes} per rank, with the
     * same peers, tags, lengths, scratch offsets and dependencies, but without the final COPY of each
     * block to its place: O(log N) steps instead of O(N), for plans at a million ranks.
     */
    public static Schedule allgatherPattern(int rank, int n, long bytes) {
        ScheduleBuilder b = new ScheduleBuilder("allgather/recursive-doubling (pattern)", rank, n);
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        long total = (long) n * bytes;
        b.temp(total);
        int me = rank;
        if (me < 2 * rem && me % 2 == 0) {
            int sent = b.send(me + 1, 0, Schedule.SEND_BUFFER, 0, bytes);
            b.recv(me + 1, 63, Schedule.TEMP_BUFFER, 0, total, sent);
            return b.build();
        }
        // with equal blocks, rank v's block sits at v * bytes and survivor x's unit starts at x + min(x, rem) blocks
        int have = b.copy(Schedule.TEMP_BUFFER, me * bytes, Schedule.SEND_BUFFER, 0, bytes);
        int nr = me < 2 * rem ? me / 2 : me - rem;
        if (me < 2 * rem) {
            int got = b.recv(me - 1, 0, Schedule.TEMP_BUFFER, (me - 1) * bytes, bytes);
            have = b.join(have, got);
        }
        int round = 1;
        for (int mask = 1; mask < p2; mask <<= 1, round++) {
            int partner = nr ^ mask;
            int mine = nr & ~(mask - 1);
            int theirs = partner & ~(mask - 1);
            int peer = partner < rem ? 2 * partner + 1 : partner + rem;
            int sent = b.send(peer, round, Schedule.TEMP_BUFFER, unit(mine, rem) * bytes,
                    (unit(mine + mask, rem) - unit(mine, rem)) * bytes, have);
            int got = b.recv(peer, round, Schedule.TEMP_BUFFER, unit(theirs, rem) * bytes,
                    (unit(theirs + mask, rem) - unit(theirs, rem)) * bytes, have);
            have = b.join(sent, got);
        }
        if (me < 2 * rem) {
            b.send(me - 1, 63, Schedule.TEMP_BUFFER, 0, total, have);
        }
        return b.build();
    }

    private static long unit(int x, int rem) {
        return x + (long) Math.min(x, rem);
    }
}

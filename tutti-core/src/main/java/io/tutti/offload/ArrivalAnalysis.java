package io.tutti.offload;

import io.tutti.coll.schedule.Schedule;
import io.tutti.offload.OffloadCompiler.Refused;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * One rank's view for the 2^n scheme: which arrivals each of its entries waits for, and an order
 * of those arrivals in which every such set is a prefix. Such an order exists exactly when the
 * sets form a chain under inclusion; arrivals are then ranked by the smallest set that holds
 * them (an RTR before the RTE of the same round, as in table 5, because the DAT needs only the
 * RTR). If the sets do not form a chain, {@code problem} says which two steps disagree.
 */
final class ArrivalAnalysis {
    final Schedule s;
    final int[] level;
    final int[] rtr; // SEND with data: index of the peer's RTR among this rank's arrivals
    final int[] rte; // RECV: index of the peer's RTE (or signal)
    final int arrivals;
    final Map<Long, Integer> recvByKey = new HashMap<>();
    final Map<Long, Integer> sendByKey = new HashMap<>();
    final int[] ordinal;
    final int rounds;
    final String problem;

    ArrivalAnalysis(Schedule s, boolean prePosted) {
        this.s = s;
        int n = s.steps();
        level = new int[n];
        ordinal = new int[n];
        rtr = new int[n];
        rte = new int[n];
        Arrays.fill(rtr, -1);
        Arrays.fill(rte, -1);
        Map<Long, Integer> seen = new HashMap<>();
        BitSet commLevels = new BitSet();
        // provisional arrival ids in step order; id -> step and phase (0 RTR, 1 RTE/signal)
        List<int[]> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int lv = 0;
            for (int d : s.dependencies(i)) {
                lv = Math.max(lv, level[d] + 1);
            }
            level[i] = lv;
            byte k = s.kind(i);
            if (k == Schedule.SEND || k == Schedule.RECV) {
                commLevels.set(lv);
                long base = key(s.peer(i), s.tag(i), 0) | (k == Schedule.SEND ? 1L << 62 : 0);
                int ord = seen.merge(base, 1, Integer::sum) - 1;
                ordinal[i] = ord;
                (k == Schedule.SEND ? sendByKey : recvByKey).put(key(s.peer(i), s.tag(i), ord), i);
                if (k == Schedule.RECV) {
                    rte[i] = ids.size();
                    ids.add(new int[] {i, 1});
                } else if (s.length(i) > 0 && !prePosted) {
                    rtr[i] = ids.size();
                    ids.add(new int[] {i, 0});
                }
            }
        }
        rounds = commLevels.cardinality();
        arrivals = ids.size();
        // the set each entry waits for, over provisional ids
        BitSet[] done = new BitSet[n];
        List<BitSet> waits = new ArrayList<>();
        List<Integer> waiter = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BitSet req = new BitSet();
            for (int d : s.dependencies(i)) {
                req.or(done[d]);
            }
            BitSet after = (BitSet) req.clone();
            byte k = s.kind(i);
            if (k == Schedule.SEND && s.length(i) > 0 && !prePosted) {
                after.set(rtr[i]);
                waits.add(after);
                waiter.add(i);
            } else if (k == Schedule.SEND || s.length(i) > 0) {
                waits.add(req);
                waiter.add(i);
            }
            if (k == Schedule.RECV) {
                after.set(rte[i]);
            }
            done[i] = after;
        }
        BitSet all = new BitSet();
        all.set(0, arrivals);
        waits.add(all);
        waiter.add(-1);
        Integer[] bySize = new Integer[waits.size()];
        for (int w = 0; w < bySize.length; w++) {
            bySize[w] = w;
        }
        Arrays.sort(bySize, (a, b) -> Integer.compare(waits.get(a).cardinality(), waits.get(b).cardinality()));
        String why = null;
        for (int w = 1; w < bySize.length && why == null; w++) {
            BitSet smaller = waits.get(bySize[w - 1]);
            BitSet larger = waits.get(bySize[w]);
            BitSet extra = (BitSet) smaller.clone();
            extra.andNot(larger);
            if (!extra.isEmpty()) {
                why = s.name() + " rank " + s.rank() + ": step " + waiter.get(bySize[w - 1]) + " waits for "
                        + describe(ids, smaller) + " and step " + waiter.get(bySize[w]) + " for "
                        + describe(ids, larger) + "; neither includes the other, so no order of one counter's"
                        + " 2^n buckets lets both fire exactly when their arrivals are in";
            }
        }
        problem = why != null || !prePosted ? why : unposted(s);
        // rank: the smallest set holding the arrival, then RTR before RTE, then step order
        int[] first = new int[arrivals];
        Arrays.fill(first, Integer.MAX_VALUE);
        for (int w = 0; w < bySize.length; w++) {
            BitSet set = waits.get(bySize[w]);
            for (int a = set.nextSetBit(0); a >= 0; a = set.nextSetBit(a + 1)) {
                first[a] = Math.min(first[a], w);
            }
        }
        Integer[] order = new Integer[arrivals];
        for (int a = 0; a < arrivals; a++) {
            order[a] = a;
        }
        Arrays.sort(order, (a, b) -> first[a] != first[b] ? Integer.compare(first[a], first[b])
                : ids.get(a)[1] != ids.get(b)[1] ? Integer.compare(ids.get(a)[1], ids.get(b)[1])
                : Integer.compare(ids.get(a)[0], ids.get(b)[0]));
        for (int pos = 0; pos < arrivals; pos++) {
            int[] id = ids.get(order[pos]);
            (id[1] == 0 ? rtr : rte)[id[0]] = pos;
        }
    }

    /**
     * Why a receive of {@code s} cannot be taken as posted for the whole run, or null: another step
     * touches its region without waiting for it (an early arrival would overwrite data still in
     * use, or be overwritten).
     */
    private static String unposted(Schedule s) {
        int n = s.steps();
        BitSet[] before = new BitSet[n];
        for (int j = 0; j < n; j++) {
            before[j] = new BitSet();
            for (int d : s.dependencies(j)) {
                before[j].or(before[d]);
                before[j].set(d);
            }
        }
        for (int i = 0; i < n; i++) {
            if (s.kind(i) != Schedule.RECV || s.length(i) == 0) {
                continue;
            }
            for (int j = 0; j < n; j++) {
                if (j == i || before[j].get(i) || s.length(j) == 0) {
                    continue;
                }
                boolean local = s.kind(j) == Schedule.COPY || s.kind(j) == Schedule.REDUCE;
                if (overlaps(s, i, s.buffer(j), s.offset(j), s.length(j))
                        || local && overlaps(s, i, s.srcBuffer(j), s.srcOffset(j), s.length(j))) {
                    return s.name() + " rank " + s.rank() + ": step " + j + " touches the region that step " + i
                            + " receives into without waiting for it, so that receive cannot be posted for the"
                            + " whole run";
                }
            }
        }
        return null;
    }

    private static boolean overlaps(Schedule s, int recv, byte buffer, long offset, long length) {
        return buffer == s.buffer(recv) && offset < s.offset(recv) + s.length(recv)
                && s.offset(recv) < offset + length;
    }

    private static String describe(List<int[]> ids, BitSet set) {
        StringBuilder sb = new StringBuilder("{");
        for (int a = set.nextSetBit(0); a >= 0; a = set.nextSetBit(a + 1)) {
            sb.append(sb.length() > 1 ? ", " : "").append(ids.get(a)[1] == 0 ? "RTR of step " : "arrival of step ")
                    .append(ids.get(a)[0]);
        }
        return sb.append('}').toString();
    }

    long weight(int arrival) {
        return 1L << (arrivals - 1 - arrival);
    }

    /** Level at which the first k arrivals have landed: 2^A - 2^(A-k), in wrapping arithmetic. */
    long threshold(int k) {
        long full = arrivals == 64 ? -1L : (1L << arrivals) - 1;
        long rest = arrivals - k == 64 ? -1L : (1L << (arrivals - k)) - 1;
        return full - rest;
    }

    static long key(int peer, int tag, int ordinal) {
        return ((long) peer << 40) | ((long) tag << 24) | ordinal;
    }

    /** Caches analyses of the ranks a compilation touches. */
    static final class Ranks {
        final IntFunction<Schedule> schedules;
        final boolean prePosted;
        final Map<Integer, ArrivalAnalysis> cache = new HashMap<>();

        Ranks(IntFunction<Schedule> schedules, boolean prePosted) {
            this.schedules = schedules;
            this.prePosted = prePosted;
        }

        ArrivalAnalysis get(int r) {
            return cache.computeIfAbsent(r, x -> {
                Schedule s = schedules.apply(x);
                if (s.rank() != x) {
                    throw new IllegalArgumentException("schedule for rank " + x + " says rank " + s.rank());
                }
                return new ArrivalAnalysis(s, prePosted);
            });
        }
    }

    /** Throws unless a step and the peer's matching step move the same number of bytes. */
    static void checkLength(Schedule other, int otherStep, Schedule s, int step) {
        if (other.length(otherStep) != s.length(step)) {
            throw new Refused(s.name() + ": rank " + s.rank() + " step " + step + " moves " + s.length(step)
                    + " bytes but the matching step " + otherStep + " of rank " + other.rank() + " moves "
                    + other.length(otherStep));
        }
    }
}

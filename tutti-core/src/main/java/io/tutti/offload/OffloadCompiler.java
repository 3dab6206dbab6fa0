package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import io.tutti.TuttiException;
import io.tutti.coll.schedule.Schedule;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Turns collectives into deferred-work programs (seed 001, section 4; seed 000, section 3.2). Three
 * patterns:
 *
 * <ul>
 *   <li>{@link #bucket} (the water tank 2^n scheme, multiple sources) compiles any {@link Schedule}
 *       whose steps wait for their arrivals in one fixed order: each rank lists the packets it
 *       expects (a peer's RTR for each of its data sends, a peer's RTE or signal for each receive),
 *       finds an order in which the set every entry waits for is a prefix (possible exactly when
 *       those sets form a chain under inclusion), and gives arrival i the bucket 2^(A-1-i); an
 *       entry that needs the first k arrivals fires at the sum of their buckets, which no
 *       combination of later buckets reaches.
 *       A data message becomes the table 5 exchange: the receiver's RTR when its buffer is ready,
 *       the sender's DAT (a PUT) once its data is ready and the RTR is in, then its RTE, which lands
 *       after the DAT because packets between two ranks arrive in order. A zero-byte message (a
 *       barrier's) is one remote counter add (table 4). One counter per rank, whatever N.</li>
 *   <li>{@link #singleSource} (branch and pipeline, tables 2 and figure 5) compiles a Schedule in
 *       which every rank receives from one peer only (a broadcast tree or chain): the root waits for
 *       a sync from every rank, then sends; a rank forwarding one message to several children pours
 *       the fan-out into its tank first (threshold 1 + fan-out); a pipeline forwards segment j at
 *       threshold j + 1.</li>
 *   <li>{@link #nicTree} (the NIC reduction tree of seed 000) is built from the collective's kind,
 *       size, rank and root rather than from a Schedule: the accumulation of Branch inputs in the
 *       NIC's register, in whatever order they arrive, and the root's triggered broadcast have no
 *       counterpart among a Schedule's SEND/RECV/REDUCE steps, which name host buffers and a fixed
 *       operand order.</li>
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

    // ---------------------------------------------------------------- 2^n scheme

    /**
     * One rank's view for the 2^n scheme: which arrivals each of its entries waits for, and an order
     * of those arrivals in which every such set is a prefix. Such an order exists exactly when the
     * sets form a chain under inclusion; arrivals are then ranked by the smallest set that holds
     * them (an RTR before the RTE of the same round, as in table 5, because the DAT needs only the
     * RTR). If the sets do not form a chain, {@code problem} says which two steps disagree.
     */
    private static final class Analysis {
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

        Analysis(Schedule s, boolean prePosted) {
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
    }

    private static long key(int peer, int tag, int ordinal) {
        return ((long) peer << 40) | ((long) tag << 24) | ordinal;
    }

    /** Caches analyses of the ranks a compilation touches. */
    private static final class Ranks {
        final IntFunction<Schedule> schedules;
        final boolean prePosted;
        final Map<Integer, Analysis> cache = new HashMap<>();

        Ranks(IntFunction<Schedule> schedules, boolean prePosted) {
            this.schedules = schedules;
            this.prePosted = prePosted;
        }

        Analysis get(int r) {
            return cache.computeIfAbsent(r, x -> {
                Schedule s = schedules.apply(x);
                if (s.rank() != x) {
                    throw new IllegalArgumentException("schedule for rank " + x + " says rank " + s.rank());
                }
                return new Analysis(s, prePosted);
            });
        }
    }

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
        Ranks ranks = new Ranks(schedules, prePosted);
        Analysis me = ranks.get(rank);
        Schedule s = me.s;
        if (me.problem != null) {
            throw new Refused(me.problem);
        }
        if (me.arrivals > MAX_BUCKETS) {
            throw new Refused(s.name() + " rank " + rank + " expects " + me.arrivals + " arrivals; one 64-bit counter"
                    + " holds at most " + MAX_BUCKETS + " buckets of the 2^n scheme");
        }
        OffloadProgram.Builder b = new OffloadProgram.Builder(s.name(), "2^n", rank, s.size())
                .arrivals(me.arrivals).rounds(me.rounds).alu(op, type);
        b.buffer(OffloadProgram.TEMP_BUFFER, s.tempBytes());
        int n = s.steps();
        int[] from = new int[me.arrivals];
        for (int i = 0; i < n; i++) {
            if (s.kind(i) == Schedule.RECV) {
                from[me.rte[i]] = s.peer(i);
            } else if (s.kind(i) == Schedule.SEND && s.length(i) > 0 && !prePosted) {
                from[me.rtr[i]] = s.peer(i);
            }
        }
        b.arrivalPeers(from);
        BitSet[] done = new BitSet[n];
        for (int i = 0; i < n; i++) {
            BitSet req = new BitSet();
            for (int d : s.dependencies(i)) {
                req.or(done[d]);
            }
            byte kind = s.kind(i);
            long len = s.length(i);
            BitSet after = (BitSet) req.clone();
            switch (kind) {
                case Schedule.RECV -> {
                    b.buffer(s.buffer(i), s.offset(i) + len);
                    if (len > 0 && !prePosted) {
                        // RTR: the buffer is ready, tell the sender
                        int k = prefix(req, s, i, "its receive buffer is ready");
                        Analysis peer = peer(ranks, s.peer(i));
                        int send = match(peer.sendByKey, rank, me, i, "send");
                        checkLength(peer.s, send, s, i);
                        b.remoteAdd(me.threshold(k), k, s.peer(i), peer.weight(peer.rtr[send]), peer.rtr[send])
                                .role(OffloadProgram.ROLE_RTR);
                    }
                    after.set(me.rte[i]);
                }
                case Schedule.SEND -> {
                    Analysis peer = peer(ranks, s.peer(i));
                    int recv = match(peer.recvByKey, rank, me, i, "receive");
                    checkLength(peer.s, recv, s, i);
                    if (len > 0 && prePosted) {
                        // DAT and RTE in one packet: the add lands after the data it counts
                        int k = prefix(req, s, i, "its data is ready");
                        b.put(me.threshold(k), k, s.peer(i), s.buffer(i), s.offset(i), len, peer.s.buffer(recv),
                                peer.s.offset(recv), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_DAT);
                    } else if (len > 0) {
                        after.set(me.rtr[i]);
                        int k = prefix(after, s, i, "its data and the peer's RTR are in");
                        long th = me.threshold(k);
                        b.put(th, k, s.peer(i), s.buffer(i), s.offset(i), len, peer.s.buffer(recv), peer.s.offset(recv),
                                0, -1).role(OffloadProgram.ROLE_DAT);
                        b.remoteAdd(th, k, s.peer(i), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_RTE);
                    } else {
                        int k = prefix(req, s, i, "it may signal");
                        b.remoteAdd(me.threshold(k), k, s.peer(i), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_SIGNAL);
                    }
                }
                case Schedule.COPY, Schedule.REDUCE -> {
                    if (len > 0) {
                        int k = prefix(req, s, i, "its operands are ready");
                        if (kind == Schedule.COPY) {
                            b.copy(me.threshold(k), k, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len);
                        } else {
                            if (op == null) {
                                throw new Refused(s.name() + " rank " + rank + " step " + i + " reduces data: give the"
                                        + " ALU operation and type");
                            }
                            b.reduce(me.threshold(k), k, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len);
                        }
                    }
                }
                default -> throw new Refused(s.name() + ": unknown step kind " + kind);
            }
            done[i] = after;
        }
        long full = me.threshold(me.arrivals);
        b.complete(full, me.arrivals);
        if (full != 0) {
            // wrap the tank back to 0 for the next start (no CNTR_SUB exists)
            b.counterAdd(full, me.arrivals, -full).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    private static Analysis peer(Ranks ranks, int p) {
        Analysis a = ranks.get(p);
        if (a.problem != null || a.arrivals > MAX_BUCKETS) {
            throw new Refused("peer rank " + p + " cannot take part in the 2^n scheme: " + (a.problem != null
                    ? a.problem : "it expects " + a.arrivals + " arrivals, more than " + MAX_BUCKETS));
        }
        return a;
    }

    private static int prefix(BitSet set, Schedule s, int step, String what) {
        int k = set.nextClearBit(0);
        if (set.cardinality() != k) {
            throw new Refused(s.name() + " rank " + s.rank() + " step " + step + " waits until " + what + ", which"
                    + " takes arrivals " + set + " of this rank's arrival order; they are not the first " + k
                    + ", so one counter's 2^n buckets cannot tell them from later ones");
        }
        return k;
    }

    private static int match(Map<Long, Integer> byKey, int rank, Analysis me, int step, String what) {
        Schedule s = me.s;
        Integer m = byKey.get(key(rank, s.tag(step), me.ordinal[step]));
        if (m == null) {
            throw new Refused(s.name() + " rank " + s.rank() + " step " + step + " to/from rank " + s.peer(step)
                    + " tag " + s.tag(step) + " has no matching " + what);
        }
        return m;
    }

    private static void checkLength(Schedule other, int otherStep, Schedule s, int step) {
        if (other.length(otherStep) != s.length(step)) {
            throw new Refused(s.name() + ": rank " + s.rank() + " step " + step + " moves " + s.length(step)
                    + " bytes but the matching step " + otherStep + " of rank " + other.rank() + " moves "
                    + other.length(otherStep));
        }
    }

    // ---------------------------------------------------------------- single source

    /** Where a rank's receives come from: its sources in order of first receive, and each receive's number. */
    private static final class Sources {
        final List<Integer> parents = new ArrayList<>();
        final int[] counts;
        final int[] source; // per step: index of the source a RECV is from, else -1
        final int[] ordinal; // per RECV step: its number among the receives from its source

        Sources(Schedule s) {
            int n = s.steps();
            source = new int[n];
            ordinal = new int[n];
            int[] c = new int[n + 1];
            for (int i = 0; i < n; i++) {
                source[i] = -1;
                if (s.kind(i) == Schedule.RECV) {
                    int k = parents.indexOf(s.peer(i));
                    if (k < 0) {
                        k = parents.size();
                        parents.add(s.peer(i));
                    }
                    source[i] = k;
                    ordinal[i] = c[k]++;
                }
            }
            counts = Arrays.copyOf(c, parents.size());
        }

        /** First arrival number of source {@code k}'s block (receives are counted per source). */
        int base(int k) {
            int b = 0;
            for (int j = 0; j < k; j++) {
                b += counts[j];
            }
            return b;
        }
    }

    /**
     * Branch and pipeline (seed 001, section 4.1) for a schedule in which each step forwards data
     * from at most one source: a broadcast tree or chain (one source per rank, one counter), or
     * several pipelines through a rank (Trinaryx3: one counter per source, each counting its
     * segments, plus a completion counter that each source's counter bumps when its part is done).
     * The root waits for a sync from every other rank (table 2, Rq 0) before it sends.
     *
     * @throws Refused if a step waits for data from two sources, a rank reduces, or forwards before
     *                 receiving
     */
    public static OffloadProgram singleSource(IntFunction<Schedule> schedules, int rank) {
        Schedule s = schedules.apply(rank);
        int size = s.size();
        Sources src = new Sources(s);
        int sources = src.parents.size();
        // every source must lead back to one root, and a root must be the only origin of what its children get
        int root = rank;
        for (int k = 0; k < sources; k++) {
            int r = rootOf(schedules, src.parents.get(k), size, s.name());
            if (k > 0 && r != root) {
                throw new Refused(s.name() + " rank " + rank + " gets data that starts at ranks " + root + " and " + r
                        + ": no single source; use the 2^n scheme");
            }
            root = r;
        }
        if (sources == 0) {
            // the root waits for a sync from every other rank, so its data must reach them all
            String why = broadcastFrom(schedules, rank, size);
            if (why != null) {
                throw new Refused(s.name() + ": rank " + rank + " receives nothing, but it is no broadcast root: " + why);
            }
        }
        int n = s.steps();
        int[] from = new int[n]; // the source a step's data comes from, -1 none, -2 several
        int[] seg = new int[n]; // receives from that source the step needs
        int[] level = new int[n];
        BitSet levels = new BitSet();
        int[] fanout = new int[Math.max(1, sources)];
        for (int i = 0; i < n; i++) {
            int f = -1;
            int need = 0;
            int lv = 0;
            for (int d : s.dependencies(i)) {
                lv = Math.max(lv, level[d] + 1);
                if (from[d] == -1) {
                    continue;
                }
                f = f == -1 || f == from[d] ? from[d] : -2;
                need = Math.max(need, seg[d]);
            }
            level[i] = lv;
            byte kind = s.kind(i);
            if (kind == Schedule.RECV) {
                int k = src.source[i];
                if (f >= 0 && f != k) {
                    f = -2;
                } else {
                    f = k;
                    need = Math.max(need, src.ordinal[i] + 1);
                }
                levels.set(lv);
            }
            boolean moves = s.length(i) > 0 && kind != Schedule.RECV;
            if (f == -2 && (kind == Schedule.SEND || moves)) {
                throw new Refused(s.name() + " rank " + rank + " step " + i + " waits for data from several sources;"
                        + " one threshold watches one counter");
            }
            if (kind == Schedule.SEND) {
                levels.set(lv);
                if (rank != root && f < 0 && s.length(i) > 0) {
                    throw new Refused(s.name() + " rank " + rank + " step " + i + " sends before it has received"
                            + " anything; not a single-source pattern");
                }
                if (f >= 0) {
                    fanout[f]++;
                }
            } else if (kind == Schedule.REDUCE && s.length(i) > 0) {
                throw new Refused(s.name() + " rank " + rank + " step " + i + " reduces: the single-source pattern"
                        + " only forwards data; use the NIC reduction tree");
            }
            from[i] = f;
            seg[i] = need;
        }
        int done = sources > 1 ? sources : -1; // the completion counter, when there are several sources
        int counters = Math.max(1, sources) + (sources > 1 ? 1 : 0);
        OffloadProgram.Builder b = new OffloadProgram.Builder(s.name(), "single-source", rank, size)
                .rounds(levels.cardinality()).counters(counters);
        long[] fin = new long[Math.max(1, sources)];
        boolean[] branch = new boolean[Math.max(1, sources)];
        if (rank == root) {
            b.arrivals(size - 1);
            fin[0] = size - 1;
        } else {
            int[] perCounter = new int[counters];
            System.arraycopy(src.counts, 0, perCounter, 0, sources);
            b.arrivals(perCounter);
            int sync = rank < root ? rank : rank - 1;
            // the sync (table 2, Rq 0): this rank's buffers are ready; a zero-byte write that counts 1 at the root
            b.put(0, 0, root, OffloadProgram.RECV_BUFFER, 0, 0, OffloadProgram.RECV_BUFFER, 0, 1, sync)
                    .role(OffloadProgram.ROLE_SYNC);
            for (int k = 0; k < sources; k++) {
                branch[k] = src.counts[k] == 1 && fanout[k] >= 2;
                if (branch[k]) {
                    // the tank must rise by the fan-out before the branch writes fire (table 2, Rq 1)
                    b.counterAdd(1, 1, fanout[k]).on(k).role(OffloadProgram.ROLE_BRANCH);
                    fin[k] = 1 + fanout[k];
                } else {
                    fin[k] = src.counts[k];
                }
            }
        }
        Ranks ranks = new Ranks(schedules, false);
        Analysis me = ranks.get(rank);
        Map<Integer, Sources> childSources = new HashMap<>();
        Map<Integer, Long> lastTh = new HashMap<>();
        for (int i = 0; i < n; i++) {
            byte kind = s.kind(i);
            long len = s.length(i);
            int k = Math.max(from[i], 0);
            long th = rank == root ? size - 1 : branch[k] ? 1 + fanout[k] : seg[i];
            int need = rank == root ? size - 1 : seg[i];
            if (kind == Schedule.RECV) {
                b.buffer(s.buffer(i), s.offset(i) + len);
            } else if (kind == Schedule.SEND) {
                Analysis ca = ranks.get(s.peer(i));
                Schedule child = ca.s;
                Sources cs = childSources.computeIfAbsent(s.peer(i), x -> new Sources(child));
                Integer found = ca.recvByKey.get(key(rank, s.tag(i), me.ordinal[i]));
                int recv = found == null ? -1 : found;
                if (recv < 0) {
                    throw new Refused(s.name() + " rank " + rank + " step " + i + " to rank " + s.peer(i)
                            + " has no matching receive");
                }
                checkLength(child, recv, s, i);
                Long prev = lastTh.put(s.peer(i), th);
                if (prev != null && prev > th) {
                    throw new Refused(s.name() + " rank " + rank + " sends segments to rank " + s.peer(i) + " out of"
                            + " order; a counter identifies them by count only");
                }
                // the child counts what we send on its counter for us, in order
                int ck = cs.source[recv];
                b.put(th, need, s.peer(i), s.buffer(i), s.offset(i), len, child.buffer(recv), child.offset(recv), 1,
                        cs.base(ck) + cs.ordinal[recv]).on(k).target(ck);
            } else if (kind == Schedule.COPY && len > 0) {
                b.copy(th, need, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len).on(k);
            }
        }
        if (done < 0) {
            int need = rank == root ? size - 1 : sources == 0 ? 0 : src.counts[0];
            b.complete(fin[0], need);
            if (fin[0] != 0) {
                b.counterAdd(fin[0], need, -fin[0]).role(OffloadProgram.ROLE_FIN);
            }
        } else {
            for (int k = 0; k < sources; k++) {
                b.counterAdd(fin[k], src.counts[k], 1).on(k).target(done);
                b.counterAdd(fin[k], src.counts[k], -fin[k]).on(k).role(OffloadProgram.ROLE_FIN);
            }
            b.complete(sources, 0).on(done);
            b.counterAdd(sources, 0, -sources).on(done).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    // follows first sources up to a rank that receives nothing
    private static int rootOf(IntFunction<Schedule> schedules, int from, int size, String name) {
        int at = from;
        for (int hops = 0; hops <= size; hops++) {
            Sources up = new Sources(schedules.apply(at));
            if (up.parents.isEmpty()) {
                return at;
            }
            at = up.parents.get(0);
        }
        throw new Refused(name + ": the receive chain from rank " + from + " loops; no single source");
    }

    /**
     * Why the schedule is not a broadcast from {@code root} (its sends reach every rank, nobody
     * reduces, and every rank's data starts at the root), or null if it is. Reads every rank's
     * schedule.
     */
    static String broadcastFrom(IntFunction<Schedule> schedules, int root, int size) {
        boolean[] seen = new boolean[size];
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        seen[root] = true;
        todo.add(root);
        int reached = 1;
        while (!todo.isEmpty()) {
            int r = todo.poll();
            Schedule s = schedules.apply(r);
            for (int i = 0; i < s.steps(); i++) {
                if (s.kind(i) == Schedule.REDUCE && s.length(i) > 0) {
                    return "rank " + r + " reduces";
                }
                if (s.kind(i) == Schedule.RECV && rootOf(schedules, s.peer(i), size, s.name()) != root) {
                    return "rank " + r + " gets data from rank " + s.peer(i) + ", which does not start at rank " + root;
                }
                if (s.kind(i) == Schedule.SEND && !seen[s.peer(i)]) {
                    seen[s.peer(i)] = true;
                    reached++;
                    todo.add(s.peer(i));
                }
            }
        }
        return reached == size ? null : "its sends reach " + reached + " of " + size + " ranks";
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
            broadcast = broadcastFrom(schedules, rootOf(schedules, 0, size, ""), size) == null;
        } catch (Refused loops) {
            broadcast = false;
        }
        return broadcast ? singleSource(schedules, rank) : bucket(schedules, rank, op, type);
    }

    // ---------------------------------------------------------------- NIC reduction tree

    /** Binomial tree on ranks relative to the root: the parent clears the lowest set bit. */
    static int treeParent(int v) {
        return v == 0 ? -1 : v & (v - 1);
    }

    static int[] treeChildren(int v, int size) {
        int low = v == 0 ? Integer.highestOneBit(Math.max(size - 1, 1)) << 1 : Integer.lowestOneBit(v);
        List<Integer> c = new ArrayList<>();
        for (int bit = 1; bit < low && v + bit < size; bit <<= 1) {
            c.add(v + bit);
        }
        return c.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The NIC reduction tree: leaves send their data to the parent as reduction descriptors; a parent
     * accumulates its Branch inputs in the accumulator (in arrival order), combines its own data and
     * sends the result up; the root combines its own data, writes the result to its receive buffer
     * and, for an allreduce, triggers the broadcast descriptors that carry the result back down the
     * tree. For a reduce, each parent instead releases its children with a counter add once its
     * accumulator has been sent, which bounds how far a persistent reduce's leaves run ahead. Messages longer than {@value ReductionDescriptor#PAYLOAD} bytes take several descriptors;
     * the counter counts descriptors.
     *
     * @param allreduce whether the result goes to every rank (else only to the root)
     * @param bytes     bytes per rank, a whole number of ALU items
     */
    public static OffloadProgram nicTree(boolean allreduce, int size, int rank, int root, long bytes,
                                         OffloadAlu.Op op, OffloadAlu.Type type) {
        OffloadAlu.check(op, type);
        int item = OffloadAlu.itemBytes(op, type);
        if (bytes <= 0 || bytes % item != 0) {
            throw new Refused("the NIC reduces whole " + item + "-byte " + type + " items; " + bytes
                    + " bytes is not a positive multiple");
        }
        int d = ReductionDescriptor.parts(bytes);
        if ((long) d > 0xFFFF) {
            throw new Refused(bytes + " bytes need " + d + " descriptors; the Part field counts at most 65535");
        }
        int v = (rank - root + size) % size;
        int[] kids = treeChildren(v, size);
        int c = kids.length;
        int depth = 0;
        for (int x = v; x != 0; x = treeParent(x)) {
            depth++;
        }
        int height = 32 - Integer.numberOfLeadingZeros(Math.max(size - 1, 0));
        String name = (allreduce ? "allreduce" : "reduce") + "/nic-tree";
        OffloadProgram.Builder b = new OffloadProgram.Builder(name, "nic-reduction-tree", rank, size)
                .alu(op, type).rounds(allreduce ? 2 * height : height);
        b.buffer(OffloadProgram.RECV_BUFFER, v == 0 || allreduce ? bytes : 0);
        b.buffer(OffloadProgram.ACC_BUFFER, (long) d * ReductionDescriptor.PAYLOAD);
        long up = (long) c * d;
        long fin;
        if (v == 0) {
            b.arrivals(c * d);
            b.nicReduce(up, (int) up, -1, OffloadProgram.SEND_BUFFER, 0, bytes, 0, 0, c, -1);
            // the completion value written to host memory
            b.copy(up, (int) up, OffloadProgram.RECV_BUFFER, 0, OffloadProgram.ACC_BUFFER, 0, bytes);
            if (allreduce) {
                for (int k : kids) {
                    int kc = treeChildren(k, size).length;
                    b.bcast(up, (int) up, abs(k, root, size), OffloadProgram.ACC_BUFFER, 0, bytes,
                            OffloadProgram.RECV_BUFFER, 0, kc * d);
                }
            } else {
                release(b, up, kids, size, root, d);
            }
            fin = up;
        } else {
            int pv = treeParent(v);
            int[] siblings = treeChildren(pv, size);
            int index = Arrays.binarySearch(siblings, v);
            b.arrivals(c * d + (allreduce ? d : 1));
            b.nicReduce(up, (int) up, abs(pv, root, size), OffloadProgram.SEND_BUFFER, 0, bytes, 0, 0,
                    siblings.length, index * d);
            if (!allreduce) {
                release(b, up, kids, size, root, d);
                fin = up + 1;
            } else {
                fin = up + d;
                for (int k : kids) {
                    int kc = treeChildren(k, size).length;
                    b.bcast(fin, (int) fin, abs(k, root, size), OffloadProgram.RECV_BUFFER, 0, bytes,
                            OffloadProgram.RECV_BUFFER, 0, kc * d);
                }
            }
        }
        b.complete(fin, (int) fin);
        if (fin != 0) {
            b.counterAdd(fin, (int) fin, -fin).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    // a reduce sends no result down, so without this a leaf could start run k+2 while its parent still
    // accumulates run k: the release (a counter add of 1) says the parent's accumulator is free again
    private static void release(OffloadProgram.Builder b, long th, int[] kids, int size, int root, int d) {
        for (int k : kids) {
            int kc = treeChildren(k, size).length;
            b.remoteAdd(th, (int) th, abs(k, root, size), 1, kc * d);
        }
    }

    private static int abs(int v, int root, int size) {
        return (v + root) % size;
    }

    // ---------------------------------------------------------------- resources

    /**
     * What a program uses, and what the send/recv-based ("pre-matched", Schneider et al.) offload of
     * the same algorithm would: per the seed's count, one counter per send and two per receive,
     * one triggered operation or matching entry per send and receive, the same rounds.
     *
     * <p>{@code rounds}: the communication rounds (dependency levels with a send or receive) of the
     * rank's schedule; for the NIC tree, the tree's levels up (and down, for an allreduce), the
     * critical path every rank waits through. {@code checkpoints}: distinct thresholds (the seed's
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

package io.tutti.sim;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.ScheduleSteps;
import io.tutti.coll.schedule.Topology;
import java.util.Arrays;
import java.util.function.DoubleConsumer;
import java.util.function.IntFunction;

/**
 * Every rank's {@link Schedule} of one collective, stored compactly for the simulator: each rank's
 * schedule is rewritten with peers relative to the rank ((peer − rank) mod P) and identical
 * rewritten schedules ("shapes") are stored once. A dissemination barrier has one shape for any P,
 * a binomial broadcast ⌈log2 P⌉ + 1, so a million ranks cost a few arrays of P ints rather than a
 * million objects. A rank whose offsets match no shape is tried with peers as masks (peer XOR
 * rank): recursive doubling and butterflies, which pair ranks by a bit, differ in every rank's
 * offsets but share their masks (the node leaders' barrier at 2^20 ranks had 524 288 shapes,
 * docs/perf/sim.md). The steps still come from the real builders: every rank's schedule is built
 * once, into one reused builder, and folded in from the builder's arrays; nothing is re-derived and
 * nothing is made per rank.
 *
 * <p>Only what timing depends on is kept: kind, peer, tag, length and dependencies. Buffers and
 * offsets are not (the simulator moves no data).
 */
public final class CompiledSchedules {
    final int size;
    final String name;
    /** Per rank: its shape. */
    final int[] shapeOf;
    /** Per shape: index of its first step in the shape arrays; shapes + 1 entries. */
    final int[] shapeStart;
    final byte[] kind;
    /** Per shape step: the peer's offset from the rank, or for a shape of {@link #xor} its mask. */
    final int[] relPeer;
    /** Per shape: whether its peers are masks (peer = rank XOR relPeer) rather than offsets. */
    final boolean[] xor;
    final int[] tag;
    final long[] length;
    /** Per shape step: number of dependencies. */
    final int[] depCount;
    /**
     * Per shape step with two or more dependencies: its counter's index among its shape's counters
     * (−1 for the others, which start when their one dependency completes or at once): only joins
     * need a counter per rank, which keeps a dissemination barrier's 2^24 ranks at no counter.
     */
    final int[] counterOf;
    /** Per shape: how many counters a rank of that shape needs. */
    final int[] counters;
    /** Per shape: its last join's step (an index into the shape arrays), −1 without one. */
    final int[] joinOf;
    /** Per shape step: its successors (local step indices) in succ[succStart[i] .. succStart[i+1]). */
    final int[] succStart;
    final int[] succ;
    final long totalSteps;

    private CompiledSchedules(int size, String name, int[] shapeOf, long totalSteps, int[] shapeStart, byte[] kind,
                              int[] relPeer, boolean[] xor, int[] tag, long[] length, int[] depCount, int[] succStart,
                              int[] succ) {
        this.size = size;
        this.name = name;
        this.shapeOf = shapeOf;
        this.shapeStart = shapeStart;
        this.kind = kind;
        this.relPeer = relPeer;
        this.xor = xor;
        this.tag = tag;
        this.length = length;
        this.depCount = depCount;
        this.succStart = succStart;
        this.succ = succ;
        this.totalSteps = totalSteps;
        int shapes = shapeStart.length - 1;
        this.counterOf = new int[depCount.length];
        this.counters = new int[shapes];
        this.joinOf = new int[shapes];
        for (int sh = 0; sh < shapes; sh++) {
            joinOf[sh] = -1;
            for (int j = shapeStart[sh]; j < shapeStart[sh + 1]; j++) {
                counterOf[j] = depCount[j] >= 2 ? counters[sh]++ : -1;
                if (depCount[j] >= 2) {
                    joinOf[sh] = j;
                }
            }
        }
    }

    /** Number of ranks. */
    public int size() {
        return size;
    }

    /** The algorithm's name, as the schedules report it. */
    public String name() {
        return name;
    }

    /** Distinct shapes: how well the schedules compressed. */
    public int shapes() {
        return shapeStart.length - 1;
    }

    /** Steps over all ranks. */
    public long totalSteps() {
        return totalSteps;
    }

    /** Steps of rank {@code r}. */
    public int steps(int r) {
        int sh = shapeOf[r];
        return shapeStart[sh + 1] - shapeStart[sh];
    }

    /** Kind of rank r's step i ({@link Schedule#SEND} ...). */
    public byte kind(int r, int i) {
        return kind[shapeStart[shapeOf[r]] + i];
    }

    /** Peer (absolute rank) of rank r's SEND/RECV step i. */
    public int peer(int r, int i) {
        return peerAt(r, shapeStart[shapeOf[r]] + i);
    }

    /** Peer of rank r at its shape's step {@code j} (an index into the shape arrays). */
    int peerAt(int r, int j) {
        if (xor[shapeOf[r]]) {
            return r ^ relPeer[j];
        }
        // (r + offset) mod P with both in [0, P) and P at most 2^26: a compare instead of a division,
        // as where the offsets are made
        int p = r + relPeer[j];
        return p < size ? p : p - size;
    }

    public int tag(int r, int i) {
        return tag[shapeStart[shapeOf[r]] + i];
    }

    public long length(int r, int i) {
        return length[shapeStart[shapeOf[r]] + i];
    }

    /** Builds every rank's schedule with {@code algorithms} and folds them in. */
    public static CompiledSchedules build(Selector algorithms, CollectiveCall call, int size, Topology topo,
                                          String algorithm) {
        return build(algorithms, call, size, topo, algorithm, null);
    }

    /** As {@link #build(Selector, CollectiveCall, int, Topology, String)}, telling {@code progress} the fraction built. */
    public static CompiledSchedules build(Selector algorithms, CollectiveCall call, int size, Topology topo,
                                          String algorithm, DoubleConsumer progress) {
        // one builder for every rank, read where the steps are: its arrays grow once, and no Schedule is
        // made per rank (a million of them were most of the building's garbage)
        Selector.RankSchedules ranks = algorithms.ranks(call, size, topo, algorithm);
        ScheduleBuilder reuse = new ScheduleBuilder(algorithm, 0, size);
        return compile(size, r -> ranks.fill(r, reuse), progress);
    }

    /** Folds in given schedules (rank r's at index r). */
    public static CompiledSchedules of(Schedule[] schedules) {
        return compile(schedules.length, r -> schedules[r], null);
    }

    /**
     * Folds in the schedules {@code source} gives for ranks 0 … size−1, one at a time (each is read
     * before the next is asked for, so a builder may be reused); {@code progress} (may be null) hears
     * the fraction done now and then.
     */
    public static CompiledSchedules compile(int size, IntFunction<? extends ScheduleSteps> source,
                                            DoubleConsumer progress) {
        if (size < 1) {
            throw new IllegalArgumentException("at least one rank, got " + size);
        }
        int[] shapeOf = new int[size];
        Encoding enc = new Encoding();
        // the rank before's offsets, when its shape came from them: most ranks repeat it, and then
        // their shape is its shape without hashing or looking up (a table would answer the same)
        Encoding before = new Encoding();
        boolean beforeByOffsets = false;
        Encoding maskedEnc = new Encoding();
        EncodingTable ids = new EncodingTable();
        // masks of ranks whose offsets made a new shape: -1 when seen once, a shape id once seen twice
        EncodingTable masks = new EncodingTable();
        Shapes shapes = new Shapes();
        String name = null;
        long total = 0;
        boolean lastXor = false;
        for (int r = 0; r < size; r++) {
            ScheduleSteps s = source.apply(r);
            if (s.rank() != r || s.size() != size) {
                throw new IllegalArgumentException("schedule " + r + " is for rank " + s.rank() + " of " + s.size());
            }
            if (name == null) {
                name = s.name();
            }
            int id = EncodingTable.ABSENT;
            Encoding masked = null;
            if (lastXor) {
                // the rank before had a mask shape: its neighbours mostly do too, so try the masks first (a
                // rank whose schedule both tables hold may take either shape: both are that schedule)
                masked = maskedEnc.encode(s, r, size, true);
                int seen = masks.get(masked);
                id = seen >= 0 ? seen : id;
            }
            boolean byOffsets = false;
            if (id == EncodingTable.ABSENT) {
                Encoding swap = before;
                before = enc;
                enc = swap.encode(s, r, size, false);
                id = beforeByOffsets && enc.sameAs(before) ? shapeOf[r - 1] : ids.get(enc);
                byOffsets = id != EncodingTable.ABSENT;
            }
            if (id == EncodingTable.ABSENT) {
                if (masked == null) {
                    masked = maskedEnc.encode(s, r, size, true);
                }
                int seen = masks.get(masked);
                if (seen >= 0) {
                    id = seen;
                } else if (seen == -1) {
                    // the second rank with these masks: they make a shape of their own from now on
                    id = shapes.shapes;
                    masks.put(masked, id);
                    shapes.add(masked, true);
                } else {
                    id = shapes.shapes;
                    ids.put(enc, id);
                    masks.put(masked, -1);
                    shapes.add(enc, false);
                    byOffsets = true;
                }
            }
            shapeOf[r] = id;
            beforeByOffsets = byOffsets;
            lastXor = shapes.xor[id];
            total += s.steps();
            if (total >= Integer.MAX_VALUE) {
                throw new IllegalArgumentException("more than 2^31 steps over all ranks: too large to simulate");
            }
            if (progress != null && (r & 0xffff) == 0xffff) {
                progress.accept((double) (r + 1) / size);
            }
        }
        return shapes.finish(size, name, shapeOf, total);
    }

    /**
     * One rank's schedule as the simulator compares it, in a buffer that the next rank reuses (a
     * million ranks make no garbage here): [steps, then per step: kind|tag|relPeer, length, number
     * of dependencies, number of successors, the successors]. Successors rather than dependencies,
     * because they are all the simulation reads: the dependency lists inverted, in step order (as
     * {@link Schedule} inverts them), so that two schedules that differ only in the order of a step's
     * dependencies are one shape. {@code xor}: peers as masks.
     */
    private static final class Encoding {
        long[] buf = new long[64];
        int len;
        private int hash;
        private boolean hashed;
        /** Successors of step i in succ[succStart[i] .. succStart[i + 1]), inverted per rank in place. */
        int[] succStart = new int[65];
        int[] succ = new int[64];

        Encoding encode(ScheduleSteps s, int r, int size, boolean xor) {
            int n = s.steps();
            invert(s, n);
            int[] succStart = this.succStart;
            int[] succ = this.succ;
            long[] out = buf;
            int w = 0;
            out[w++] = n;
            for (int i = 0; i < n; i++) {
                byte k = s.kind(i);
                if (k == Schedule.SLOTS) {
                    throw new IllegalArgumentException(s.name() + " meets in shared memory, which the host model has"
                            + " no cost for: simulate a message-based algorithm instead");
                }
                if (k == Schedule.INC) {
                    // the host model has no switches: in-network aggregation is the switch mode's
                    throw new IllegalArgumentException(s.name() + " exchanges with in-network aggregation switches:"
                            + " simulate it with --mode switch, not as a host schedule");
                }
                long rel = 0;
                long t = 0;
                if (k == Schedule.SEND || k == Schedule.RECV) {
                    // (peer − r) mod P with both in [0, P): one add where a division cost forty cycles a step
                    rel = xor ? s.peer(i) ^ r : s.peer(i) - r + (s.peer(i) < r ? size : 0);
                    t = s.tag(i);
                }
                int from = succStart[i];
                int to = succStart[i + 1];
                if (w + 4 + to - from > out.length) {
                    out = buf = Arrays.copyOf(out, Math.max(out.length * 2, w + 4 + to - from + 4 * (n - i)));
                }
                out[w++] = ((long) k << 56) | (t << 32) | rel;
                out[w++] = s.length(i);
                out[w++] = s.dependenciesFrom(i + 1) - s.dependenciesFrom(i);
                out[w++] = to - from;
                for (int q = from; q < to; q++) {
                    out[w++] = succ[q];
                }
            }
            len = w;
            hashed = false;
            return this;
        }

        /** The encoding's hash, computed when a table first asks for it. */
        int hash() {
            if (hashed) {
                return hash;
            }
            long[] out = buf;
            int w = len;
            // four independent chains: one chain of 31·h + x waited for each multiply (a barrier's 240 words)
            int h0 = 1;
            int h1 = 0;
            int h2 = 0;
            int h3 = 0;
            int q = 0;
            for (; q + 4 <= w; q += 4) {
                h0 = 31 * h0 + fold(out[q]);
                h1 = 31 * h1 + fold(out[q + 1]);
                h2 = 31 * h2 + fold(out[q + 2]);
                h3 = 31 * h3 + fold(out[q + 3]);
            }
            for (; q < w; q++) {
                h0 = 31 * h0 + fold(out[q]);
            }
            hash = ((h0 * 31 + h1) * 31 + h2) * 31 + h3;
            hashed = true;
            return hash;
        }

        private static int fold(long x) {
            return (int) (x ^ (x >>> 32));
        }

        /** Successor lists of {@code s}'s {@code n} steps: counted, summed, then filled in step order. */
        private void invert(ScheduleSteps s, int n) {
            int deps = s.dependenciesFrom(n);
            if (succStart.length < n + 1) {
                succStart = new int[Math.max(2 * succStart.length, n + 1)];
            }
            if (succ.length < deps) {
                succ = new int[Math.max(2 * succ.length, deps)];
            }
            int[] start = succStart;
            Arrays.fill(start, 0, n + 1, 0);
            for (int k = 0; k < deps; k++) {
                start[s.dependency(k) + 1]++;
            }
            for (int i = 0; i < n; i++) {
                start[i + 1] += start[i];
            }
            // fill each list from its start, moving the start on; afterwards start[d] is where d + 1's
            // list begins, so a shift by one restores the starts (no second array per rank)
            for (int i = 0; i < n; i++) {
                for (int k = s.dependenciesFrom(i), e = s.dependenciesFrom(i + 1); k < e; k++) {
                    succ[start[s.dependency(k)]++] = i;
                }
            }
            for (int i = n; i > 0; i--) {
                start[i] = start[i - 1];
            }
            start[0] = 0;
        }

        boolean sameAs(long[] pool, int from) {
            return Arrays.equals(buf, 0, len, pool, from, from + len);
        }

        boolean sameAs(Encoding e) {
            return len == e.len && Arrays.equals(buf, 0, len, e.buf, 0, len);
        }
    }

    /** Encodings → int, open addressing over copies of the encodings in one pool: no object per key. */
    private static final class EncodingTable {
        static final int ABSENT = Integer.MIN_VALUE;
        int[] slot = new int[64];
        int mask = 63;
        int entries;
        int[] hash = new int[16];
        int[] from = new int[16];
        int[] length = new int[16];
        int[] value = new int[16];
        long[] pool = new long[256];
        int used;

        int get(Encoding e) {
            for (int i = e.hash() & mask; ; i = (i + 1) & mask) {
                int k = slot[i] - 1;
                if (k < 0) {
                    return ABSENT;
                }
                if (hash[k] == e.hash() && length[k] == e.len && e.sameAs(pool, from[k])) {
                    return value[k];
                }
            }
        }

        /** Sets the value of {@code e}, adding it if absent. */
        void put(Encoding e, int v) {
            for (int i = e.hash() & mask; ; i = (i + 1) & mask) {
                int k = slot[i] - 1;
                if (k < 0) {
                    break;
                }
                if (hash[k] == e.hash() && length[k] == e.len && e.sameAs(pool, from[k])) {
                    value[k] = v;
                    return;
                }
            }
            if (entries == hash.length) {
                int c = entries * 2;
                hash = Arrays.copyOf(hash, c);
                from = Arrays.copyOf(from, c);
                length = Arrays.copyOf(length, c);
                value = Arrays.copyOf(value, c);
            }
            if (used + e.len > pool.length) {
                pool = Arrays.copyOf(pool, Math.max(pool.length * 2, used + e.len));
            }
            System.arraycopy(e.buf, 0, pool, used, e.len);
            int k = entries++;
            hash[k] = e.hash();
            from[k] = used;
            length[k] = e.len;
            value[k] = v;
            used += e.len;
            if (entries * 2 > mask + 1) {
                slot = new int[slot.length * 2];
                mask = slot.length - 1;
                for (int q = 0; q < entries; q++) {
                    insert(q);
                }
            } else {
                insert(k);
            }
        }

        private void insert(int k) {
            int i = hash[k] & mask;
            while (slot[i] != 0) {
                i = (i + 1) & mask;
            }
            slot[i] = k + 1;
        }
    }

    /** Accumulates distinct shapes into flat arrays. */
    private static final class Shapes {
        int shapes;
        int[] shapeStart = new int[17];
        int steps;
        byte[] kind = new byte[64];
        int[] relPeer = new int[64];
        boolean[] xor = new boolean[16];
        int[] tag = new int[64];
        long[] length = new long[64];
        int[] depCount = new int[64];
        int[] succStart = new int[65];
        int succs;
        int[] succ = new int[64];

        void add(Encoding e, boolean masks) {
            long[] enc = e.buf;
            if (shapes == xor.length) {
                xor = Arrays.copyOf(xor, shapes * 2);
            }
            xor[shapes] = masks;
            int n = (int) enc[0];
            if (steps + n > kind.length) {
                int c = Math.max(kind.length * 2, steps + n);
                kind = Arrays.copyOf(kind, c);
                relPeer = Arrays.copyOf(relPeer, c);
                tag = Arrays.copyOf(tag, c);
                length = Arrays.copyOf(length, c);
                depCount = Arrays.copyOf(depCount, c);
                succStart = Arrays.copyOf(succStart, c + 1);
            }
            int w = 1;
            for (int i = 0; i < n; i++) {
                long h = enc[w++];
                int j = steps + i;
                kind[j] = (byte) (h >>> 56);
                tag[j] = (int) ((h >>> 32) & 0xffffff);
                relPeer[j] = (int) h;
                length[j] = enc[w++];
                depCount[j] = (int) enc[w++];
                int ns = (int) enc[w++];
                if (succs + ns > succ.length) {
                    succ = Arrays.copyOf(succ, Math.max(succ.length * 2, succs + ns));
                }
                for (int q = 0; q < ns; q++) {
                    // local step indices, as the schedule has them
                    succ[succs++] = (int) enc[w++];
                }
                succStart[j + 1] = succs;
            }
            steps += n;
            if (shapes + 2 > shapeStart.length) {
                shapeStart = Arrays.copyOf(shapeStart, shapeStart.length * 2);
            }
            shapeStart[++shapes] = steps;
        }

        CompiledSchedules finish(int size, String name, int[] shapeOf, long total) {
            return new CompiledSchedules(size, name == null ? "?" : name, shapeOf, total,
                    Arrays.copyOf(shapeStart, shapes + 1), Arrays.copyOf(kind, steps), Arrays.copyOf(relPeer, steps),
                    Arrays.copyOf(xor, shapes), Arrays.copyOf(tag, steps), Arrays.copyOf(length, steps),
                    Arrays.copyOf(depCount, steps), Arrays.copyOf(succStart, steps + 1), Arrays.copyOf(succ, succs));
        }
    }
}

package io.tutti.sim;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
 * once and folded in, nothing is re-derived.
 *
 * <p>Only what timing depends on is kept: kind, peer, tag, length and dependencies. Buffers and
 * offsets are not (the simulator moves no data).
 */
public final class CompiledSchedules {
    final int size;
    final String name;
    /** Per rank: its shape. */
    final int[] shapeOf;
    /** Per rank: index of its first step in the per-(rank, step) arrays; size + 1 entries. */
    final int[] stepBase;
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
    /** Per shape step: its successors (local step indices) in succ[succStart[i] .. succStart[i+1]). */
    final int[] succStart;
    final int[] succ;
    final long totalSteps;

    private CompiledSchedules(int size, String name, int[] shapeOf, int[] stepBase, int[] shapeStart, byte[] kind,
                              int[] relPeer, boolean[] xor, int[] tag, long[] length, int[] depCount, int[] succStart,
                              int[] succ) {
        this.size = size;
        this.name = name;
        this.shapeOf = shapeOf;
        this.stepBase = stepBase;
        this.shapeStart = shapeStart;
        this.kind = kind;
        this.relPeer = relPeer;
        this.xor = xor;
        this.tag = tag;
        this.length = length;
        this.depCount = depCount;
        this.succStart = succStart;
        this.succ = succ;
        this.totalSteps = stepBase[size];
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
        return stepBase[r + 1] - stepBase[r];
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
        return xor[shapeOf[r]] ? r ^ relPeer[j] : (int) ((r + (long) relPeer[j]) % size);
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
        return compile(size, r -> algorithms.build(call, r, size, topo, algorithm), progress);
    }

    /** Folds in given schedules (rank r's at index r). */
    public static CompiledSchedules of(Schedule[] schedules) {
        return compile(schedules.length, r -> schedules[r], null);
    }

    /**
     * Folds in the schedules {@code source} gives for ranks 0 … size−1, one at a time;
     * {@code progress} (may be null) hears the fraction done now and then.
     */
    public static CompiledSchedules compile(int size, IntFunction<Schedule> source, DoubleConsumer progress) {
        if (size < 1) {
            throw new IllegalArgumentException("at least one rank, got " + size);
        }
        int[] shapeOf = new int[size];
        int[] stepBase = new int[size + 1];
        Map<Key, Integer> ids = new HashMap<>();
        // masks of ranks whose offsets made a new shape: -1 when seen once, a shape id once seen twice
        Map<Key, Integer> masks = new HashMap<>();
        Shapes shapes = new Shapes();
        String name = null;
        long total = 0;
        for (int r = 0; r < size; r++) {
            Schedule s = source.apply(r);
            if (s.rank() != r || s.size() != size) {
                throw new IllegalArgumentException("schedule " + r + " is for rank " + s.rank() + " of " + s.size());
            }
            if (name == null) {
                name = s.name();
            }
            long[] enc = encode(s, r, size, false);
            Key offsets = new Key(enc);
            Integer id = ids.get(offsets);
            if (id == null) {
                long[] masked = encode(s, r, size, true);
                Key m = new Key(masked);
                Integer seen = masks.get(m);
                if (seen != null && seen >= 0) {
                    id = seen;
                } else if (seen != null) {
                    // the second rank with these masks: they make a shape of their own from now on
                    id = shapes.shapes;
                    masks.put(m, id);
                    shapes.add(masked, true);
                } else {
                    id = shapes.shapes;
                    ids.put(offsets, id);
                    masks.put(m, -1);
                    shapes.add(enc, false);
                }
            }
            shapeOf[r] = id;
            total += s.steps();
            if (total >= Integer.MAX_VALUE) {
                throw new IllegalArgumentException("more than 2^31 steps over all ranks: too large to simulate");
            }
            stepBase[r + 1] = (int) total;
            if (progress != null && (r & 0xffff) == 0xffff) {
                progress.accept((double) (r + 1) / size);
            }
        }
        return shapes.finish(size, name, shapeOf, stepBase);
    }

    /** [steps, then per step: kind|tag|relPeer, length, ndeps, deps...]; {@code xor}: peers as masks. */
    private static long[] encode(Schedule s, int r, int size, boolean xor) {
        int n = s.steps();
        long[] out = new long[1 + 4 * n];
        int w = 0;
        out[w++] = n;
        for (int i = 0; i < n; i++) {
            byte k = s.kind(i);
            if (k == Schedule.SLOTS) {
                throw new IllegalArgumentException(s.name() + " meets in shared memory, which the host model has no"
                        + " cost for: simulate a message-based algorithm instead");
            }
            if (k == Schedule.INC) {
                // the host model has no switches: in-network aggregation is the switch mode's
                throw new IllegalArgumentException(s.name() + " exchanges with in-network aggregation switches: simulate"
                        + " it with --mode switch, not as a host schedule");
            }
            long rel = 0;
            long t = 0;
            if (k == Schedule.SEND || k == Schedule.RECV) {
                rel = xor ? s.peer(i) ^ r : Math.floorMod((long) s.peer(i) - r, (long) size);
                t = s.tag(i);
            }
            int[] deps = s.dependencies(i);
            if (w + 3 + deps.length > out.length) {
                out = Arrays.copyOf(out, Math.max(out.length * 2, w + 3 + deps.length + 4 * (n - i)));
            }
            out[w++] = ((long) k << 56) | (t << 32) | rel;
            out[w++] = s.length(i);
            out[w++] = deps.length;
            for (int d : deps) {
                out[w++] = d;
            }
        }
        return w == out.length ? out : Arrays.copyOf(out, w);
    }

    private record Key(long[] enc) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(enc, k.enc);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(enc);
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
        int[] depStart = new int[65];
        int deps;
        int[] dep = new int[64];

        void add(long[] enc, boolean masks) {
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
                depStart = Arrays.copyOf(depStart, c + 1);
            }
            int w = 1;
            for (int i = 0; i < n; i++) {
                long h = enc[w++];
                int j = steps + i;
                kind[j] = (byte) (h >>> 56);
                tag[j] = (int) ((h >>> 32) & 0xffffff);
                relPeer[j] = (int) h;
                length[j] = enc[w++];
                int nd = (int) enc[w++];
                depCount[j] = nd;
                if (deps + nd > dep.length) {
                    dep = Arrays.copyOf(dep, Math.max(dep.length * 2, deps + nd));
                }
                for (int d = 0; d < nd; d++) {
                    // shape-global index, so that successors can be inverted over all shapes at once
                    dep[deps++] = steps + (int) enc[w++];
                }
                depStart[j + 1] = deps;
            }
            steps += n;
            if (shapes + 2 > shapeStart.length) {
                shapeStart = Arrays.copyOf(shapeStart, shapeStart.length * 2);
            }
            shapeStart[++shapes] = steps;
        }

        CompiledSchedules finish(int size, String name, int[] shapeOf, int[] stepBase) {
            // successors: the inverse of the dependency lists, as local step indices
            int[] succStart = new int[steps + 1];
            for (int k = 0; k < deps; k++) {
                succStart[dep[k] + 1]++;
            }
            for (int i = 0; i < steps; i++) {
                succStart[i + 1] += succStart[i];
            }
            int[] fill = Arrays.copyOf(succStart, steps);
            int[] succ = new int[deps];
            int shape = 0;
            for (int j = 0; j < steps; j++) {
                while (shapeStart[shape + 1] <= j) {
                    shape++;
                }
                for (int k = depStart[j]; k < depStart[j + 1]; k++) {
                    succ[fill[dep[k]]++] = j - shapeStart[shape];
                }
            }
            return new CompiledSchedules(size, name == null ? "?" : name, shapeOf, stepBase,
                    Arrays.copyOf(shapeStart, shapes + 1), Arrays.copyOf(kind, steps), Arrays.copyOf(relPeer, steps),
                    Arrays.copyOf(xor, shapes), Arrays.copyOf(tag, steps), Arrays.copyOf(length, steps), Arrays.copyOf(depCount, steps),
                    succStart, succ);
        }
    }
}

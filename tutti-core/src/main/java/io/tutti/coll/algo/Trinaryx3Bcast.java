package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Trinaryx3 broadcast, after the algorithm of the K computer and FX100: the message is cut into
 * three parts and each part travels down its own pipelined ternary tree, so every rank receives
 * from three upstream ranks at once and the three trees share the load of forwarding.
 *
 * <p>Construction for any P. Let m = P − 1 non-root ranks, numbered x = 0..m−1 (relative rank
 * x + 1). Tree t (t = 0, 1, 2) orders them starting at x = s_t, position p holding
 * x = (s_t + p) mod m. The root feeds positions 0..f_t−1, and position p ≥ f_t hangs under position
 * (p − f_t)/3, so positions below c_t = ⌈(m − f_t)/3⌉ are the tree's inner ranks. With
 * s_0 = 0, s_1 = c_0, s_2 = c_0 + c_1, the three sets of inner ranks are disjoint as long as
 * c_0 + c_1 + c_2 ≤ m, which holds with f_t = 1 except when m ≡ 2 (mod 3); then the last tree
 * gets two tops (f_2 = 2). Every rank is therefore an inner rank of at most one tree and forwards at
 * most three copies of one third of the message: at most n bytes, like the root (which sends
 * n, or 4n/3 when m ≡ 2 mod 3). Each part is pipelined in segments down its tree.
 *
 * <p>Cost: about log3 P + s − 1 hops for s segments per part; a non-root rank sends at most n
 * bytes and receives n from three different peers (for P ≥ 4 but 6, where one rank gets two
 * parts straight from the root). The right choice for long messages
 * on networks where a rank can drive several links at once (as on a torus).
 *
 * <p>Tags: 0, 1, 2 (one per tree).
 */
public final class Trinaryx3Bcast implements ScheduleAlgorithm {
    static final String NAME = "bcast/trinaryx3";

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return "trinaryx3";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.root(), params.segment(), tempBase, after);
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, long segment, long tempBase, int after) {
        Blocks.checkBytes(NAME, bytes);
        Blocks.checkRoot(NAME, g.size(), root);
        long seg = Blocks.segment(NAME, segment, 1);
        int n = g.size();
        if (n == 1) {
            return after;
        }
        int m = n - 1;
        int vr = (g.me() - root + n) % n;
        long[] part = Blocks.split(bytes, 1, 3);
        int[] tops = tops(m);
        Blocks.Steps done = new Blocks.Steps();
        int start = 0;
        for (int t = 0; t < 3; t++) {
            int f = tops[t];
            int inner = m > f ? (m - f + 2) / 3 : 0;
            int from;
            int[] to;
            if (vr == 0) {
                from = -1;
                to = new int[Math.min(f, m)];
                for (int p = 0; p < to.length; p++) {
                    to[p] = rankAt(g, root, start, p, m);
                }
            } else {
                int p = Math.floorMod(vr - 1 - start, m);
                from = p < f ? g.rank(root) : rankAt(g, root, start, (p - f) / 3, m);
                int first = f + 3 * p;
                to = new int[Math.max(0, Math.min(3, m - first))];
                for (int c = 0; c < to.length; c++) {
                    to[c] = rankAt(g, root, start, first + c, m);
                }
            }
            done.add(ChainBcast.pipe(b, g.tag(t), from, to, part[t], part[t + 1] - part[t], seg, after));
            start += inner;
        }
        return done.join(b, after);
    }

    /** How many ranks the root feeds in each tree, for m non-root ranks. */
    static int[] tops(int m) {
        return new int[] {1, 1, m % 3 == 2 ? 2 : 1};
    }

    /** The group rank at position p of the tree whose order starts at non-root rank {@code start}. */
    private static int rankAt(Group g, int root, int start, int p, int m) {
        int x = (start + p) % m;
        return g.rank((x + 1 + root) % (m + 1));
    }
}

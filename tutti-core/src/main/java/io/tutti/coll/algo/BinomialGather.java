package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

/**
 * Gather up a binomial tree rooted at the root: a rank collects its subtree's blocks, in tree
 * order, contiguously in scratch, and sends them to its parent in one message. ⌈log2 P⌉ rounds
 * and P − 1 messages; the root receives ⌈log2 P⌉ of them. The right choice for small blocks, where
 * the number of messages the root handles dominates. Every rank must know every block size, so
 * it serves gather, not gatherv.
 *
 * <p>Tags: 0.
 */
public final class BinomialGather implements ScheduleAlgorithm {
    static final String NAME = "gather/binomial";

    @Override
    public Kind kind() {
        return Kind.GATHER;
    }

    @Override
    public String name() {
        return "binomial";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.root(), call.inPlace(), tempBase, after);
    }

    /** Layout as {@link LinearGather}; scratch holds a subtree's blocks in tree order. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, long tempBase,
                    int after) {
        return emit(b, g, bytes, displs, root, inPlace, RECV_BUFFER, 0, tempBase, after);
    }

    /** The root's blocks land in {@code dst} from {@code dstBase} (an intercommunicator's leader gathers into scratch). */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, byte dst,
                    long dstBase, long tempBase, int after) {
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        TreeLayout t = new TreeLayout(bytes, root, n);
        int vr = t.tree(g.me());
        int span = t.span(vr);
        b.temp(tempBase + t.bytes(vr, vr + span));
        Blocks.Steps got = new Blocks.Steps();
        int own = ScheduleBuilder.NONE;
        if (vr != 0) {
            own = b.copy(TEMP_BUFFER, tempBase, SEND_BUFFER, 0, t.size(vr), after);
        } else if (!inPlace) {
            own = b.copy(dst, dstBase + displs[root], SEND_BUFFER, 0, bytes[root], after);
        }
        for (int mask = 1; mask < span; mask <<= 1) {
            int child = vr + mask;
            int childSpan = Math.min(mask, n - child);
            got.add(b.recv(g.rank(t.real(child)), g.tag(0), TEMP_BUFFER, tempBase + t.bytes(vr, child),
                    t.bytes(child, child + childSpan), after));
        }
        if (vr != 0) {
            got.add(own);
            int parent = vr - (vr & -vr);
            return b.send(g.rank(t.real(parent)), g.tag(0), TEMP_BUFFER, tempBase, t.bytes(vr, vr + span),
                    got.join(b, after));
        }
        // the root: every other block from scratch to its place
        int all = got.join(b, after);
        Blocks.Steps done = new Blocks.Steps();
        done.add(own);
        for (int v = 1; v < n; v++) {
            done.add(b.copy(dst, dstBase + displs[t.real(v)], TEMP_BUFFER, tempBase + t.bytes(0, v), t.size(v), all));
        }
        done.add(all);
        return done.join(b, after);
    }

    /** Tree order: tree rank t is group rank (t + root) mod P; a subtree is a range of tree ranks. */
    static final class TreeLayout {
        private final long[] prefix;
        private final int root;
        private final int n;

        TreeLayout(long[] bytes, int root, int n) {
            this.root = root;
            this.n = n;
            this.prefix = new long[n + 1];
            for (int t = 0; t < n; t++) {
                prefix[t + 1] = prefix[t] + bytes[real(t)];
            }
        }

        int real(int t) {
            return (t + root) % n;
        }

        int tree(int v) {
            return (v - root + n) % n;
        }

        long size(int t) {
            return prefix[t + 1] - prefix[t];
        }

        /** Bytes of tree ranks [from, to). */
        long bytes(int from, int to) {
            return prefix[to] - prefix[from];
        }

        /** Tree ranks in the subtree of {@code t}, itself included. */
        int span(int t) {
            int low = t == 0 ? Integer.highestOneBit(Math.max(1, n - 1)) << 1 : t & -t;
            return Math.min(low, n - t);
        }
    }
}

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
 * Scatter down a binomial tree: the root lays the blocks out in tree order in scratch and sends
 * each child its subtree's blocks in one message; every rank keeps its own block and forwards the
 * rest. ⌈log2 P⌉ rounds and P − 1 messages, the root sending ⌈log2 P⌉ of them. The right choice
 * for small blocks; every rank must know every block size, so it serves scatter, not scatterv.
 *
 * <p>Tags: 0.
 */
public final class BinomialScatter implements ScheduleAlgorithm {
    static final String NAME = "scatter/binomial";

    @Override
    public Kind kind() {
        return Kind.SCATTER;
    }

    @Override
    public String name() {
        return "binomial";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.root(), call.inPlace(), tempBase, after);
    }

    /** Layout as {@link LinearScatter}; scratch holds a subtree's blocks in tree order. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, long tempBase,
                    int after) {
        return emit(b, g, bytes, displs, root, inPlace, SEND_BUFFER, 0, tempBase, after);
    }

    /** The root's blocks are in {@code src} from {@code srcBase} (an intercommunicator's leader scatters from scratch). */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, byte src,
                    long srcBase, long tempBase, int after) {
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        BinomialGather.TreeLayout t = new BinomialGather.TreeLayout(bytes, root, n);
        int vr = t.tree(g.me());
        int span = t.span(vr);
        b.temp(tempBase + t.bytes(vr, vr + span));
        Blocks.Steps done = new Blocks.Steps();
        int have;
        if (vr == 0) {
            Blocks.Steps packed = new Blocks.Steps();
            for (int v = 1; v < n; v++) {
                packed.add(b.copy(TEMP_BUFFER, tempBase + t.bytes(0, v), src, srcBase + displs[t.real(v)], t.size(v),
                        after));
            }
            have = packed.join(b, after);
            if (!inPlace) {
                done.add(b.copy(RECV_BUFFER, 0, src, srcBase + displs[root], bytes[root], after));
            }
        } else {
            int parent = vr - (vr & -vr);
            have = b.recv(g.rank(t.real(parent)), g.tag(0), TEMP_BUFFER, tempBase, t.bytes(vr, vr + span), after);
            done.add(b.copy(RECV_BUFFER, 0, TEMP_BUFFER, tempBase, t.size(vr), have));
        }
        // largest subtree first: it has the longest way to go
        for (int mask = Integer.highestOneBit(Math.max(1, span - 1)); mask >= 1; mask >>= 1) {
            int child = vr + mask;
            if (mask < span && child < n) {
                int childSpan = Math.min(mask, n - child);
                done.add(b.send(g.rank(t.real(child)), g.tag(0), TEMP_BUFFER, tempBase + t.bytes(vr, child),
                        t.bytes(child, child + childSpan), have));
            }
        }
        done.add(have);
        return done.join(b, after);
    }
}

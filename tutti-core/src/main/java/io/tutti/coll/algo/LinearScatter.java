package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;

/**
 * Scatter by direct sends from the root, all posted at once. One round; the root sends (P − 1)
 * blocks. Needs no rank to know another's count, so it serves scatterv, and it is the right
 * choice for large blocks.
 *
 * <p>Tags: 0.
 */
public final class LinearScatter implements ScheduleAlgorithm {
    static final String NAME = "scatter/linear";

    @Override
    public Kind kind() {
        return Kind.SCATTER;
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.root(), call.inPlace(), tempBase, after);
    }

    /** Root's block for virtual rank v at SEND_BUFFER {@code displs[v]}; each rank's lands at RECV_BUFFER 0. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, long tempBase,
                    int after) {
        Blocks.checkRoot(NAME, g.size(), root);
        int me = g.me();
        if (me != root) {
            return b.recv(g.rank(root), g.tag(0), RECV_BUFFER, 0, bytes[me], after);
        }
        Blocks.Steps done = new Blocks.Steps();
        for (int v = 0; v < g.size(); v++) {
            if (v == root) {
                if (!inPlace) {
                    done.add(b.copy(RECV_BUFFER, 0, SEND_BUFFER, displs[v], bytes[v], after));
                }
            } else {
                done.add(b.send(g.rank(v), g.tag(0), SEND_BUFFER, displs[v], bytes[v], after));
            }
        }
        return done.join(b, after);
    }
}

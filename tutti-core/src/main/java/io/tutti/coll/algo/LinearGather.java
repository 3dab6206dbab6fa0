package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;

/**
 * Gather by direct sends: every rank sends its block to the root, which posts all receives at
 * once. One round; the root receives (P − 1) blocks. Needs no rank to know another's count, so it
 * serves gatherv, and it is the right choice for large blocks, where a tree only forwards data
 * twice.
 *
 * <p>Tags: 0.
 */
public final class LinearGather implements ScheduleAlgorithm {
    static final String NAME = "gather/linear";

    @Override
    public Kind kind() {
        return Kind.GATHER;
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.root(), call.inPlace(), tempBase, after);
    }

    /** Block of virtual rank v: {@code bytes[v]} from SEND_BUFFER; at the root to RECV_BUFFER at {@code displs[v]}. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, int root, boolean inPlace, long tempBase,
                    int after) {
        Blocks.checkRoot(NAME, g.size(), root);
        int me = g.me();
        if (me != root) {
            return b.send(g.rank(root), g.tag(0), SEND_BUFFER, 0, bytes[me], after);
        }
        Blocks.Steps done = new Blocks.Steps();
        for (int v = 0; v < g.size(); v++) {
            if (v == root) {
                if (!inPlace) {
                    done.add(b.copy(RECV_BUFFER, displs[v], SEND_BUFFER, 0, bytes[v], after));
                }
            } else {
                done.add(b.recv(g.rank(v), g.tag(0), RECV_BUFFER, displs[v], bytes[v], after));
            }
        }
        return done.join(b, after);
    }
}

package io.tutti.coll.algo;

import io.tutti.coll.algo.Blocks;
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
public final class LinearScatter {
    static final String NAME = "scatter/linear";

    private LinearScatter() {
    }

    public static Schedule build(int rank, int size, long[] bytes, long[] displs, int root, boolean inPlace) {
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        emit(b, Group.all(rank, size), bytes, displs, root, inPlace, 0, ScheduleBuilder.NONE);
        return b.build();
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

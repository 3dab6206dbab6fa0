package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;

/**
 * Scatter by direct sends from the root, one after another in rank order, each posted when the one
 * before has completed: the blocking loop of MPICH 1.x ({@code intra_Scatter}, 1995–2002), the
 * lineage of [BCL-3]'s MPI. A send that waits for a rendezvous handshake then costs its round trip
 * on the critical path, which {@link LinearScatter} overlaps; so this is never faster, and no row
 * chooses it: it serves to model MPI libraries of that lineage ([BCL-3] table 5.13,
 * docs/sim/README.md).
 *
 * <p>Tags: 0.
 */
public final class SequentialScatter implements ScheduleAlgorithm {
    static final String NAME = "scatter/sequential";

    @Override
    public Kind kind() {
        return Kind.SCATTER;
    }

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call, false, after);
    }

    /**
     * The root's loop in rank order, each step after the one before: sends of the blocks, or with
     * {@code gather} receives of them (at RECV_BUFFER {@code displs[v]}, as {@link LinearGather}).
     */
    static int emit(ScheduleBuilder b, Group g, CollectiveCall call, boolean gather, int after) {
        Blocks.checkRoot(gather ? SequentialGather.NAME : NAME, g.size(), call.root());
        long[] bytes = call.blocks();
        long[] displs = call.displs();
        int root = call.root();
        int me = g.me();
        if (me != root) {
            return gather ? b.send(g.rank(root), g.tag(0), SEND_BUFFER, 0, bytes[me], after)
                    : b.recv(g.rank(root), g.tag(0), RECV_BUFFER, 0, bytes[me], after);
        }
        int previous = after;
        for (int v = 0; v < g.size(); v++) {
            if (v != root) {
                previous = gather ? b.recv(g.rank(v), g.tag(0), RECV_BUFFER, displs[v], bytes[v], previous)
                        : b.send(g.rank(v), g.tag(0), SEND_BUFFER, displs[v], bytes[v], previous);
            } else if (!call.inPlace()) {
                // the root's own block in its turn, as MPICH's loop sends it to itself
                previous = gather ? b.copy(RECV_BUFFER, displs[v], SEND_BUFFER, 0, bytes[v], previous)
                        : b.copy(RECV_BUFFER, 0, SEND_BUFFER, displs[v], bytes[v], previous);
            }
        }
        return previous;
    }
}

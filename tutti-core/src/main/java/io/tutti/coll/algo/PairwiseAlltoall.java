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
 * Alltoall by pairwise exchange: in round k = 1..P − 1 every rank sends its block for rank r + k
 * and receives the block of rank r − k, one round after the other, so that at most one send and one
 * receive are in flight and no rank is flooded. P − 1 rounds, each rank sending everything but its
 * own block once: the right choice for medium and large blocks, and it takes any block sizes.
 *
 * <p>Tags: 0 (each pair exchanges once per direction).
 */
public final class PairwiseAlltoall implements ScheduleAlgorithm {
    static final String NAME = "alltoall/pairwise";

    @Override
    public Kind kind() {
        return Kind.ALLTOALL;
    }

    @Override
    public String name() {
        return "pairwise";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.sendBlocks(), call.sendDispls(), call.blocks(), call.displs(), call.inPlace(),
                false, tempBase, after);
    }

    /**
     * Blocks for virtual rank v at SEND_BUFFER {@code sendDispls[v]}, from v at RECV_BUFFER
     * {@code recvDispls[v]}; in place, the outgoing blocks are first copied from RECV_BUFFER to
     * scratch. {@code allAtOnce} posts every exchange at once instead of round by round.
     */
    static int emit(ScheduleBuilder b, Group g, long[] sendBytes, long[] sendDispls, long[] recvBytes,
                    long[] recvDispls, boolean inPlace, boolean allAtOnce, long tempBase, int after) {
        int n = g.size();
        int me = g.me();
        byte src = SEND_BUFFER;
        long srcBase = 0;
        int ready = after;
        if (inPlace) {
            long end = 0;
            for (int v = 0; v < n; v++) {
                end = Math.max(end, recvDispls[v] + recvBytes[v]);
            }
            b.temp(tempBase + end);
            ready = b.copy(TEMP_BUFFER, tempBase, RECV_BUFFER, 0, end, after);
            src = TEMP_BUFFER;
            srcBase = tempBase;
        }
        Blocks.Steps done = new Blocks.Steps();
        if (!inPlace) {
            done.add(b.copy(RECV_BUFFER, recvDispls[me], SEND_BUFFER, sendDispls[me], sendBytes[me], ready));
        }
        int previous = ready;
        for (int k = 1; k < n; k++) {
            int to = (me + k) % n;
            int from = (me - k + n) % n;
            int sent = b.send(g.rank(to), g.tag(0), src, srcBase + sendDispls[to], sendBytes[to], previous);
            int got = b.recv(g.rank(from), g.tag(0), RECV_BUFFER, recvDispls[from], recvBytes[from], previous);
            if (allAtOnce) {
                done.add(sent);
                done.add(got);
            } else {
                previous = b.join(sent, got);
            }
        }
        done.add(previous);
        return done.join(b, after);
    }
}

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
 * Allgather by Bruck's algorithm: scratch slot i holds the block of rank (r + i) mod P; in round k
 * (distance d = 2^k) a rank sends its first min(d, P − d) slots to rank r − d and receives as many
 * from rank r + d after them. ⌈log2 P⌉ rounds for any P (no folding), one message per round, each
 * rank sending P − 1 blocks in all; then every block is copied to its place. The right choice for
 * small blocks when P is not a power of two.
 *
 * <p>Tags: 0..⌈log2 P⌉ − 1.
 */
public final class BruckAllgather implements ScheduleAlgorithm {
    static final String NAME = "allgather/bruck";

    @Override
    public Kind kind() {
        return Kind.ALLGATHER;
    }

    @Override
    public String name() {
        return "bruck";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.inPlace(), tempBase, after);
    }

    /** Layout as {@link RingAllgather}. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, boolean inPlace, long tempBase,
                    int after) {
        int n = g.size();
        int me = g.me();
        // slot i of this rank: block (me + i) mod n, at slot[i] in scratch
        long[] slot = new long[n + 1];
        for (int i = 0; i < n; i++) {
            slot[i + 1] = slot[i] + bytes[(me + i) % n];
        }
        b.temp(tempBase + slot[n]);
        int have = inPlace ? b.copy(TEMP_BUFFER, tempBase, RECV_BUFFER, displs[me], bytes[me], after)
                : b.copy(TEMP_BUFFER, tempBase, SEND_BUFFER, 0, bytes[me], after);
        int sent = after;
        for (int k = 0, d = 1; d < n; k++, d <<= 1) {
            int cnt = Math.min(d, n - d);
            int to = g.rank((me - d + n) % n);
            int from = g.rank((me + d) % n);
            sent = b.send(to, g.tag(k), TEMP_BUFFER, tempBase, slot[cnt], have);
            // the sender's slots [0, cnt) are this rank's slots [d, d + cnt)
            int got = b.recv(from, g.tag(k), TEMP_BUFFER, tempBase + slot[d], slot[d + cnt] - slot[d], have);
            have = b.join(sent, got);
        }
        Blocks.Steps done = new Blocks.Steps();
        for (int i = inPlace ? 1 : 0; i < n; i++) {
            int v = (me + i) % n;
            done.add(b.copy(RECV_BUFFER, displs[v], TEMP_BUFFER, tempBase + slot[i], bytes[v], have));
        }
        done.add(have);
        return done.join(b, after);
    }
}

package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;

/**
 * Broadcast down a binomial tree rooted at {@code root}: a rank receives the whole message once
 * from its parent, then forwards it to its children, largest subtree first.
 *
 * <p>Cost: ⌈log2 P⌉ rounds (the longest chain of dependent messages is ⌊log2 P⌋); the root sends
 * ⌈log2 P⌉·n bytes, a leaf nothing. The right choice for short messages; for long ones, the root's
 * repeated full-size sends dominate.
 *
 * <p>Tags: 0.
 */
public final class BinomialBcast implements ScheduleAlgorithm {
    static final String NAME = "bcast/binomial";

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return "binomial";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.root(), tempBase, after);
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, long tempBase, int after) {
        return emit(b, g, bytes, root, RECV_BUFFER, 0, after);
    }

    /** Data in {@code buf} at {@code off} (an intercommunicator's leader broadcasts from scratch). */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, byte buf, long off, int after) {
        Blocks.checkBytes(NAME, bytes);
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        int vr = (g.me() - root + n) % n;
        int have = after;
        Blocks.Steps done = new Blocks.Steps();
        int mask = 1;
        while (mask < n) {
            if ((vr & mask) != 0) {
                have = b.recv(g.rank((vr - mask + root) % n), g.tag(0), buf, off, bytes, after);
                done.add(have);
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < n) {
                done.add(b.send(g.rank((vr + mask + root) % n), g.tag(0), buf, off, bytes, have));
            }
        }
        return done.join(b, after);
    }
}

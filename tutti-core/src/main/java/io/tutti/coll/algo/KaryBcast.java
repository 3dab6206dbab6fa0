package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;

/**
 * Broadcast down a k-ary tree in breadth-first order from the root: relative rank v receives the
 * whole message from (v − 1)/k and forwards it to k·v + 1 … k·v + k.
 *
 * <p>Cost: the tree's height ⌈log_k((k − 1)P + 1)⌉ − 1 hops, each costing up to k sends at the
 * forwarding rank; an inner rank sends k·n bytes. k = 2 (binary) suits short messages on networks
 * where a rank can drive a few sends at once; larger k trades depth for fan-out.
 *
 * <p>Tags: 0.
 */
public final class KaryBcast implements ScheduleAlgorithm {
    static final String NAME = "bcast/kary";

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return "kary";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.root(), params.kary(), tempBase, after);
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, int k, long tempBase, int after) {
        Blocks.checkBytes(NAME, bytes);
        Blocks.checkRoot(NAME, g.size(), root);
        if (k < 2) {
            throw new IllegalArgumentException(NAME + ": a node needs at least 2 children, got k = " + k);
        }
        int n = g.size();
        int vr = (g.me() - root + n) % n;
        Blocks.Steps done = new Blocks.Steps();
        int have = after;
        if (vr > 0) {
            have = b.recv(g.rank(((vr - 1) / k + root) % n), g.tag(0), RECV_BUFFER, 0, bytes, after);
            done.add(have);
        }
        for (long c = (long) k * vr + 1; c <= (long) k * vr + k && c < n; c++) {
            done.add(b.send(g.rank((int) ((c + root) % n)), g.tag(0), RECV_BUFFER, 0, bytes, have));
        }
        return done.join(b, after);
    }
}

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
 * Alltoall by Bruck's algorithm for equal blocks: rotate the blocks so that slot i holds the one
 * for rank r + i; in round k (d = 2^k) pack the slots whose index has bit k set, send them to
 * rank r + d and unpack what rank r − d sends into the same slots; finally slot i holds the block
 * from rank r − i. ⌈log2 P⌉ rounds of about P/2 blocks each: fewer, larger messages than pairwise
 * exchange, so the right choice for small blocks on many ranks. Uneven blocks are refused.
 *
 * <p>Tags: 0..⌈log2 P⌉ − 1.
 */
public final class BruckAlltoall implements ScheduleAlgorithm {
    static final String NAME = "alltoall/bruck";

    /** Whether every block, sent and received, has the same size. */
    static boolean supports(long[] sendBytes, long[] recvBytes) {
        if (sendBytes == null || recvBytes == null || sendBytes.length == 0) {
            return false;
        }
        for (int v = 0; v < sendBytes.length; v++) {
            if (sendBytes[v] != sendBytes[0] || recvBytes[v] != sendBytes[0]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Kind kind() {
        return Kind.ALLTOALL;
    }

    @Override
    public String name() {
        return "bruck";
    }

    /** Only blocks of one size, sent and received. */
    @Override
    public boolean serves(CollectiveCall call, Params params) {
        return supports(call.sendBlocks(), call.blocks());
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.sendBlocks(), call.sendDispls(), call.blocks(), call.displs(), call.inPlace(),
                tempBase, after);
    }

    /** Layout as {@link PairwiseAlltoall}. */
    static int emit(ScheduleBuilder b, Group g, long[] sendBytes, long[] sendDispls, long[] recvBytes,
                    long[] recvDispls, boolean inPlace, long tempBase, int after) {
        if (!supports(sendBytes, recvBytes)) {
            throw new IllegalArgumentException("Bruck's alltoall needs blocks of one size on every rank");
        }
        int n = g.size();
        int me = g.me();
        long s = sendBytes[0];
        int maxPacked = n / 2 + 1;
        long slots = tempBase;
        long pack = slots + n * s;
        long unpack = pack + maxPacked * s;
        b.temp(unpack + maxPacked * s);
        byte src = inPlace ? RECV_BUFFER : SEND_BUFFER;
        long[] srcDispls = inPlace ? recvDispls : sendDispls;
        Blocks.Steps rotated = new Blocks.Steps();
        for (int i = 0; i < n; i++) {
            rotated.add(b.copy(TEMP_BUFFER, slots + i * s, src, srcDispls[(me + i) % n], s, after));
        }
        int have = rotated.join(b, after);
        for (int k = 0, d = 1; d < n; k++, d <<= 1) {
            Blocks.Steps packed = new Blocks.Steps();
            int count = 0;
            for (int i = 0; i < n; i++) {
                if ((i & d) != 0) {
                    packed.add(b.copy(TEMP_BUFFER, pack + count * s, TEMP_BUFFER, slots + i * s, s, have));
                    count++;
                }
            }
            int ready = packed.join(b, have);
            int sent = b.send(g.rank((me + d) % n), g.tag(k), TEMP_BUFFER, pack, count * s, ready);
            int got = b.recv(g.rank((me - d + n) % n), g.tag(k), TEMP_BUFFER, unpack, count * s, have);
            Blocks.Steps unpacked = new Blocks.Steps();
            unpacked.add(sent);
            for (int i = 0, c = 0; i < n; i++) {
                if ((i & d) != 0) {
                    unpacked.add(b.copy(TEMP_BUFFER, slots + i * s, TEMP_BUFFER, unpack + c * s, s, got, ready));
                    c++;
                }
            }
            have = unpacked.join(b, have);
        }
        Blocks.Steps done = new Blocks.Steps();
        for (int i = 0; i < n; i++) {
            done.add(b.copy(RECV_BUFFER, recvDispls[(me - i + n) % n], TEMP_BUFFER, slots + i * s, s, have));
        }
        done.add(have);
        return done.join(b, after);
    }
}

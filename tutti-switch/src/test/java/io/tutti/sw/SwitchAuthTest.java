package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.wire.MessageType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who may set up, join and release a group, and add to it ({@link SwitchFabric}): with a key only
 * leaders whose control packets carry a valid, fresh tag; with or without one, data only from
 * senders that carry the member's token.
 */
@Timeout(30)
class SwitchAuthTest extends SwitchFabric {
    static final IncKey KEY = IncKey.of(bytes(0x5A));
    static final IncKey OTHER = IncKey.of(bytes(0x3C));
    static final InetSocketAddress INTRUDER = addr(66);

    static byte[] bytes(int fill) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }

    /** Spine and ToRs with {@code key}. */
    void keyed(IncKey key) {
        build(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(SPINE), List.of()).withKey(key),
                SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(SPINE)).withKey(key),
                SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(TOR2), List.of(SPINE)).withKey(key));
    }

    /** The fail cause of {@code leader}'s last notify reply for {@link #GROUP}. */
    int notifyReply(int leader) {
        List<ByteBuffer> r = replies(leader, MessageType.INC_CTRL).stream()
                .filter(b -> kind(b) == NOTIFY_REPLY && group(b) == GROUP).toList();
        assertFalse(r.isEmpty(), "leader " + leader + " got a notify reply");
        return ctrlShort(r.getLast(), C_FAIL);
    }

    /** Delivers {@code notify} from leader 0 and checks that ToR 1 refused it with {@code cause}, counted, no group made. */
    void assertRefused(ByteBuffer notify, int cause) {
        wire.add(new Packet(LEADER[0], TOR1, notify));
        run();
        assertEquals(cause, notifyReply(0));
        assertEquals(1, tor1.counters().refused);
        assertEquals(0, tor1.groups());
    }

    void contributeAll(int req) {
        for (int l = 0; l < 4; l++) {
            send(l, data(l, req, new int[] {l + 1}, (short) 0));
        }
        run();
    }

    void assertEveryLeaderGot(int sum) {
        for (int l = 0; l < 4; l++) {
            assertArrayEquals(new int[] {sum}, ints(results(l).getLast()), "leader " + l);
        }
    }

    @Test
    void aSetUpTaggedWithTheSwitchesKeyIsAcceptedAndAggregates() {
        keyed(KEY);
        leaderKey = KEY;
        assertArrayEquals(new int[4], setUp(GROUP));
        contributeAll(0);
        assertEveryLeaderGot(10);
        for (AggregationSwitch sw : List.of(spine, tor1, tor2)) {
            assertEquals(0, sw.counters().refused, "the ToRs' tags pass at the spine and the spine's at the ToRs");
        }
    }

    @Test
    void aNotifyWithoutATagOrWithAnotherKeysIsRefusedAndCounted() {
        keyed(KEY);
        send(0, control(NOTIFY, 0, GROUP));
        run();
        assertEquals(FAIL_AUTH, notifyReply(0));
        leaderKey = OTHER;
        send(1, control(NOTIFY, 1, GROUP));
        run();
        assertEquals(FAIL_AUTH, notifyReply(1));
        assertEquals(2, tor1.counters().refused);
        assertEquals(0, tor1.groups(), "no group from either");
        assertEquals(0, spine.groups());
    }

    @Test
    void theTagCoversThePacketSoAChangedFieldIsRefused() {
        keyed(KEY);
        ByteBuffer n = control(NOTIFY, 0, GROUP);
        seal(n, KEY);
        ctrlShort(n, C_LOCAL_SIZE, 1);
        assertRefused(n, FAIL_AUTH);
    }

    @Test
    void aReplayedNotifyIsRefusedAndDoesNotMoveTheMembersResults() {
        keyed(KEY);
        ByteBuffer n = control(NOTIFY, 0, GROUP);
        seal(n, KEY);
        ByteBuffer recorded = ByteBuffer.allocate(n.limit()).order(ByteOrder.LITTLE_ENDIAN).put(n.duplicate());
        leaderKey = KEY;
        wire.add(new Packet(LEADER[0], TOR1, n));
        run();
        assertArrayEquals(new int[4], setUp(GROUP));
        // the same bytes from elsewhere, within the time window: a replay, dropped without an answer
        wire.add(new Packet(INTRUDER, TOR1, recorded.flip()));
        run();
        assertEquals(1, tor1.counters().refused);
        assertNull(inbox.get(INTRUDER));
        contributeAll(0);
        assertEveryLeaderGot(10);
        assertNull(inbox.get(INTRUDER), "leader 0's results still go to leader 0");
    }

    @Test
    void aNotifyOutsideTheTimeWindowIsRefusedAsStale() {
        keyed(KEY);
        ByteBuffer n = control(NOTIFY, 0, GROUP);
        seal(n, KEY);
        clock += AUTH_WINDOW_MILLIS + 1;
        assertRefused(n, FAIL_STALE);
    }

    @Test
    void aReleaseWithoutTheKeyLeavesTheGroup() {
        keyed(KEY);
        leaderKey = KEY;
        setUp(GROUP);
        leaderKey = null;
        send(0, control(RELEASE, 0, GROUP));
        send(1, control(RELEASE, 1, GROUP));
        run();
        assertEquals(2, tor1.counters().refused);
        assertEquals(1, tor1.groups());
        assertEquals(FAIL_AUTH, ctrlShort(replies(0, MessageType.INC_CTRL).getLast(), C_FAIL));
    }

    @Test
    void aForgedSpineReplyIsNotRelayedNorTakenForTheSpine() {
        keyed(KEY);
        leaderKey = KEY;
        send(0, control(QUERY, 0, GROUP));
        run();
        inbox.clear();
        // a reply that claims to come from spine 9, for leader 0, from elsewhere and tagged with another key
        ByteBuffer r = control(QUERY_REPLY, 0, GROUP);
        ctrlInt(r, C_SPINE_ID, 9);
        ctrlInt(r, C_ORIGIN_IP, ByteBuffer.wrap(LEADER[0].getAddress().getAddress()).order(ByteOrder.LITTLE_ENDIAN)
                .getInt());
        ctrlShort(r, C_ORIGIN_PORT, LEADER[0].getPort());
        seal(r, OTHER);
        wire.add(new Packet(INTRUDER, TOR1, r));
        run();
        assertEquals(1, tor1.counters().refused);
        assertTrue(inbox.isEmpty(), "nothing relayed");
        assertArrayEquals(new int[4], setUp(GROUP));
        assertNull(inbox.get(INTRUDER), "the notify went to the real spine");
        assertEquals(1, spine.groups());
    }

    @Test
    void aForgedContributionFromANonMemberIsDroppedAndCounted() {
        keyed(KEY);
        leaderKey = KEY;
        setUp(GROUP);
        // leader 0's place, from elsewhere, without its token: with no token, with a guessed one
        for (long guess : new long[] {0, tokenOf(0) + 1}) {
            ByteBuffer forged = data(0, 0, new int[] {1_000_000}, (short) 0);
            token(forged, guess);
            wire.add(new Packet(INTRUDER, TOR1, forged));
        }
        run();
        assertEquals(2, tor1.counters().wrongToken);
        contributeAll(0);
        assertEveryLeaderGot(10);
    }

    @Test
    void aForgedResultFromAboveIsDroppedAndCounted() {
        keyed(KEY);
        leaderKey = KEY;
        setUp(GROUP);
        send(0, data(0, 0, new int[] {1}, (short) 0));
        send(1, data(1, 0, new int[] {2}, (short) 0));
        run();
        // ToR 1 waits for the spine's result of request 0: a result without its token is not one
        ByteBuffer forged = data(0, 0, new int[] {1_000_000}, FLAG_RESULT);
        wire.add(new Packet(SPINE, TOR1, forged));
        run();
        assertEquals(1, tor1.counters().wrongToken);
        assertTrue(results(0).isEmpty());
        send(2, data(2, 0, new int[] {3}, (short) 0));
        send(3, data(3, 0, new int[] {4}, (short) 0));
        run();
        assertEveryLeaderGot(10);
    }

    @Test
    void withoutAKeyGroupsComeFromAnyoneButAMemberKeepsItsPlace() {
        leaderKey = null;
        assertArrayEquals(new int[4], setUp(GROUP));
        assertEquals(0, tor1.counters().refused);
        // another notify for leader 0's place, with another token: refused while leader 0 holds it
        ByteBuffer n = control(NOTIFY, 0, GROUP);
        token(n, 999);
        wire.add(new Packet(INTRUDER, TOR1, n));
        run();
        assertEquals(FAIL_MISMATCH, ctrlShort(inbox.get(INTRUDER).getFirst(), C_FAIL));
        contributeAll(0);
        assertEveryLeaderGot(10);
    }
}

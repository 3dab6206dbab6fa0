package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.HEADER;
import static io.tutti.net.DatagramDescriptor.RAIL_REPLY;

import io.tutti.transport.RailCounters;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Rails an operator takes out of service and brings back ({@code tutti rail}): this rank's own
 * choice ({@link #command}), told to every peer in a RAIL frame so that both directions leave the
 * rail, and the peers' choices, taken from theirs. A rail out of service toward a peer carries
 * no data and no acknowledgement to it, only the heartbeats that keep its health known; what it
 * carried and is not yet acknowledged goes again on the others at once (the receiver drops any
 * copy it already has).
 * The state is a mask numbered by an epoch: a RAIL frame says the sender's mask and epoch and the
 * latest epoch of the receiver's it took, and is sent again every RTO until the peer echoes it.
 * The last rail of the pair that works stays in service whatever the operators said, so a stream
 * never stops; this rank's own last rail is refused outright ({@link RailCounters#LAST_RAIL}).
 *
 * <p>Driven under the transport's in-poll flag; allocates nothing but a flight-recorder event.
 */
final class RailService {
    /** {@link Peer#admin} bits: out of service by this rank's operator, by the peer's. */
    static final byte LOCAL = 1;
    static final byte REMOTE = 2;

    private final int rails;
    private final FrameSender sender;
    private final Reliability reliability;
    private final List<String> railNames;
    private String job = "";
    private int rank = -1;
    /** This rank's rails out of service, one bit each, and the number of its changes. */
    private int mask;
    private long epoch;

    RailService(List<String> railNames, FrameSender sender, Reliability reliability) {
        this.rails = railNames.size();
        this.railNames = List.copyOf(railNames);
        this.sender = sender;
        this.reliability = reliability;
    }

    /** Names this rank and its job in the rail state events. */
    void identify(String job, int rank) {
        this.job = job;
        this.rank = rank;
    }

    /**
     * The operator's {@code op} ({@link RailCounters#RAIL_DOWN}, {@link RailCounters#RAIL_UP}) on
     * {@code rail}: applied to every peer and told to each. Returns the answer:
     * {@link RailCounters#DONE} (also when it was so already), {@link RailCounters#NO_SUCH_RAIL},
     * or {@link RailCounters#LAST_RAIL} when no other rail of this rank would be in service and
     * working toward some peer.
     */
    int command(int op, int rail, Peer[] peers, long now) {
        if (rail < 0 || rail >= rails || (op != RailCounters.RAIL_DOWN && op != RailCounters.RAIL_UP)) {
            return RailCounters.NO_SUCH_RAIL;
        }
        boolean down = op == RailCounters.RAIL_DOWN;
        int next = down ? mask | 1 << rail : mask & ~(1 << rail);
        if (next == mask) {
            return RailCounters.DONE;
        }
        if (down && !othersServe(rail, next, peers)) {
            return RailCounters.LAST_RAIL;
        }
        mask = next;
        epoch++;
        for (Peer p : peers) {
            if (p != null && rail < p.railCount) {
                p.admin[rail] = (byte) (down ? p.admin[rail] | LOCAL : p.admin[rail] & ~LOCAL);
                refresh(p, now);
                RailStateEvent.emit(job, rank, p.rank, rail, railNames.get(rail), !down,
                        down ? "taken out of service by the operator" : "brought back into service by the operator");
                send(p, now);
            }
        }
        return RailCounters.DONE;
    }

    /** Whether, with {@code next} out of service here, every peer still has a rail other than {@code rail} that works and serves. */
    private boolean othersServe(int rail, int next, Peer[] peers) {
        if ((next & ((1 << rails) - 1)) == (1 << rails) - 1) {
            return false;
        }
        for (Peer p : peers) {
            if (p == null || p.failure != null || rail >= p.railCount) {
                continue;
            }
            boolean other = false;
            for (int q = 0; q < p.railCount && !other; q++) {
                other = q != rail && (next & 1 << q) == 0 && (p.admin[q] & REMOTE) == 0 && p.working(q);
            }
            if (!other) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether rail {@code r} is out of service by an operator as this rank sees it: its own, or
     * toward every peer that has it (by theirs). For the counters' {@code down (admin)}.
     */
    boolean adminDown(int r, Peer[] peers) {
        if ((mask & 1 << r) != 0) {
            return true;
        }
        boolean any = false;
        for (Peer p : peers) {
            if (p != null && r < p.railCount && p.failure == null) {
                if (!p.outOfService[r]) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    /**
     * Sets which rails to {@code p} are out of service from its {@link Peer#admin} bits, keeping in
     * service the last one that works; a rail leaving service sends what it carried again on the
     * others. Cheap when no operator said anything.
     */
    void refresh(Peer p, long now) {
        boolean any = false;
        for (int r = 0; r < p.railCount; r++) {
            any |= p.admin[r] != 0;
        }
        p.anyAdmin = any;
        if (!any && !anyOut(p)) {
            return;
        }
        for (int r = 0; r < p.railCount; r++) {
            boolean other = false;
            for (int q = 0; q < p.railCount && !other; q++) {
                other = q != r && p.admin[q] == 0 && p.working(q);
            }
            boolean out = p.admin[r] != 0 && other;
            if (out == p.outOfService[r]) {
                continue;
            }
            p.outOfService[r] = out;
            if (out && p.failure == null) {
                reliability.resendRail(p, r, now);
            }
        }
    }

    private static boolean anyOut(Peer p) {
        for (int r = 0; r < p.railCount; r++) {
            if (p.outOfService[r]) {
                return true;
            }
        }
        return false;
    }

    /** A RAIL frame from {@code p} (checked and authenticated): takes its state, answers if asked. */
    void onRail(Peer p, ByteBuffer rx, long now) {
        long theirs = rx.getLong(HEADER);
        long echo = rx.getLong(HEADER + 8);
        int theirMask = rx.getInt(HEADER + 16);
        if (echo > p.railEpochAcked) {
            p.railEpochAcked = Math.min(echo, epoch);
        }
        if (theirs > p.peerRailEpoch) {
            p.peerRailEpoch = theirs;
            for (int r = 0; r < p.railCount; r++) {
                boolean out = (theirMask & 1 << r) != 0;
                p.admin[r] = (byte) (out ? p.admin[r] | REMOTE : p.admin[r] & ~REMOTE);
            }
            refresh(p, now);
        }
        if ((rx.getInt(HEADER + 20) & RAIL_REPLY) != 0) {
            send(p, now);
        }
    }

    /**
     * Housekeeping of {@code p}: keeps a rail in service if it became the last that works, and
     * sends this rank's state again every RTO until {@code p} has echoed it. Returns the work done.
     */
    int repeat(Peer p, long now) {
        if (p.anyAdmin) {
            refresh(p, now);
        }
        if (p.railEpochAcked >= epoch || p.failure != null || p.peerClosed || now - p.railSentAt < p.rto) {
            return 0;
        }
        send(p, now);
        return 1;
    }

    /** Sends {@code p} this rank's state on every rail in service to it (on those that work when none is). */
    private void send(Peer p, long now) {
        if (p.session == null || p.failure != null) {
            return;
        }
        p.railSentAt = now;
        boolean reply = p.railEpochAcked < epoch;
        boolean sent = false;
        for (int r = 0; r < p.railCount; r++) {
            if (p.usable(r)) {
                sender.railState(p, r, epoch, p.peerRailEpoch, mask, reply, now);
                sent = true;
            }
        }
        for (int r = 0; r < p.railCount && !sent; r++) {
            if (p.confirmed(r)) {
                sender.railState(p, r, epoch, p.peerRailEpoch, mask, reply, now);
                sent = true;
            }
        }
    }
}

package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.HEADER;

import io.tutti.rails.StripePolicy;
import java.util.function.IntToLongFunction;

/**
 * Which rails a record goes on, by the load of the node's rails ({@link RailTable}: the bytes in
 * flight on each rail from every rank of this host), as MNC's NIC status table [MNC]; the choice
 * itself is {@link StripePolicy}'s (BUSY above {@link NetConfig#busyBytes()}, records above
 * {@link NetConfig#stripeMin()} split over the FREE rails, smaller ones whole on the next FREE rail
 * in round-robin order), the one the simulator's packet network calls too. Fragments are equal, or
 * full-size where the wire batches, so that a record's fragments for one rail leave in one system
 * call. Also the bookkeeping of that load: this rank's bytes in flight per peer and rail
 * ({@link Peer#railOutstanding}) and its row of the table move together.
 *
 * <p>Driven under the transport's in-poll flag. {@link #plan} leaves its choice in fields that the
 * sender reads fragment by fragment, so a send allocates nothing.
 */
final class Striping implements AutoCloseable {
    private final RailTable table;
    private final RailWire wire;
    private final int stripeMin;
    private final long busyBytes;
    private final int maxPayload;
    /** The usable rails of the record being planned, and of them the FREE ones. */
    private final int[] usable;
    private final int[] free;
    /** The node's load per rail, as the policy reads it (bound once, so that a plan allocates nothing). */
    private final IntToLongFunction load;
    /** The plan: fragment {@code i} goes on {@code use[i % stripe]}, or on {@code single} when {@code stripe} is 1. */
    private int[] use;
    private int stripe;
    private int single;
    private boolean batched;

    Striping(RailTable table, RailWire wire, NetConfig config, int rails, int maxPayload) {
        this.table = table;
        this.wire = wire;
        this.stripeMin = config.stripeMin();
        this.busyBytes = config.busyBytes();
        this.maxPayload = maxPayload;
        this.usable = new int[rails];
        this.free = new int[rails];
        this.load = table::load;
    }

    /**
     * Chooses the rails of a record of {@code length} bytes, {@code pieces} payloads of a frame, to
     * {@code p}; returns how many fragments it goes in. {@link #rail} then names each fragment's
     * rail, and {@link #batched} says whether they leave in batches (then one per piece).
     */
    int plan(Peer p, int length, int pieces) {
        int n = usableRails(p, usable);
        int count;
        use = usable;
        single = 0;
        if (StripePolicy.stripes(length, stripeMin, n)) {
            int k = StripePolicy.stripeRails(usable, n, load, busyBytes, free);
            use = free;
            stripe = k;
            count = ceilDiv(pieces, k) * k;
        } else {
            stripe = 1;
            count = pieces;
            single = StripePolicy.wholeRail(usable, n, load, busyBytes, p.roundRobin++);
        }
        // frames of one size, so that those of a rail can leave in one system call: the last of
        // the record, the only shorter one, is the last of its rail's batch
        batched = pieces > 1 && batchable();
        if (batched) {
            count = pieces;
        }
        return count;
    }

    /** The rail of fragment {@code i} of the record last planned. */
    int rail(int i) {
        return stripe > 1 ? use[i % stripe] : single;
    }

    /** Whether the fragments of the record last planned leave in batches of full frames. */
    boolean batched() {
        return batched;
    }

    /** Whether every rail of the plan sends batches of full frames. */
    private boolean batchable() {
        for (int i = 0; i < stripe; i++) {
            int r = stripe > 1 ? use[i] : single;
            if (wire.batchSegment(r) != HEADER + maxPayload) {
                return false;
            }
        }
        return true;
    }

    /** The rails to {@code p} that carry data now; if none is up, the confirmed ones; if none, rail 0. */
    private static int usableRails(Peer p, int[] into) {
        int n = 0;
        for (int r = 0; r < p.railCount; r++) {
            if (p.usable(r)) {
                into[n++] = r;
            }
        }
        if (n == 0) {
            for (int r = 0; r < p.railCount; r++) {
                if (p.confirmed(r)) {
                    into[n++] = r;
                }
            }
        }
        if (n == 0) {
            into[n++] = 0;
        }
        return n;
    }

    /**
     * The rail to send a datagram that went on {@code old} again on: with {@code rotate}, or when
     * {@code old} is not usable, the next usable one after it (itself when no other is).
     */
    static int resendRail(Peer p, int old, boolean rotate) {
        if (rotate || !p.usable(old)) {
            for (int i = 1; i <= p.railCount; i++) {
                int r = (old + i) % p.railCount;
                if (p.usable(r)) {
                    return r;
                }
            }
        }
        return old;
    }

    /** {@code bytes} more in flight to {@code p} on {@code rail}. */
    void carry(Peer p, int rail, int bytes) {
        p.railOutstanding[rail] += bytes;
        table.add(rail, bytes);
    }

    /** {@code bytes} in flight to {@code p} on {@code rail} were acknowledged; nothing once {@code p} failed. */
    void settle(Peer p, int rail, int bytes) {
        if (p.failure == null) {
            // after a failure the peer's load was taken off the rails at once
            p.railOutstanding[rail] -= bytes;
            table.add(rail, -bytes);
        }
    }

    /** {@code bytes} in flight to {@code p} go again on {@code to}, not {@code from}; nothing once {@code p} failed. */
    void move(Peer p, int from, int to, int bytes) {
        if (p.failure == null && to != from) {
            p.railOutstanding[from] -= bytes;
            p.railOutstanding[to] += bytes;
            table.add(from, -bytes);
            table.add(to, bytes);
        }
    }

    /** {@code p} has failed: what it never acknowledged no longer weighs on the node's rails. */
    void release(Peer p) {
        for (int r = 0; r < p.railCount; r++) {
            table.add(r, -p.railOutstanding[r]);
            p.railOutstanding[r] = 0;
        }
    }

    /** Bytes in flight on {@code rail} from every rank of this host. */
    long load(int rail) {
        return table.load(rail);
    }

    /** Clears this rank's row of the node's table and unmaps it. */
    @Override
    public void close() {
        table.close();
    }

    static int ceilDiv(int a, int b) {
        return Math.max(0, (a + b - 1) / b);
    }
}

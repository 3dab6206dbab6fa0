package io.tutti.sw;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * What a switch process is started with.
 *
 * @param role       ToR (hosts below, spines above) or spine (ToRs below)
 * @param id         the switch's id in control packets (non-zero)
 * @param ports      the UDP addresses the switch receives on, one per port
 * @param uplinks    a ToR's spines (empty for a spine, or for a ToR that is always the root)
 * @param capacity   groups the switch can host at once
 * @param slots      aggregation slots per group (packets in flight per leader)
 * @param maxPayload bytes of data per packet, at most {@value io.tutti.wire.IncPacketDescriptor#MAX_PAYLOAD}
 * @param ops        bit {@code 1 << ReduceOp.ordinal()} per operation it reduces
 * @param types      bit {@code 1 << Datatype.ordinal()} per element type it reduces
 * @param loss       probability of dropping a received INC packet (fault injection), 0 to 1
 * @param seed       seed of the fault injection
 * @param leaseNanos a group idle for this long is reclaimed (its job died without releasing it)
 * @param key        the key a notify, a release and a relayed reply must be tagged with; null: groups
 *                   from anyone
 */
public record SwitchConfig(Role role, int id, List<InetSocketAddress> ports, List<InetSocketAddress> uplinks,
                           int capacity, int slots, int maxPayload, int ops, int types, double loss, long seed,
                           long leaseNanos, IncKey key) {
    /** Where a switch sits in the two-level tree. */
    public enum Role { TOR, SPINE }

    public static final int CAPACITY_DEFAULT = 64;
    public static final int SLOTS_DEFAULT = 8;
    public static final long LEASE_DEFAULT_SECONDS = 300;
    /** Children per group and switch: the contribution bitmap is one long. */
    public static final int MAX_CHILDREN = 64;

    public SwitchConfig {
        if (id == 0) {
            throw new IllegalArgumentException("switch id must not be 0 (0 means 'no spine')");
        }
        if (capacity < 0 || slots < 1 || slots > 1024) {
            throw new IllegalArgumentException("capacity must be >= 0 and slots 1..1024, got " + capacity + ", " + slots);
        }
        if (maxPayload < 8 || maxPayload > io.tutti.wire.IncPacketDescriptor.MAX_PAYLOAD) {
            throw new IllegalArgumentException("max payload must be 8.." + io.tutti.wire.IncPacketDescriptor.MAX_PAYLOAD
                    + " bytes, got " + maxPayload);
        }
        if (!(loss >= 0 && loss < 1)) {
            throw new IllegalArgumentException("loss must be in [0, 1), got " + loss);
        }
        if (role == Role.SPINE && !uplinks.isEmpty()) {
            throw new IllegalArgumentException("a spine has no uplinks");
        }
        ports = List.copyOf(ports);
        uplinks = List.copyOf(uplinks);
    }

    /** A switch without a key: it accepts groups from anyone. */
    public SwitchConfig(Role role, int id, List<InetSocketAddress> ports, List<InetSocketAddress> uplinks,
                        int capacity, int slots, int maxPayload, int ops, int types, double loss, long seed,
                        long leaseNanos) {
        this(role, id, ports, uplinks, capacity, slots, maxPayload, ops, types, loss, seed, leaseNanos, null);
    }

    /** Every predefined operation except MAXLOC and MINLOC (pairs are not reduced in the network). */
    public static int allOps() {
        int m = 0;
        for (ReduceOp op : ReduceOp.values()) {
            if (op != ReduceOp.MAXLOC && op != ReduceOp.MINLOC) {
                m |= 1 << op.ordinal();
            }
        }
        return m;
    }

    /** Every element type except the pair types. */
    public static int allTypes() {
        int m = 0;
        for (Datatype t : Datatype.values()) {
            if (!t.isPair()) {
                m |= 1 << t.ordinal();
            }
        }
        return m;
    }

    /** A switch with the defaults and no fault injection. */
    public static SwitchConfig of(Role role, int id, List<InetSocketAddress> ports, List<InetSocketAddress> uplinks) {
        return new SwitchConfig(role, id, ports, uplinks, CAPACITY_DEFAULT, SLOTS_DEFAULT,
                io.tutti.wire.IncPacketDescriptor.MAX_PAYLOAD, allOps(), allTypes(), 0, 1, LEASE_DEFAULT_SECONDS * 1_000_000_000L);
    }

    public SwitchConfig withCapacity(int c) {
        return new SwitchConfig(role, id, ports, uplinks, c, slots, maxPayload, ops, types, loss, seed,
                leaseNanos, key);
    }

    public SwitchConfig withOps(int o) {
        return new SwitchConfig(role, id, ports, uplinks, capacity, slots, maxPayload, o, types, loss, seed,
                leaseNanos, key);
    }

    public SwitchConfig withLoss(double l, long s) {
        return new SwitchConfig(role, id, ports, uplinks, capacity, slots, maxPayload, ops, types, l, s,
                leaseNanos, key);
    }

    public SwitchConfig withKey(IncKey k) {
        return new SwitchConfig(role, id, ports, uplinks, capacity, slots, maxPayload, ops, types, loss, seed, leaseNanos,
                k);
    }

    public SwitchConfig withLease(long nanos) {
        return new SwitchConfig(role, id, ports, uplinks, capacity, slots, maxPayload, ops, types, loss, seed,
                nanos, key);
    }

    /**
     * The id a switch gets when none is given: random and non-zero, since a port address (often
     * the wildcard) does not tell switches apart.
     */
    public static int randomId() {
        return java.util.concurrent.ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
    }
}

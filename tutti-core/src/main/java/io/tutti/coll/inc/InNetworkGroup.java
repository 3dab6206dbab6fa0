package io.tutti.coll.inc;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.coll.algo.HierarchicalSchedules;
import io.tutti.Datatype;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A communicator's in-network aggregation group: the control plane of the in-network allreduce,
 * run collectively by every rank the first time the {@code inc} algorithm is used.
 *
 * <ol>
 *   <li>Ranks are split into Node (or Socket) domains; each domain's lowest rank is its leader
 *       (SRR), the first leader the master (MRR), which proposes a random group id.</li>
 *   <li>Query: each leader asks its ToR, which asks its spines; each switch fills in what it
 *       supports and how many groups it can still host.</li>
 *   <li>Every rank learns every leader's answer (an allgather over the host path); the master's
 *       choice of spine — the one with the most free groups among those every ToR reaches —
 *       and the common operations, types and payload size follow the same way on every rank.</li>
 *   <li>Notify: each leader installs its place in the tree (child index under its ToR, the ToR's
 *       index under the spine) on the switches, which refuse a group they have no room for (or,
 *       where they have a key, from a leader without it).</li>
 *   <li>A second allgather: only if every leader was accepted does the group exist; otherwise
 *       the accepted leaders release it again and the communicator uses the host algorithm.</li>
 * </ol>
 *
 * Release: at {@link io.tutti.Tutti#close()} ({@link #releaseAll}); switches also reclaim a group
 * idle for longer than their lease, for jobs that die.
 */
public final class InNetworkGroup {
    /** Per-rank fields of the set-up allgather. */
    private static final int LEADER = 0;
    private static final int STATUS = 1;
    private static final int TOR = 2;
    private static final int OPS = 3;
    private static final int TYPES = 4;
    private static final int MAX_PAYLOAD = 5;
    private static final int SLOTS = 6;
    private static final int PROPOSAL = 7;
    private static final int SPINES = 8;
    private static final int MAX_SPINES = 8;
    private static final int FIELDS = SPINES + 2 * MAX_SPINES;

    /** Set-up outcomes, in the allgather's STATUS field. */
    private static final int ACCEPTED = 1;
    private static final int NOT_LEADER = 0;
    private static final int NO_SWITCH = -1;
    private static final int NO_ANSWER = -2;
    private static final int REFUSED = -3;

    private static final Map<Engine, List<InNetworkGroup>> OPEN = new IdentityHashMap<>();

    private final InNetworkAggregation endpoint;
    private final int id;
    private final int ops;
    private final int types;
    private boolean released;

    private InNetworkGroup(InNetworkAggregation endpoint, int id, int ops, int types) {
        this.endpoint = endpoint;
        this.id = id;
        this.ops = ops;
        this.types = types;
    }

    /** The group id the switches know this group by. */
    public int id() {
        return id;
    }

    /** Whether the switches reduce {@code op} on {@code type} (user operations never). */
    public boolean supports(ReduceOp op, UserOp userOp, Datatype type) {
        return userOp == null && op != null && (ops & (1 << op.ordinal())) != 0 && (types & (1 << type.ordinal())) != 0;
    }

    /** A data-plane exchange for one INC step (leaders only). */
    public InNetworkAggregation.Transfer transfer() {
        if (endpoint == null) {
            throw new IllegalStateException("only a leader exchanges with the switches");
        }
        return endpoint.transfer(id);
    }

    /** The outcome of a set-up: the group, or why there is none. */
    public record Outcome(InNetworkGroup group, String reason) {
    }

    /**
     * Sets the group up; every rank of the communicator calls this at the same point.
     *
     * @param settings the job's settings, which the switch client reads its own from
     * @param exchange allgathers {@link #FIELDS} ints per rank over the host path
     */
    public static Outcome setUp(Engine engine, Map<String, String> settings, int rank, int[] worldRanks, int[] domains,
                                boolean socketMode, java.util.function.BiConsumer<int[], int[]> exchange) {
        int size = worldRanks.length;
        int[] leaders = HierarchicalSchedules.leaders(domains);
        boolean leader = leaders.length > 0 && java.util.Arrays.binarySearch(leaders, rank) >= 0;
        int[] mine = new int[FIELDS];
        int[] all = new int[FIELDS * size];
        InNetworkAggregation endpoint = null;
        if (leader) {
            mine[LEADER] = 1;
            mine[PROPOSAL] = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
            endpoint = open(engine, settings, worldRanks[rank]);
            if (endpoint == null) {
                mine[STATUS] = NO_SWITCH;
            } else {
                InNetworkAggregation.Offer o = endpoint.query(mine[PROPOSAL], leaders.length, socketMode);
                if (o == null) {
                    mine[STATUS] = NO_ANSWER;
                } else {
                    mine[STATUS] = ACCEPTED;
                    mine[TOR] = o.torId();
                    mine[OPS] = o.ops();
                    mine[TYPES] = o.types();
                    mine[MAX_PAYLOAD] = o.maxPayload();
                    mine[SLOTS] = o.slots();
                    for (int k = 0; k < Math.min(MAX_SPINES, o.spineIds().length); k++) {
                        mine[SPINES + 2 * k] = o.spineIds()[k];
                        mine[SPINES + 2 * k + 1] = o.spineFree()[k];
                    }
                }
            }
        }
        exchange.accept(mine, all);
        String reason = null;
        int ops = -1;
        int types = -1;
        int maxPayload = Integer.MAX_VALUE;
        int slots = Integer.MAX_VALUE;
        for (int l : leaders) {
            int status = all[l * FIELDS + STATUS];
            if (status != ACCEPTED && reason == null) {
                reason = "rank " + l + (status == NO_SWITCH ? " has no switch configured (TUTTI_INC_SWITCH)"
                        : " got no answer from its switch");
            }
            ops &= all[l * FIELDS + OPS];
            types &= all[l * FIELDS + TYPES];
            maxPayload = Math.min(maxPayload, all[l * FIELDS + MAX_PAYLOAD]);
            slots = Math.min(slots, all[l * FIELDS + SLOTS]);
        }
        int master = leaders[0];
        int group = all[master * FIELDS + PROPOSAL];
        // the ToRs in order of their first leader; each leader's index under its ToR
        int[] tors = new int[leaders.length];
        int torCount = 0;
        int child = 0;
        int localSize = 0;
        int torIndex = 0;
        for (int l : leaders) {
            int t = all[l * FIELDS + TOR];
            int k = indexOf(tors, torCount, t);
            if (k < 0) {
                k = torCount;
                tors[torCount++] = t;
            }
            if (leader && t == mine[TOR]) {
                if (l < rank) {
                    child++;
                }
                localSize++;
                torIndex = k;
            }
        }
        int spine = 0;
        if (reason == null && torCount > 1) {
            spine = chooseSpine(all, leaders, master);
            if (spine == 0) {
                reason = "no spine is reachable from every ToR of the group";
            }
        }
        int status = leader ? ACCEPTED : NOT_LEADER;
        if (reason == null && leader) {
            String refused = endpoint.join(new InNetworkAggregation.Membership(group, child, localSize, leaders.length,
                    spine, torIndex, torCount, socketMode, maxPayload, slots));
            if (refused != null) {
                status = REFUSED;
                System.err.println("tutti: rank " + worldRanks[rank] + ": switch refused group " + group + ": "
                        + refused);
            }
        }
        if (reason == null) {
            // second round: the group exists only if every leader was accepted
            int[] agreed = new int[FIELDS];
            agreed[STATUS] = status;
            exchange.accept(agreed, all);
            for (int l : leaders) {
                if (all[l * FIELDS + STATUS] == REFUSED && reason == null) {
                    reason = "the switches of rank " + l + " refused the group (that rank's 'switch refused' line"
                            + " says why)";
                }
            }
            if (reason != null && leader) {
                endpoint.release(group);
            }
        }
        if (reason != null) {
            if (endpoint != null) {
                endpoint.close();
            }
            return new Outcome(null, reason);
        }
        InNetworkGroup g = new InNetworkGroup(endpoint, group, ops, types);
        synchronized (OPEN) {
            OPEN.computeIfAbsent(engine, x -> new ArrayList<>()).add(g);
        }
        return new Outcome(g, null);
    }

    /** The master's spine with the most free groups among those every leader's ToR reaches; 0 if none. */
    private static int chooseSpine(int[] all, int[] leaders, int master) {
        int best = 0;
        int bestFree = -1;
        for (int k = 0; k < MAX_SPINES; k++) {
            int spine = all[master * FIELDS + SPINES + 2 * k];
            if (spine == 0) {
                continue;
            }
            int free = Integer.MAX_VALUE;
            for (int l : leaders) {
                int f = spineFree(all, l, spine);
                free = Math.min(free, f);
            }
            if (free > bestFree && free > 0) {
                best = spine;
                bestFree = free;
            }
        }
        return best;
    }

    private static int spineFree(int[] all, int leader, int spine) {
        for (int k = 0; k < MAX_SPINES; k++) {
            if (all[leader * FIELDS + SPINES + 2 * k] == spine) {
                return all[leader * FIELDS + SPINES + 2 * k + 1];
            }
        }
        return -1;
    }

    private static int indexOf(int[] a, int n, int x) {
        for (int i = 0; i < n; i++) {
            if (a[i] == x) {
                return i;
            }
        }
        return -1;
    }

    /** Ints per rank that {@link #setUp}'s exchange carries. */
    public static int fields() {
        return FIELDS;
    }

    /** The switch client a provider opens for this leader with the job's settings; null when none is configured. */
    private static InNetworkAggregation open(Engine engine, Map<String, String> settings, int worldRank) {
        for (InNetworkAggregation.Provider p : ServiceLoader.load(InNetworkAggregation.Provider.class)) {
            InNetworkAggregation a = p.open(new InNetworkAggregation.Context(engine.wireJobId(), worldRank, settings,
                    engine::progress, engine.counters()::inNetwork));
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    /** Frees the group on the switches (leaders) and closes the endpoint; idempotent. */
    public void release() {
        if (released) {
            return;
        }
        released = true;
        if (endpoint != null) {
            endpoint.release(id);
            endpoint.close();
        }
    }

    /** Releases every group of {@code engine}'s communicators; called when the rank leaves the job. */
    public static void releaseAll(Engine engine) {
        List<InNetworkGroup> groups;
        synchronized (OPEN) {
            groups = OPEN.remove(engine);
        }
        if (groups != null) {
            for (InNetworkGroup g : groups) {
                g.release();
            }
        }
    }

    public static MemorySegment ints(int[] a) {
        return MemorySegment.ofArray(a);
    }
}

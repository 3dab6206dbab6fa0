package io.tutti.coll.algo;

import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Topology;

/**
 * Node- and socket-aware schedules, after the Node and Socket leader modes of in-network
 * aggregation: ranks are grouped into domains (a node, or one CPU package of a node); a
 * shared-memory phase inside each domain brings the data to one leader, the leaders run the
 * operation among themselves, and a second shared-memory phase inside each domain hands the
 * result back. With one leader per socket the leader phase has more ranks, but the local phases
 * never cross the socket interconnect.
 *
 * <p>Each phase is an existing algorithm run over a {@link Group}: binomial reduce and broadcast
 * inside a domain, recursive doubling (or a binomial broadcast) among the leaders. The leader of
 * a domain is its lowest rank, except that a broadcast's root leads its own domain. The algorithms
 * are {@link LeadersBarrier}, {@link LeadersBcast}, {@link LeadersAllreduce} and {@link IncAllreduce};
 * this class holds what they share: the domains, the phases' groups and tag bases.
 *
 * <p>Non-commutative operations keep rank order when every domain is a contiguous range of ranks
 * (the usual block placement): the domains' partial results are then themselves in rank order.
 * Interleaved domains (round-robin placement) with a non-commutative operation are refused.
 */
public final class HierarchicalSchedules {
    /** The setting names of the two leader modes. */
    public static final String NODE_LEADERS = "node-leaders";
    public static final String SOCKET_LEADERS = "socket-leaders";

    /** Tag bases of the three phases, so that their messages never pair across phases. */
    static final int LOCAL_IN = 0;
    static final int LEADERS = 64;
    static final int LOCAL_OUT = 128;

    private HierarchicalSchedules() {
    }

    /** The phases' groups for one rank. */
    record Layout(Group local, Group leaders, Domains table) {
        boolean leader() {
            return leaders != null;
        }

        /** Index in the leaders' group of the leader of virtual rank {@code v}'s domain. */
        int leaderIndexOf(int v) {
            return table.domainOf[v];
        }
    }

    /** The last topology's domains, by identity: every rank of a simulated communicator asks for the same. */
    private static volatile TopologyDomains lastDomains;
    /** The last group's domain table, by identity of its arrays and the designated leader. */
    private static volatile Domains lastTable;

    private record TopologyDomains(Topology topology, boolean sockets, int[] domains) {
    }

    /**
     * The leader domain of each communicator rank: its node, or its (node, socket). The array is
     * shared by every caller with the same {@link Topology} object and must not be written.
     */
    static int[] domains(ScheduleAlgorithm.Params params, boolean sockets, String algorithm) {
        Topology t = params.requireTopology(algorithm);
        TopologyDomains last = lastDomains;
        if (last != null && last.topology() == t && last.sockets() == sockets) {
            return last.domains();
        }
        int[] d = sockets ? t.socketDomains() : t.nodeDomains();
        lastDomains = new TopologyDomains(t, sockets, d);
        return d;
    }

    /**
     * The domain structure of a group, built once in O(n) and shared by all its ranks' layouts:
     * each virtual rank's domain numbered in order of first appearance, each domain's ranks as one
     * shared communicator-rank array (its leader first), and the leaders' array. Building all n
     * ranks' layouts from it touches O(n) entries, where computing each from the domains costs O(n).
     */
    static final class Domains {
        final int[] groupRanks;
        final int[] domains;
        final int lead;
        /** Per virtual rank: its domain's number (domains in order of their lowest virtual rank). */
        final int[] domainOf;
        /** Per virtual rank: its index in its domain's local group. */
        final int[] localIndex;
        /** Per domain: its ranks, leader first, as communicator ranks. */
        final int[][] local;
        /** Communicator rank of each domain's leader, in domain order. */
        final int[] leaders;
        /** Whether every domain is a contiguous range of virtual ranks. */
        final boolean contiguous;

        Domains(Group g, int[] domains, int lead) {
            int n = g.size();
            this.groupRanks = g.ranks();
            this.domains = domains;
            this.lead = lead;
            domainOf = new int[n];
            localIndex = new int[n];
            IntIndex numbers = new IntIndex(n);
            int[] sizes = new int[Math.max(1, n)];
            int count = 0;
            boolean contig = true;
            for (int v = 0; v < n; v++) {
                int k = numbers.indexOf(domains[g.rank(v)], count);
                if (k == count) {
                    count++;
                } else if (k != domainOf[v - 1]) {
                    contig = false;
                }
                domainOf[v] = k;
                sizes[k]++;
            }
            contiguous = contig;
            local = new int[count][];
            for (int k = 0; k < count; k++) {
                local[k] = new int[sizes[k]];
            }
            int[] fill = new int[count];
            int leadDomain = lead >= 0 ? domainOf[lead] : -1;
            if (leadDomain >= 0) {
                // the designated rank first, the others in rank order after it
                local[leadDomain][0] = g.rank(lead);
                localIndex[lead] = 0;
                fill[leadDomain] = 1;
            }
            for (int v = 0; v < n; v++) {
                int k = domainOf[v];
                if (v != lead) {
                    localIndex[v] = fill[k];
                    local[k][fill[k]++] = g.rank(v);
                }
            }
            leaders = new int[count];
            for (int k = 0; k < count; k++) {
                leaders[k] = local[k][0];
            }
        }

        int count() {
            return local.length;
        }
    }

    /** The domain table of {@code g} over {@code domains}, shared while the same group asks. */
    static Domains table(Group g, int[] domains, int lead) {
        Domains t = lastTable;
        if (t != null && t.groupRanks == g.ranks() && t.domains == domains && t.lead == lead) {
            return t;
        }
        t = new Domains(g, domains, lead);
        lastTable = t;
        return t;
    }

    /**
     * The local group (this rank's domain, in rank order, the leader first) and, for a leader, the
     * leaders' group (in order of their domains' lowest ranks), over the ranks of {@code g}, whose
     * communicator ranks lie in {@code domains}. O(1) per rank once the group's table is built.
     *
     * @param lead the virtual rank that leads its domain instead of the lowest, or -1
     */
    static Layout layout(Group g, int[] domains, int lead) {
        Domains t = table(g, domains, lead);
        int me = g.me();
        int k = t.domainOf[me];
        int local = t.localIndex[me];
        Group localGroup = new Group(t.local[k], local, g.tagBase() + LOCAL_IN);
        if (local != 0) {
            return new Layout(localGroup, null, t);
        }
        return new Layout(localGroup, new Group(t.leaders, k, g.tagBase() + LEADERS), t);
    }

    /** What the name and the selector need of a domain array: computed once per array. */
    private record Facts(int[] domains, int count, boolean contiguous, int[] leaders) {
    }

    private static volatile Facts lastFacts;

    private static Facts facts(int[] domains) {
        Facts f = lastFacts;
        if (f != null && f.domains() == domains) {
            return f;
        }
        Domains t = new Domains(Group.all(0, Math.max(1, domains.length)), domains, -1);
        f = new Facts(domains, t.count(), t.contiguous, t.leaders);
        lastFacts = f;
        return f;
    }

    /** Whether every domain is one contiguous range of ranks. */
    public static boolean contiguous(int[] domains) {
        return domains.length == 0 || facts(domains).contiguous();
    }

    /** The schedule name of an operation in leader mode: {@code allreduce/leaders(4 domains)}. */
    static String name(String op, int[] domains) {
        return op + "/leaders(" + count(domains) + " domains)";
    }

    /** Number of distinct domains. */
    static int count(int[] domains) {
        return domains.length == 0 ? 0 : facts(domains).count();
    }

    /** The leader of each domain (its lowest rank), in order of the domains' lowest ranks. */
    public static int[] leaders(int[] domains) {
        return domains.length == 0 ? new int[0] : facts(domains).leaders().clone();
    }

    /** Throws unless there is a domain for each of the communicator's {@code size} ranks. */
    static void check(int size, int[] domains) {
        if (domains.length != size) {
            throw new IllegalArgumentException("domains for " + domains.length + " ranks, communicator of " + size);
        }
    }

    /** Numbers distinct ints in order of first appearance: an open-addressing table of O(n) ints. */
    private static final class IntIndex {
        private final int[] keys;
        private final int[] values;
        private final boolean[] used;
        private final int mask;

        IntIndex(int expected) {
            int cap = Integer.highestOneBit(Math.max(2, expected) * 2 - 1) << 1;
            keys = new int[cap];
            values = new int[cap];
            used = new boolean[cap];
            mask = cap - 1;
        }

        /** The number of {@code key}, given {@code next} (and remembered) if it has none yet. */
        int indexOf(int key, int next) {
            int i = (key * 0x9E3779B9) >>> 7 & mask;
            while (used[i]) {
                if (keys[i] == key) {
                    return values[i];
                }
                i = (i + 1) & mask;
            }
            used[i] = true;
            keys[i] = key;
            values[i] = next;
            return next;
        }
    }
}

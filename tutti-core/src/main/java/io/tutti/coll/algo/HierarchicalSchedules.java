package io.tutti.coll.algo;

import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Topology;
import java.util.Arrays;

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
    record Layout(Group local, Group leaders) {
        boolean leader() {
            return leaders != null;
        }
    }

    /** The leader domain of each communicator rank: its node, or its (node, socket). */
    static int[] domains(ScheduleAlgorithm.Params params, boolean sockets, String algorithm) {
        Topology t = params.requireTopology(algorithm);
        return sockets ? t.socketDomains() : t.nodeDomains();
    }

    /**
     * The local group (this rank's domain, in rank order, the leader first) and, for a leader, the
     * leaders' group (in order of their domains' lowest ranks), over the ranks of {@code g}, whose
     * communicator ranks lie in {@code domains}.
     *
     * @param lead the virtual rank that leads its domain instead of the lowest, or -1
     */
    static Layout layout(Group g, int[] domains, int lead) {
        int n = g.size();
        int[] d = virtual(g, domains);
        int mine = d[g.me()];
        int leadDomain = lead >= 0 ? d[lead] : Integer.MIN_VALUE;
        int[] local = java.util.stream.IntStream.range(0, n).filter(v -> d[v] == mine).toArray();
        if (mine == leadDomain) {
            // the designated rank first, the others in rank order after it
            int[] reordered = new int[local.length];
            reordered[0] = lead;
            int k = 1;
            for (int v : local) {
                if (v != lead) {
                    reordered[k++] = v;
                }
            }
            local = reordered;
        }
        int me = indexOf(local, g.me());
        Group localGroup = new Group(ranks(g, local), me, g.tagBase() + LOCAL_IN);
        if (me != 0) {
            return new Layout(localGroup, null);
        }
        // leaders: one per domain, in order of the domain's lowest rank
        int[] leaders = new int[n];
        int count = 0;
        for (int v = 0; v < n; v++) {
            if (firstOfDomain(d, v)) {
                leaders[count++] = d[v] == leadDomain ? lead : v;
            }
        }
        int[] l = Arrays.copyOf(leaders, count);
        return new Layout(localGroup, new Group(ranks(g, l), indexOf(l, g.me()), g.tagBase() + LEADERS));
    }

    /** The domain of each virtual rank of {@code g}. */
    static int[] virtual(Group g, int[] domains) {
        int[] d = new int[g.size()];
        for (int v = 0; v < d.length; v++) {
            d[v] = domains[g.rank(v)];
        }
        return d;
    }

    /** Virtual ranks of {@code g} as communicator ranks. */
    private static int[] ranks(Group g, int[] virtual) {
        int[] r = new int[virtual.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = g.rank(virtual[i]);
        }
        return r;
    }

    private static boolean firstOfDomain(int[] domains, int r) {
        for (int q = 0; q < r; q++) {
            if (domains[q] == domains[r]) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(int[] a, int x) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == x) {
                return i;
            }
        }
        throw new IllegalStateException(x + " not in " + Arrays.toString(a));
    }

    /** Whether every domain is one contiguous range of ranks. */
    public static boolean contiguous(int[] domains) {
        for (int r = 1; r < domains.length; r++) {
            if (domains[r] != domains[r - 1]) {
                for (int q = 0; q < r - 1; q++) {
                    if (domains[q] == domains[r]) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** The schedule name of an operation in leader mode: {@code allreduce/leaders(4 domains)}. */
    static String name(String op, int[] domains) {
        return op + "/leaders(" + Topology.count(domains) + " domains)";
    }

    /** The leader of each domain (its lowest rank), in order of the domains' lowest ranks. */
    public static int[] leaders(int[] domains) {
        return java.util.stream.IntStream.range(0, domains.length).filter(r -> firstOfDomain(domains, r)).toArray();
    }

    /** Throws unless there is a domain for each of the communicator's {@code size} ranks. */
    static void check(int size, int[] domains) {
        if (domains.length != size) {
            throw new IllegalArgumentException("domains for " + domains.length + " ranks, communicator of " + size);
        }
    }
}

package io.tutti.coll.algo;

import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
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
 * a domain is its lowest rank, except that a broadcast's root leads its own domain.
 *
 * <p>Non-commutative operations keep rank order when every domain is a contiguous range of ranks
 * (the usual block placement): the domains' partial results are then themselves in rank order.
 * Interleaved domains (round-robin placement) with a non-commutative operation are refused.
 */
public final class HierarchicalSchedules {
    /** Tag bases of the three phases, so that their messages never pair across phases. */
    static final int LOCAL_IN = 0;
    static final int LEADERS = 64;
    static final int LOCAL_OUT = 128;

    private HierarchicalSchedules() {
    }

    /** The phases' groups for one rank. */
    private record Layout(Group local, Group leaders) {
        boolean leader() {
            return leaders != null;
        }
    }

    /**
     * The local group (this rank's domain, in rank order, the leader first) and, for a leader, the
     * leaders' group (in order of their domains' lowest ranks).
     *
     * @param lead the rank that leads its domain instead of the lowest, or -1
     */
    private static Layout layout(int rank, int[] domains, int lead) {
        int n = domains.length;
        int mine = domains[rank];
        int leadDomain = lead >= 0 ? domains[lead] : Integer.MIN_VALUE;
        int[] local = java.util.stream.IntStream.range(0, n).filter(r -> domains[r] == mine).toArray();
        if (mine == leadDomain) {
            // the designated rank first, the others in rank order after it
            int[] reordered = new int[local.length];
            reordered[0] = lead;
            int k = 1;
            for (int r : local) {
                if (r != lead) {
                    reordered[k++] = r;
                }
            }
            local = reordered;
        }
        int me = indexOf(local, rank);
        Group localGroup = new Group(local, me, LOCAL_IN);
        if (me != 0) {
            return new Layout(localGroup, null);
        }
        // leaders: one per domain, in order of the domain's lowest rank
        int[] leaders = new int[n];
        int count = 0;
        for (int r = 0; r < n; r++) {
            if (firstOfDomain(domains, r)) {
                leaders[count++] = domains[r] == leadDomain ? lead : r;
            }
        }
        int[] l = Arrays.copyOf(leaders, count);
        return new Layout(localGroup, new Group(l, indexOf(l, rank), LEADERS));
    }

    private static boolean firstOfDomain(int[] domains, int r) {
        for (int q = 0; q < r; q++) {
            if (domains[q] == domains[r]) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(int[] a, int x) {
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

    private static String name(String op, int[] domains) {
        return op + "/leaders(" + Topology.count(domains) + " domains)";
    }

    /** Allreduce: local binomial reduce to the leader, recursive doubling among leaders, local binomial broadcast. */
    public static Schedule allreduce(int rank, int size, long bytes, int extent, boolean inPlace, boolean commutative,
                                     int[] domains) {
        check(size, domains);
        if (!commutative && !contiguous(domains)) {
            throw new IllegalArgumentException("a non-commutative operation needs every node or socket to hold a"
                    + " contiguous range of ranks");
        }
        ScheduleBuilder b = new ScheduleBuilder(name("allreduce", domains), rank, size);
        Layout l = layout(rank, domains, -1);
        // the leader's partial lands in its receive buffer; the others only send theirs
        int last = BinomialReduce.emit(b, l.local(), bytes, extent, 0, inPlace, commutative, 0, ScheduleBuilder.NONE);
        if (l.leader()) {
            last = RecursiveDoublingAllreduce.emit(b, l.leaders(), bytes, extent, true, commutative, 0, last);
        }
        BinomialBcast.emit(b, l.local().withTagBase(LOCAL_OUT), bytes, 0, 0, last);
        return b.build();
    }

    /**
     * In-network allreduce: local binomial reduce to the leader, the leader's partial result
     * exchanged with the aggregation switches (one INC step, which the group splits into packets),
     * local binomial broadcast. The switches combine the leaders' data in arrival order, so only
     * commutative operations qualify.
     */
    public static Schedule incAllreduce(int rank, int size, long bytes, int extent, boolean inPlace, int[] domains) {
        check(size, domains);
        ScheduleBuilder b = new ScheduleBuilder("allreduce/inc(" + Topology.count(domains) + " leaders)", rank, size);
        Layout l = layout(rank, domains, -1);
        int last = BinomialReduce.emit(b, l.local(), bytes, extent, 0, inPlace, true, 0, ScheduleBuilder.NONE);
        if (l.leader()) {
            last = b.inc(Schedule.RECV_BUFFER, 0, bytes, last);
        }
        BinomialBcast.emit(b, l.local().withTagBase(LOCAL_OUT), bytes, 0, 0, last);
        return b.build();
    }

    /** The leader of each domain (its lowest rank), in order of the domains' lowest ranks. */
    public static int[] leaders(int[] domains) {
        return java.util.stream.IntStream.range(0, domains.length).filter(r -> firstOfDomain(domains, r)).toArray();
    }

    /** Broadcast: binomial among the leaders (the root leads its domain), then binomial inside each domain. */
    public static Schedule bcast(int rank, int size, long bytes, int root, int[] domains) {
        check(size, domains);
        ScheduleBuilder b = new ScheduleBuilder(name("bcast", domains), rank, size);
        Layout l = layout(rank, domains, root);
        int last = ScheduleBuilder.NONE;
        if (l.leader()) {
            last = BinomialBcast.emit(b, l.leaders(), bytes, indexOf(l.leaders().ranks(), root), 0, last);
        }
        BinomialBcast.emit(b, l.local().withTagBase(LOCAL_OUT), bytes, 0, 0, last);
        return b.build();
    }

    /** Barrier: fan-in to each leader, a butterfly among the leaders, fan-out from each leader. */
    public static Schedule barrier(int rank, int size, int[] domains) {
        check(size, domains);
        ScheduleBuilder b = new ScheduleBuilder(name("barrier", domains), rank, size);
        Layout l = layout(rank, domains, -1);
        // zero-byte reduce and broadcast are the fan-in and fan-out trees; zero-byte recursive
        // doubling is the butterfly barrier
        int last = BinomialReduce.emit(b, l.local(), 0, 1, 0, true, true, 0, ScheduleBuilder.NONE);
        if (l.leader()) {
            last = RecursiveDoublingAllreduce.emit(b, l.leaders(), 0, 1, true, true, 0, last);
        }
        BinomialBcast.emit(b, l.local().withTagBase(LOCAL_OUT), 0, 0, 0, last);
        return b.build();
    }

    private static void check(int size, int[] domains) {
        if (domains.length != size) {
            throw new IllegalArgumentException("domains for " + domains.length + " ranks, communicator of " + size);
        }
    }
}

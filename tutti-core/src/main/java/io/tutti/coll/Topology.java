package io.tutti.coll;

/**
 * Where the ranks of a communicator run, as the schedules see it: the node (host) and the CPU
 * package (socket) of each rank, and whether a node has more ranks than cores.
 *
 * @param node          node id of each communicator rank
 * @param socket        socket id of each rank within its node
 * @param oversubscribed whether some node runs more ranks than it has cores
 */
public record Topology(int[] node, int[] socket, boolean oversubscribed) {
    /** Every rank on one node and one socket. */
    public static Topology flat(int size, boolean oversubscribed) {
        return new Topology(new int[size], new int[size], oversubscribed);
    }

    /** Leader domains for Node mode: one per node. */
    public int[] nodeDomains() {
        return node.clone();
    }

    /** Leader domains for Socket mode: one per (node, socket). */
    public int[] socketDomains() {
        int[] d = new int[node.length];
        for (int r = 0; r < d.length; r++) {
            d[r] = node[r] * 4096 + socket[r];
        }
        return d;
    }

    /** Number of distinct values in {@code domains}. */
    public static int count(int[] domains) {
        return (int) java.util.Arrays.stream(domains).distinct().count();
    }
}

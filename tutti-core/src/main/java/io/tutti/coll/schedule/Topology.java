package io.tutti.coll.schedule;

/**
 * Where the ranks of a communicator run, as the schedules see it: the node (host) and the CPU
 * package (socket) of each rank, whether a node has more ranks than cores, and whether the ranks
 * can meet in shared memory.
 *
 * @param node           node id of each communicator rank
 * @param socket         socket id of each rank within its node
 * @param oversubscribed whether some node runs more ranks than it has cores
 * @param sharedMemory   whether every rank reaches every other through shared memory (one real
 *                       node, network path not forced), so that {@code slots} algorithms may run
 */
public record Topology(int[] node, int[] socket, boolean oversubscribed, boolean sharedMemory) {
    /** Without shared memory: the topology of models and of ranks spread over hosts. */
    public Topology(int[] node, int[] socket, boolean oversubscribed) {
        this(node, socket, oversubscribed, false);
    }

    /** Every rank on one node and one socket, as a model sees them (no shared-memory slots). */
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

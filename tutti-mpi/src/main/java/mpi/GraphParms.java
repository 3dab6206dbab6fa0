package mpi;

/** A graph topology as {@link GraphComm#getDims} reports it: MPI's index and edges arrays. */
public final class GraphParms {
    private final int[] index;
    private final int[] edges;

    GraphParms(int[] index, int[] edges) {
        this.index = index;
        this.edges = edges;
    }

    /** Number of nodes. */
    public int getIndexCount() {
        return index.length;
    }

    /** The number of edges of nodes 0 to {@code i}. */
    public int getIndex(int i) {
        return index[i];
    }

    /** Number of edges. */
    public int getEdgeCount() {
        return edges.length;
    }

    /** Edge {@code i}'s other end. */
    public int getEdge(int i) {
        return edges[i];
    }
}

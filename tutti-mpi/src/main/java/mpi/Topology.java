package mpi;

import io.tutti.Communicator;

/**
 * The topology of a {@link CartComm} or {@link GraphComm}: its description, this rank's in and out
 * neighbours in MPI's order (a Cartesian grid's: per dimension, the negative side, then the
 * positive), the tag each neighbour message carries, and a communicator of Tutti's of its own for
 * the neighbourhood collectives, so that they never meet the program's messages.
 */
final class Topology {
    final int kind;
    final int[] dims;
    final boolean[] periods;
    final int[] index;
    final int[] edges;
    final int[] in;
    final int[] out;
    /** The tag of the message from in-neighbour i, and of the one to out-neighbour j. */
    final int[] inTags;
    final int[] outTags;
    final int[] inWeights;
    final int[] outWeights;
    final boolean weighted;
    final Communicator traffic;

    private Topology(int kind, int[] dims, boolean[] periods, int[] index, int[] edges, int[] in, int[] out,
                     int[] inTags, int[] outTags, int[] inWeights, int[] outWeights, boolean weighted,
                     Communicator traffic) {
        this.kind = kind;
        this.dims = dims;
        this.periods = periods;
        this.index = index;
        this.edges = edges;
        this.in = in;
        this.out = out;
        this.inTags = inTags;
        this.outTags = outTags;
        this.inWeights = inWeights;
        this.outWeights = outWeights;
        this.weighted = weighted;
        this.traffic = traffic;
    }

    /** The same topology with another communicator for its traffic (that of a dup). */
    Topology with(Communicator other) {
        return new Topology(kind, dims, periods, index, edges, in, out, inTags, outTags, inWeights, outWeights,
                weighted, other);
    }

    /** A Cartesian grid; {@code c} is its communicator (row-major ranks), {@code traffic} a dup of it. */
    static Topology cart(int[] dims, boolean[] periods, int rank, Communicator traffic) {
        int n = dims.length;
        int[] nb = new int[2 * n];
        int[] inTags = new int[2 * n];
        int[] outTags = new int[2 * n];
        int[] coords = coords(dims, rank);
        for (int d = 0; d < n; d++) {
            nb[2 * d] = neighbour(dims, periods, coords, d, -1);
            nb[2 * d + 1] = neighbour(dims, periods, coords, d, 1);
            // what I send towards -1 arrives at that rank from its +1 side, and the reverse
            outTags[2 * d] = 2 * d;
            outTags[2 * d + 1] = 2 * d + 1;
            inTags[2 * d] = 2 * d + 1;
            inTags[2 * d + 1] = 2 * d;
        }
        return new Topology(MPI.CART, dims, periods, null, null, nb, nb, inTags, outTags, null, null, false,
                traffic);
    }

    /** A graph of MPI_GRAPH_CREATE: neighbours are both in and out. */
    static Topology graph(int[] index, int[] edges, int rank, Communicator traffic) {
        int from = rank == 0 ? 0 : index[rank - 1];
        int[] nb = java.util.Arrays.copyOfRange(edges, from, index[rank]);
        int[] tags = new int[nb.length];
        return new Topology(MPI.GRAPH, null, null, index, edges, nb, nb, tags, tags, null, null, false, traffic);
    }

    /** A distributed graph: this rank's sources and destinations, with weights or not. */
    static Topology distGraph(int[] in, int[] inWeights, int[] out, int[] outWeights, boolean weighted,
                              Communicator traffic) {
        return new Topology(MPI.DIST_GRAPH, null, null, null, null, in, out, new int[in.length],
                new int[out.length], inWeights, outWeights, weighted, traffic);
    }

    /** The coordinates of {@code rank} in a row-major grid. */
    static int[] coords(int[] dims, int rank) {
        int[] c = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rank % dims[d];
            rank /= dims[d];
        }
        return c;
    }

    /** The rank at {@code coords} (wrapped in periodic dimensions), or -1 outside a non-periodic one. */
    static int rank(int[] dims, boolean[] periods, int[] coords) {
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            int x = coords[d];
            if (x < 0 || x >= dims[d]) {
                if (!periods[d]) {
                    return -1;
                }
                x = Math.floorMod(x, dims[d]);
            }
            r = r * dims[d] + x;
        }
        return r;
    }

    /** The rank {@code disp} steps along dimension {@code d} from {@code coords}, or {@link MPI#PROC_NULL}. */
    static int neighbour(int[] dims, boolean[] periods, int[] coords, int d, int disp) {
        int[] c = coords.clone();
        c[d] += disp;
        int r = rank(dims, periods, c);
        return r < 0 ? MPI.PROC_NULL : r;
    }
}

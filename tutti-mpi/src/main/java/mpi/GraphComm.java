package mpi;

import io.tutti.Communicator;
import io.tutti.TuttiException;

/**
 * A communicator with a graph topology: a graph of MPI_GRAPH_CREATE ({@link Intracomm#createGraph},
 * every rank knowing all of it) or a distributed one ({@link Intracomm#createDistGraph},
 * {@link Intracomm#createDistGraphAdjacent}, each rank knowing its own edges). Kept in this layer;
 * {@code reorder} is accepted and ranks are kept.
 */
public final class GraphComm extends Intracomm {
    GraphComm(Communicator c, Comm parent, Topology topology) {
        super(c, parent);
        this.topology = topology;
    }

    @Override
    public GraphComm dup() throws MPIException {
        return new GraphComm(dupTutti("dup"), this, topology.with(dupTutti("dup"))).copyAttributes(this);
    }

    @Override
    public GraphComm iDup() throws MPIException {
        return dup();
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    @Override
    public GraphComm clone() {
        return (GraphComm) super.clone();
    }

    /** The index and edges of a graph of MPI_GRAPH_CREATE (MPI_GRAPH_GET). */
    public GraphParms getDims() throws MPIException {
        Topology t = graphOnly("GraphComm.getDims");
        return new GraphParms(t.index.clone(), t.edges.clone());
    }

    /** The neighbours of {@code rank} in a graph of MPI_GRAPH_CREATE (MPI_GRAPH_NEIGHBORS). */
    public int[] getNeighbors(int rank) throws MPIException {
        Topology t = graphOnly("GraphComm.getNeighbors");
        if (rank < 0 || rank >= t.index.length) {
            throw Errors.error(MPI.ERR_RANK, "GraphComm.getNeighbors: invalid rank " + rank);
        }
        return java.util.Arrays.copyOfRange(t.edges, rank == 0 ? 0 : t.index[rank - 1], t.index[rank]);
    }

    /** This rank's in and out edges in a distributed graph (MPI_DIST_GRAPH_NEIGHBORS). */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        Topology t = topology();
        if (t.kind != MPI.DIST_GRAPH) {
            throw Errors.error(MPI.ERR_TOPOLOGY, "GraphComm.getDistGraphNeighbors: not a distributed graph");
        }
        return new DistGraphNeighbors(t.in.clone(), t.inWeights.clone(), t.out.clone(), t.outWeights.clone(),
                t.weighted);
    }

    /** The rank this process would have in the graph (MPI_GRAPH_MAP): its own, or {@link MPI#UNDEFINED}. */
    public int map(int[] index, int[] edges) throws MPIException {
        Intracomm.checkGraph(index, edges, getSize(), "GraphComm.map");
        return getRank() < index.length ? getRank() : MPI.UNDEFINED;
    }

    private Topology graphOnly(String call) throws MPIException {
        Topology t = topology();
        if (t.kind != MPI.GRAPH) {
            throw Errors.error(MPI.ERR_TOPOLOGY, call + ": not a graph of createGraph (a distributed one: use"
                    + " getDistGraphNeighbors)");
        }
        return t;
    }

    /** A graph communicator over {@code c} (null: this rank is not in it), its traffic on a dup. */
    static GraphComm over(Communicator c, Comm parent, java.util.function.Function<Communicator, Topology> topology,
                          String call) throws MPIException {
        if (c == null) {
            return new GraphComm(null, parent, null);
        }
        try {
            return new GraphComm(c, parent, topology.apply(c.dup()));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }
}

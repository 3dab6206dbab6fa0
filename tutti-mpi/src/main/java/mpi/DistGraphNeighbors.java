package mpi;

/** A rank's neighbours in a distributed graph ({@link GraphComm#getDistGraphNeighbors}), with their weights. */
public final class DistGraphNeighbors {
    private final int[] sources;
    private final int[] sourceWeights;
    private final int[] destinations;
    private final int[] destWeights;
    private final boolean weighted;

    DistGraphNeighbors(int[] sources, int[] sourceWeights, int[] destinations, int[] destWeights, boolean weighted) {
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destWeights = destWeights;
        this.weighted = weighted;
    }

    /** Number of edges into this rank. */
    public int getInDegree() {
        return sources.length;
    }

    /** Number of edges out of this rank. */
    public int getOutDegree() {
        return destinations.length;
    }

    /** Whether the graph was made with weights. */
    public boolean isWeighted() {
        return weighted;
    }

    /** The rank at the other end of in-edge {@code i}. */
    public int getSource(int i) {
        return sources[i];
    }

    /** The weight of in-edge {@code i}. */
    public int getSourceWeight(int i) {
        return sourceWeights[i];
    }

    /** The rank at the other end of out-edge {@code i}. */
    public int getDestination(int i) {
        return destinations[i];
    }

    /** The weight of out-edge {@code i}. */
    public int getDestinationWeight(int i) {
        return destWeights[i];
    }
}

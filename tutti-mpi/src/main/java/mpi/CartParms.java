package mpi;

/** A Cartesian topology as {@link CartComm#getTopo} reports it: dimensions, periods, this rank's coordinates. */
public final class CartParms {
    private final int[] dims;
    private final boolean[] periods;
    private final int[] coords;

    CartParms(int[] dims, boolean[] periods, int[] coords) {
        this.dims = dims;
        this.periods = periods;
        this.coords = coords;
    }

    /** Number of dimensions. */
    public int getDimCount() {
        return dims.length;
    }

    /** Number of processes along dimension {@code i}. */
    public int getDim(int i) {
        return dims[i];
    }

    /** Whether dimension {@code i} wraps around. */
    public boolean getPeriod(int i) {
        return periods[i];
    }

    /** This rank's coordinate along dimension {@code i}. */
    public int getCoord(int i) {
        return coords[i];
    }
}

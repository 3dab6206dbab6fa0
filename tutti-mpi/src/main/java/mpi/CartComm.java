package mpi;

import io.tutti.Communicator;
import io.tutti.TuttiException;

/**
 * A communicator with a Cartesian topology ({@link Intracomm#createCart}): ranks in row-major order
 * over a grid of {@code dims}, each dimension periodic or not. The grid is kept in this layer;
 * {@code reorder} is accepted and ranks are kept (MPI allows it).
 */
public final class CartComm extends Intracomm {
    CartComm(Communicator c, Comm parent, Topology topology) {
        super(c, parent);
        this.topology = topology;
    }

    /** A grid over {@code c}'s ranks (null: this rank is not in it). */
    static CartComm over(Communicator c, Comm parent, int[] dims, boolean[] periods, String call)
            throws MPIException {
        if (c == null) {
            return new CartComm(null, parent, null);
        }
        try {
            return new CartComm(c, parent, Topology.cart(dims, periods, c.rank(), c.dup()));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    @Override
    public CartComm dup() throws MPIException {
        return new CartComm(dupTutti("dup"), this, topology.with(dupTutti("dup"))).copyAttributes(this);
    }

    @Override
    public CartComm iDup() throws MPIException {
        return dup();
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    @Override
    public CartComm clone() {
        return (CartComm) super.clone();
    }

    /** The dimensions, periods and this rank's coordinates (MPI_CART_GET). */
    public CartParms getTopo() throws MPIException {
        return new CartParms(topology().dims.clone(), topology.periods.clone(), Topology.coords(topology.dims,
                getRank()));
    }

    /**
     * The rank at {@code coords} (MPI_CART_RANK), wrapped in periodic dimensions; outside a
     * non-periodic one fails with {@link MPI#ERR_ARG}.
     */
    public int getRank(int[] coords) throws MPIException {
        Topology t = topology();
        if (coords == null || coords.length != t.dims.length) {
            throw Errors.error(MPI.ERR_DIMS, "CartComm.getRank: " + t.dims.length + " coordinates are needed");
        }
        int r = Topology.rank(t.dims, t.periods, coords);
        if (r < 0) {
            throw Errors.error(MPI.ERR_ARG, "CartComm.getRank: coordinates " + java.util.Arrays.toString(coords)
                    + " are outside the grid " + java.util.Arrays.toString(t.dims) + " in a non-periodic dimension");
        }
        return r;
    }

    /** The coordinates of {@code rank} (MPI_CART_COORDS). */
    public int[] getCoords(int rank) throws MPIException {
        Topology t = topology();
        if (rank < 0 || rank >= getSize()) {
            throw Errors.error(MPI.ERR_RANK, "CartComm.getCoords: invalid rank " + rank + ": the grid has "
                    + getSize() + " ranks");
        }
        return Topology.coords(t.dims, rank);
    }

    /**
     * The ranks {@code disp} steps before and after this one along dimension {@code direction}
     * (MPI_CART_SHIFT): the source and destination of a shift, {@link MPI#PROC_NULL} past a
     * non-periodic edge.
     */
    public ShiftParms shift(int direction, int disp) throws MPIException {
        Topology t = topology();
        if (direction < 0 || direction >= t.dims.length) {
            throw Errors.error(MPI.ERR_DIMS, "CartComm.shift: invalid direction " + direction + ": the grid has "
                    + t.dims.length + " dimensions");
        }
        int[] c = Topology.coords(t.dims, getRank());
        return new ShiftParms(Topology.neighbour(t.dims, t.periods, c, direction, -disp),
                Topology.neighbour(t.dims, t.periods, c, direction, disp));
    }

    /**
     * The sub-grids that keep the dimensions where {@code remainDims} is true (MPI_CART_SUB): this
     * rank's is the one through it. Collective.
     */
    public CartComm sub(boolean[] remainDims) throws MPIException {
        Topology t = topology();
        if (remainDims == null || remainDims.length != t.dims.length) {
            throw Errors.error(MPI.ERR_DIMS, "CartComm.sub: a flag per dimension (" + t.dims.length + ") is needed");
        }
        int[] c = Topology.coords(t.dims, getRank());
        int colour = 0;
        int key = 0;
        int kept = 0;
        for (int d = 0; d < t.dims.length; d++) {
            if (remainDims[d]) {
                key = key * t.dims[d] + c[d];
                kept++;
            } else {
                colour = colour * t.dims[d] + c[d];
            }
        }
        int[] dims = new int[kept];
        boolean[] periods = new boolean[kept];
        for (int d = 0, k = 0; d < t.dims.length; d++) {
            if (remainDims[d]) {
                dims[k] = t.dims[d];
                periods[k++] = t.periods[d];
            }
        }
        return over(split(colour, key, "sub"), this, dims, periods, "sub");
    }

    /** The rank this process would have in a grid of {@code dims} (MPI_CART_MAP): its own, or {@link MPI#UNDEFINED}. */
    public int map(int[] dims, boolean[] periods) throws MPIException {
        int n = Intracomm.gridSize(dims, periods, getSize(), "CartComm.map");
        int r = getRank();
        return r < n ? r : MPI.UNDEFINED;
    }

    /**
     * Fills the zeros of {@code dims} so that the dimensions multiply to {@code nnodes}, as balanced
     * as can be, largest first (MPI_DIMS_CREATE); the others stay. Fails with {@link MPI#ERR_DIMS}
     * when they cannot.
     */
    public static void createDims(int nnodes, int[] dims) throws MPIException {
        MPI.check();
        if (nnodes <= 0 || dims == null) {
            throw Errors.error(MPI.ERR_DIMS, "CartComm.createDims: nnodes is 1 or more and dims an array");
        }
        long fixed = 1;
        int free = 0;
        for (int d : dims) {
            if (d < 0) {
                throw Errors.error(MPI.ERR_DIMS, "CartComm.createDims: dimension " + d + " is negative");
            }
            if (d > 0) {
                fixed *= d;
            } else {
                free++;
            }
        }
        if (nnodes % fixed != 0) {
            throw Errors.error(MPI.ERR_DIMS, "CartComm.createDims: the given dimensions (product " + fixed
                    + ") do not divide " + nnodes);
        }
        int rest = (int) (nnodes / fixed);
        if (free == 0) {
            if (rest != 1) {
                throw Errors.error(MPI.ERR_DIMS, "CartComm.createDims: the dimensions multiply to " + fixed
                        + ", not " + nnodes);
            }
            return;
        }
        int[] f = new int[free];
        java.util.Arrays.fill(f, 1);
        // the prime factors, largest first, each to the dimension smallest so far
        java.util.List<Integer> primes = new java.util.ArrayList<>();
        for (int p = 2, n = rest; n > 1; ) {
            if ((long) p * p > n) {
                primes.add(n);
                break;
            }
            if (n % p == 0) {
                primes.add(p);
                n /= p;
            } else {
                p++;
            }
        }
        primes.sort(java.util.Comparator.reverseOrder());
        for (int p : primes) {
            int smallest = 0;
            for (int i = 1; i < free; i++) {
                if (f[i] < f[smallest]) {
                    smallest = i;
                }
            }
            f[smallest] *= p;
        }
        java.util.Arrays.sort(f);
        for (int i = 0, k = free - 1; i < dims.length; i++) {
            if (dims[i] == 0) {
                dims[i] = f[k--];
            }
        }
    }
}

package io.tutti.samples.mpi;

import mpi.CartComm;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.ShiftParms;

/**
 * Laplace's equation on an N x N grid by Jacobi sweeps, as an Open MPI Java program: the grid is
 * cut into blocks over a Cartesian communicator ({@code createDims}, {@code createCart}), each
 * sweep exchanges the blocks' edges with the four neighbours ({@code shift}, {@code sendRecv}; the
 * columns through a vector datatype), and the change per sweep and the grid's sum come from
 * {@code allReduce}. The top edge is held at 1, the others at 0.
 *
 * <pre>
 * tutti-mpijavac -d classes Jacobi.java
 * tutti-mpirun -np 4 java -cp classes io.tutti.samples.mpi.Jacobi [N] [SWEEPS]
 * </pre>
 */
public final class Jacobi {
    private Jacobi() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int sweeps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int size = MPI.COMM_WORLD.getSize();

        int[] dims = {0, 0};
        CartComm.createDims(size, dims);
        CartComm grid = MPI.COMM_WORLD.createCart(dims, new boolean[] {false, false}, true);
        int[] coords = grid.getCoords(grid.getRank());
        int rows = share(n, dims[0], coords[0]);
        int cols = share(n, dims[1], coords[1]);
        int width = cols + 2;                         // a halo of one cell all round

        double[] u = new double[(rows + 2) * width];
        double[] next = new double[(rows + 2) * width];
        if (coords[0] == 0) {
            for (int j = 0; j < width; j++) {
                u[j] = 1.0;                           // the top edge of the whole grid
                next[j] = 1.0;
            }
        }
        Datatype column = Datatype.createVector(rows, 1, width, MPI.DOUBLE);
        column.commit();
        ShiftParms vertical = grid.shift(0, 1);
        ShiftParms horizontal = grid.shift(1, 1);

        double[] change = new double[1];
        for (int sweep = 0; sweep < sweeps; sweep++) {
            // edges: my last row down and my first row up, my last column right and my first column left
            grid.sendRecv(MPI.slice(u, rows * width + 1), cols, MPI.DOUBLE, vertical.getRankDest(), 0,
                    MPI.slice(u, 1), cols, MPI.DOUBLE, vertical.getRankSource(), 0);
            grid.sendRecv(MPI.slice(u, width + 1), cols, MPI.DOUBLE, vertical.getRankSource(), 1,
                    MPI.slice(u, (rows + 1) * width + 1), cols, MPI.DOUBLE, vertical.getRankDest(), 1);
            grid.sendRecv(MPI.slice(u, width + cols), 1, column, horizontal.getRankDest(), 2,
                    MPI.slice(u, width), 1, column, horizontal.getRankSource(), 2);
            grid.sendRecv(MPI.slice(u, width + 1), 1, column, horizontal.getRankSource(), 3,
                    MPI.slice(u, width + cols + 1), 1, column, horizontal.getRankDest(), 3);

            double most = 0;
            for (int i = 1; i <= rows; i++) {
                for (int j = 1; j <= cols; j++) {
                    int k = i * width + j;
                    next[k] = 0.25 * (u[k - width] + u[k + width] + u[k - 1] + u[k + 1]);
                    most = Math.max(most, Math.abs(next[k] - u[k]));
                }
            }
            double[] t = u;
            u = next;
            next = t;
            change[0] = most;
            grid.allReduce(change, 1, MPI.DOUBLE, MPI.MAX);
        }

        double[] sum = {0};
        for (int i = 1; i <= rows; i++) {
            for (int j = 1; j <= cols; j++) {
                sum[0] += u[i * width + j];
            }
        }
        grid.allReduce(sum, 1, MPI.DOUBLE, MPI.SUM);
        if (grid.getRank() == 0) {
            System.out.printf("Jacobi: %d x %d grid on %d x %d ranks, %d sweeps: last change %.3e, sum %.6f%n",
                    n, n, dims[0], dims[1], sweeps, change[0], sum[0]);
        }
        column.free();
        grid.free();
        MPI.Finalize();
    }

    /** The rows (or columns) of block {@code k} of {@code parts}: the first {@code n % parts} blocks get one more. */
    private static int share(int n, int parts, int k) {
        return n / parts + (k < n % parts ? 1 : 0);
    }
}

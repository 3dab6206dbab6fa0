package io.tutti.samples;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.ReduceOp;
import java.util.Locale;

/**
 * 2-D heat diffusion (Jacobi iteration) on a grid split into blocks, one per rank, with halo
 * exchange between neighbours, a global residual by allreduce and the final grid collected on rank 0
 * by gather; then a short latency and bandwidth table between ranks 0 and 1.
 * Rank 0 checks the parallel result against a sequential run of the same problem.
 *
 * <p>Run with {@code tutti demo} or {@code tutti run -n 4 io.tutti.samples.HeatDiffusion [N STEPS]}.
 */
public final class HeatDiffusion {
    static final int TAG_HALO = 10;
    static final double HOT = 100.0;

    private HeatDiffusion() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 384;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        try (Tutti tutti = Tutti.init(args)) {
            Communicator world = tutti.world();
            int size = world.size();
            int rank = world.rank();
            int px = gridRows(size);
            int py = size / px;
            if (n % px != 0 || n % py != 0) {
                throw new IllegalArgumentException("grid size " + n + " must divide into " + px + " x " + py + " blocks");
            }
            if (rank == 0) {
                System.out.printf("heat: %d ranks as %d x %d blocks, grid %d x %d, %d Jacobi steps, hot top edge%n",
                        size, px, py, n, n, steps);
            }
            long t0 = System.nanoTime();
            Block b = new Block(world, n, px, py);
            double[] residual = new double[1];
            double[] globalResidual = new double[1];
            for (int s = 1; s <= steps; s++) {
                b.exchangeHalos();
                residual[0] = b.step();
                if (s % (steps / 4) == 0) {
                    // the largest change anywhere in the grid: every rank learns it
                    world.allreduce(residual, globalResidual, 1, Datatype.DOUBLE, ReduceOp.MAX);
                    if (rank == 0) {
                        System.out.printf(Locale.ROOT, "heat: step %d of %d, largest change in the last step %.3e%n",
                                s, steps, globalResidual[0]);
                    }
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            double[] full = b.gather();
            if (rank == 0) {
                double[] reference = sequential(n, steps);
                double maxDiff = 0;
                double sum = 0;
                for (int i = 0; i < full.length; i++) {
                    maxDiff = Math.max(maxDiff, Math.abs(full[i] - reference[i]));
                    sum += full[i];
                }
                System.out.printf(Locale.ROOT, "heat: done in %.3f s; mean temperature %.4f; max |parallel - sequential|"
                        + " = %.1e (%s)%n", seconds, sum / full.length, maxDiff, maxDiff == 0 ? "identical" : "DIFFERENT");
                if (maxDiff != 0) {
                    throw new IllegalStateException("the parallel result differs from the sequential one");
                }
            }
            if (size >= 2) {
                pingPongTable(world);
            }
        }
    }

    /** Number of block rows: the largest divisor of size that is at most its square root. */
    static int gridRows(int size) {
        int r = (int) Math.sqrt(size);
        while (size % r != 0) {
            r--;
        }
        return r;
    }

    /** One rank's block with a one-cell halo. */
    static final class Block {
        final Communicator comm;
        final int n;
        final int rows;
        final int cols;
        final int br;
        final int bc;
        final int px;
        final int py;
        final int north;
        final int south;
        final int west;
        final int east;
        double[] cur;
        double[] next;
        final double[] sendWest;
        final double[] sendEast;
        final double[] recvWest;
        final double[] recvEast;
        final Request[] requests = new Request[8];

        Block(Communicator comm, int n, int px, int py) {
            this.comm = comm;
            this.n = n;
            this.px = px;
            this.py = py;
            this.rows = n / px;
            this.cols = n / py;
            this.br = comm.rank() / py;
            this.bc = comm.rank() % py;
            this.north = br > 0 ? comm.rank() - py : -1;
            this.south = br < px - 1 ? comm.rank() + py : -1;
            this.west = bc > 0 ? comm.rank() - 1 : -1;
            this.east = bc < py - 1 ? comm.rank() + 1 : -1;
            this.cur = new double[(rows + 2) * (cols + 2)];
            this.next = new double[(rows + 2) * (cols + 2)];
            this.sendWest = new double[rows];
            this.sendEast = new double[rows];
            this.recvWest = new double[rows];
            this.recvEast = new double[rows];
            if (north < 0) {
                // the global top boundary is held hot
                for (int j = 0; j < cols + 2; j++) {
                    cur[j] = HOT;
                    next[j] = HOT;
                }
            }
        }

        int at(int i, int j) {
            return i * (cols + 2) + j;
        }

        void exchangeHalos() {
            int w = cols + 2;
            int k = 0;
            // rows are contiguous: send them straight from the grid; columns are packed
            if (north >= 0) {
                requests[k++] = comm.irecv(cur, 1, cols, north, TAG_HALO);
                requests[k++] = comm.isend(cur, w + 1, cols, north, TAG_HALO);
            }
            if (south >= 0) {
                requests[k++] = comm.irecv(cur, (rows + 1) * w + 1, cols, south, TAG_HALO);
                requests[k++] = comm.isend(cur, rows * w + 1, cols, south, TAG_HALO);
            }
            if (west >= 0) {
                for (int i = 0; i < rows; i++) {
                    sendWest[i] = cur[at(i + 1, 1)];
                }
                requests[k++] = comm.irecv(recvWest, 0, rows, west, TAG_HALO);
                requests[k++] = comm.isend(sendWest, 0, rows, west, TAG_HALO);
            }
            if (east >= 0) {
                for (int i = 0; i < rows; i++) {
                    sendEast[i] = cur[at(i + 1, cols)];
                }
                requests[k++] = comm.irecv(recvEast, 0, rows, east, TAG_HALO);
                requests[k++] = comm.isend(sendEast, 0, rows, east, TAG_HALO);
            }
            for (int i = 0; i < k; i++) {
                requests[i].waitFor(null);
                requests[i] = null;
            }
            if (west >= 0) {
                for (int i = 0; i < rows; i++) {
                    cur[at(i + 1, 0)] = recvWest[i];
                }
            }
            if (east >= 0) {
                for (int i = 0; i < rows; i++) {
                    cur[at(i + 1, cols + 1)] = recvEast[i];
                }
            }
        }

        /** One Jacobi step; returns the largest change of a cell in this block. */
        double step() {
            double change = 0;
            for (int i = 1; i <= rows; i++) {
                for (int j = 1; j <= cols; j++) {
                    double v = 0.25 * (cur[at(i - 1, j)] + cur[at(i + 1, j)] + cur[at(i, j - 1)] + cur[at(i, j + 1)]);
                    change = Math.max(change, Math.abs(v - cur[at(i, j)]));
                    next[at(i, j)] = v;
                }
            }
            double[] t = cur;
            cur = next;
            next = t;
            return change;
        }

        /** Collects the interior of every block on rank 0 (row-major n x n); other ranks get null. */
        double[] gather() {
            double[] mine = new double[rows * cols];
            for (int i = 0; i < rows; i++) {
                System.arraycopy(cur, at(i + 1, 1), mine, i * cols, cols);
            }
            // every block to rank 0 in one collective, rank r's block at r * rows * cols
            double[] blocks = comm.rank() == 0 ? new double[n * n] : null;
            comm.gather(mine, blocks, mine.length, Datatype.DOUBLE, 0);
            if (comm.rank() != 0) {
                return null;
            }
            double[] full = new double[n * n];
            for (int r = 0; r < comm.size(); r++) {
                int r0 = (r / py) * rows;
                int c0 = (r % py) * cols;
                for (int i = 0; i < rows; i++) {
                    System.arraycopy(blocks, r * rows * cols + i * cols, full, (r0 + i) * n + c0, cols);
                }
            }
            return full;
        }
    }

    /** The same problem on one grid, for checking. */
    static double[] sequential(int n, int steps) {
        int w = n + 2;
        double[] cur = new double[w * w];
        double[] next = new double[w * w];
        for (int j = 0; j < w; j++) {
            cur[j] = HOT;
            next[j] = HOT;
        }
        for (int s = 0; s < steps; s++) {
            for (int i = 1; i <= n; i++) {
                for (int j = 1; j <= n; j++) {
                    next[i * w + j] = 0.25 * (cur[(i - 1) * w + j] + cur[(i + 1) * w + j] + cur[i * w + j - 1]
                            + cur[i * w + j + 1]);
                }
            }
            double[] t = cur;
            cur = next;
            next = t;
        }
        double[] out = new double[n * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(cur, (i + 1) * w + 1, out, i * n, n);
        }
        return out;
    }

    /** A short ping-pong table between ranks 0 and 1 (the full benchmark is {@code tutti bench}). */
    static void pingPongTable(Communicator world) {
        int rank = world.rank();
        if (rank > 1) {
            return;
        }
        int[] sizes = {8, 1024, 65536, 1 << 20};
        byte[] buf = new byte[1 << 20];
        Status st = new Status();
        if (rank == 0) {
            System.out.println("ping-pong between ranks 0 and 1 (shared memory):");
            if (world.size() > Runtime.getRuntime().availableProcessors()) {
                System.out.println("  (" + world.size() + " ranks share " + Runtime.getRuntime().availableProcessors()
                        + " cores, so a waiting rank yields its core at once; 'tutti bench latency -n 2' measures"
                        + " two ranks alone)");
            }
            System.out.printf("  %10s %14s %14s%n", "bytes", "latency (us)", "MB/s");
        }
        for (int size : sizes) {
            int iters = size <= 65536 ? 4000 : 400;
            long best = Long.MAX_VALUE;
            for (int rep = 0; rep < 3; rep++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    if (rank == 0) {
                        world.send(buf, 0, size, 1, 1);
                        world.recv(buf, 0, size, 1, 1, st);
                    } else {
                        world.recv(buf, 0, size, 0, 1, st);
                        world.send(buf, 0, size, 0, 1);
                    }
                }
                best = Math.min(best, System.nanoTime() - t0);
            }
            if (rank == 0) {
                double oneWayUs = best / 1e3 / iters / 2;
                System.out.printf(Locale.ROOT, "  %10d %14.2f %14.1f%n", size, oneWayUs, size / oneWayUs);
            }
        }
    }
}

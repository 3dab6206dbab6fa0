package io.tutti.samples;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.Window;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * 1-D heat diffusion along a rod split into one segment per rank, with the halo exchange done by
 * one-sided puts: each rank's window is its cells with a ghost cell at each end, and every step each
 * rank puts its edge cells into its neighbours' ghost cells between two fences. Rank 0 checks the
 * result against a sequential run.
 *
 * <p>Run with {@code tutti run -n 4 io.tutti.samples.HaloExchange [CELLS_PER_RANK STEPS]}.
 */
public final class HaloExchange {
    static final double HOT = 100.0;

    private HaloExchange() {
    }

    public static void main(String[] args) {
        int cells = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        try (Tutti tutti = Tutti.init(args)) {
            Communicator world = tutti.world();
            int rank = world.rank();
            int size = world.size();
            int left = rank - 1;
            int right = rank + 1 < size ? rank + 1 : -1;
            // window: ghost, cells 1..cells, ghost; displacements count doubles
            try (Window win = world.allocateWindow((cells + 2L) * Double.BYTES, Double.BYTES)) {
                MemorySegment u = win.segment();
                double[] next = new double[cells + 2];
                double[] edge = new double[1];
                if (rank == 0) {
                    u.setAtIndex(ValueLayout.JAVA_DOUBLE, 0, HOT); // the rod's hot end, a fixed ghost
                }
                for (int s = 0; s < steps; s++) {
                    win.fence();
                    if (left >= 0) {
                        edge[0] = u.getAtIndex(ValueLayout.JAVA_DOUBLE, 1);
                        win.put(edge, 1, Datatype.DOUBLE, left, cells + 1);
                    }
                    if (right >= 0) {
                        edge[0] = u.getAtIndex(ValueLayout.JAVA_DOUBLE, cells);
                        win.put(edge, 1, Datatype.DOUBLE, right, 0);
                    }
                    win.fence(Window.MODE_NOSUCCEED);
                    for (int i = 1; i <= cells; i++) {
                        next[i] = u.getAtIndex(ValueLayout.JAVA_DOUBLE, i) + 0.25 * (u.getAtIndex(ValueLayout.JAVA_DOUBLE,
                                i - 1) - 2 * u.getAtIndex(ValueLayout.JAVA_DOUBLE, i) + u.getAtIndex(
                                ValueLayout.JAVA_DOUBLE, i + 1));
                    }
                    MemorySegment.copy(MemorySegment.ofArray(next), ValueLayout.JAVA_DOUBLE, Double.BYTES, u,
                            ValueLayout.JAVA_DOUBLE, Double.BYTES, cells);
                }
                double[] mine = new double[cells];
                MemorySegment.copy(u, ValueLayout.JAVA_DOUBLE, Double.BYTES, mine, 0, cells);
                double[] rod = rank == 0 ? new double[cells * size] : null;
                world.gather(mine, rod, cells, Datatype.DOUBLE, 0);
                double[] heat = {0};
                for (double v : mine) {
                    heat[0] += v;
                }
                world.allreduce(Communicator.IN_PLACE, heat, 1, Datatype.DOUBLE, ReduceOp.SUM);
                if (rank == 0) {
                    double[] reference = sequential(cells * size, steps);
                    double maxDiff = 0;
                    for (int i = 0; i < rod.length; i++) {
                        maxDiff = Math.max(maxDiff, Math.abs(rod[i] - reference[i]));
                    }
                    System.out.printf(Locale.ROOT, "halo: %d ranks x %d cells, %d steps; heat in the rod %.4f;"
                            + " max |parallel - sequential| = %.1e (%s)%n", size, cells, steps, heat[0], maxDiff,
                            maxDiff == 0 ? "identical" : "DIFFERENT");
                    if (maxDiff != 0) {
                        throw new IllegalStateException("the parallel result differs from the sequential one");
                    }
                }
            }
        }
    }

    /** The same steps on the whole rod at once. */
    static double[] sequential(int n, int steps) {
        double[] u = new double[n + 2];
        double[] next = new double[n + 2];
        u[0] = HOT;
        next[0] = HOT;
        for (int s = 0; s < steps; s++) {
            for (int i = 1; i <= n; i++) {
                next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
            }
            double[] t = u;
            u = next;
            next = t;
        }
        double[] rod = new double[n];
        System.arraycopy(u, 1, rod, 0, n);
        return rod;
    }
}

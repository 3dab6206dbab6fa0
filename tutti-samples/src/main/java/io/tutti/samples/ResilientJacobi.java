package io.tutti.samples;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.util.Arrays;
import java.util.List;

/**
 * A Jacobi solver that survives a failed rank: the vector is split in blocks across the ranks, and
 * every few iterations each rank checkpoints its block in memory, its own copy and one at its buddy
 * (the next rank). A checkpoint counts once {@code agree} says every rank made it. When a rank dies
 * the survivors revoke, agree to recover, shrink, rebuild the whole vector from the checkpoints (the
 * dead rank's block from its buddy), split it over the survivors and go on from there; they finish
 * with the answer a single process gets. With {@code respawn}, the survivors then spawn as many new
 * ranks as were lost ({@code Communicator.spawn}) and merge with them, and the job finishes with as
 * many ranks as it started with; without, it finishes with fewer. Failures one after another are
 * survived alike, but two neighbouring ranks failing between checkpoints lose a block: reported, not
 * survived.
 *
 * <p>The system solved is (4 I + J / N) x = b, J all ones, b_i = 1 + i mod 7: each step needs the
 * sum of x, one allreduce. Run with {@code tutti run -n 5 --on-failure continue
 * io.tutti.samples.ResilientJacobi [N] [ITERATIONS] [RANK ITERATION [respawn]]}; with RANK and
 * ITERATION, that rank kills itself (SIGKILL) at that iteration, to show the recovery.
 */
public final class ResilientJacobi {
    /** Iterations between checkpoints. */
    static final int CHECKPOINT_EVERY = 10;

    private final int n;
    private final int iterations;
    /** Whether lost ranks are replaced by new processes after a recovery. */
    private final boolean respawn;
    private Communicator comm;
    /** This rank's block of x: elements lo .. lo + x.length - 1. */
    private int lo;
    private double[] x;
    /** The committed checkpoint: its iteration, this rank's block and its ward's (the previous rank's). */
    private int savedAt = -1;
    private int savedLo;
    private double[] saved;
    private int wardLo;
    private double[] ward;
    /** This rank's rank in the communicator the checkpoint was taken on, and that communicator's size. */
    private int savedRank;
    private int savedSize;

    private ResilientJacobi(int n, int iterations, boolean respawn, Communicator comm) {
        this.n = n;
        this.iterations = iterations;
        this.respawn = respawn;
        this.comm = comm;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1200;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int victim = args.length > 3 ? Integer.parseInt(args[2]) : -1;
        int killAt = args.length > 3 ? Integer.parseInt(args[3]) : -1;
        boolean respawn = args.length > 4 && args[4].equals("respawn");
        try (Tutti tutti = Tutti.init(args)) {
            ResilientJacobi solver = new ResilientJacobi(n, iterations, respawn, tutti.world());
            int worldRank = tutti.world().rank();
            Intercommunicator parent = tutti.parent();
            double[] mine = parent == null ? solver.solve(worldRank == victim ? killAt : -1)
                    : solver.replace(parent);
            double[] expected = sequential(n, iterations);
            double error = 0;
            for (int i = 0; i < mine.length; i++) {
                error = Math.max(error, Math.abs(mine[i] - expected[solver.lo + i]));
            }
            System.out.printf("jacobi: rank %d (now %d of %d) holds x[%d..%d], largest error %.1e%n", worldRank,
                    solver.comm.rank(), solver.comm.size(), solver.lo, solver.lo + mine.length - 1, error);
            if (error > 1e-9) {
                throw new IllegalStateException("rank " + worldRank + " has a wrong answer: error " + error);
            }
        }
    }

    /** Runs the iterations, surviving failures; this rank dies at {@code dieAt} (or never: -1). */
    double[] solve(int dieAt) throws Exception {
        // iteration 0 (all zeros) is known to every rank: the first committed checkpoint
        restart(0, new double[n]);
        return iterate(0, dieAt);
    }

    /**
     * A new rank, spawned by survivors to replace a lost one: merges with them (after them) and
     * takes the iteration they went back to and the whole vector at it from their first rank.
     */
    double[] replace(Intercommunicator survivors) throws Exception {
        comm = survivors.merge(true);
        int[] at = new int[1];
        comm.bcast(at, 0);
        double[] whole = new double[n];
        comm.bcast(whole, 0);
        restart(at[0], whole);
        System.out.println("jacobi: replacement rank " + comm.rank() + " of " + comm.size() + " joins at iteration "
                + at[0]);
        return iterate(at[0], -1);
    }

    /** Takes this rank's block of {@code whole}, the vector at iteration {@code at}, as committed checkpoint. */
    private void restart(int at, double[] whole) {
        distribute(whole);
        savedAt = at;
        savedLo = lo;
        saved = x.clone();
        savedRank = comm.rank();
        savedSize = comm.size();
        int wardRank = (savedRank + savedSize - 1) % savedSize;
        wardLo = blockStart(wardRank, savedSize);
        ward = Arrays.copyOfRange(whole, wardLo, wardLo + blockLength(wardRank, savedSize));
    }

    private double[] iterate(int from, int dieAt) throws Exception {
        int it = from;
        while (it < iterations) {
            try {
                if (it % CHECKPOINT_EVERY == 0 && savedAt != it && !checkpoint(it)) {
                    recover();
                    it = savedAt;
                    continue;
                }
                if (it == dieAt) {
                    // a crash as the operating system would do it: no goodbye, no clean-up
                    new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                    Thread.sleep(60_000);
                }
                step();
                it++;
            } catch (TuttiException.PeerFailed | TuttiException.Revoked e) {
                System.out.println("jacobi: rank " + comm.rank() + " at iteration " + it + ": " + e.getMessage());
                comm.revoke();
                // every survivor meets in the same agreement: here, or in the checkpoint's
                agreeOrZero(0);
                recover();
                it = savedAt;
            }
        }
        return x;
    }

    private void step() {
        double local = 0;
        for (double v : x) {
            local += v;
        }
        double[] sum = new double[1];
        comm.allreduce(new double[] {local}, sum, ReduceOp.SUM);
        for (int i = 0; i < x.length; i++) {
            x[i] = update(lo + i, x[i], sum[0], n);
        }
    }

    static double update(int i, double xi, double sum, int n) {
        return (1 + i % 7 - (sum - xi) / n) / (4 + 1.0 / n);
    }

    /**
     * Sends this rank's block to its buddy and takes its ward's, then asks every rank whether all
     * went well: the checkpoint is committed only when the agreement says yes, everywhere alike.
     */
    private boolean checkpoint(int it) {
        int size = comm.size();
        int me = comm.rank();
        int buddy = (me + 1) % size;
        int wardRank = (me + size - 1) % size;
        boolean ok = true;
        double[] fromWard = new double[blockLength(wardRank, size)];
        try {
            comm.sendrecv(x, 0, x.length, buddy, 77, fromWard, 0, fromWard.length, wardRank, 77);
        } catch (TuttiException.PeerFailed | TuttiException.Revoked e) {
            comm.revoke();
            ok = false;
        }
        if (agreeOrZero(ok ? 1 : 0) != 1) {
            return false;
        }
        savedAt = it;
        savedLo = lo;
        saved = x.clone();
        wardLo = blockStart(wardRank, size);
        ward = fromWard;
        savedRank = me;
        savedSize = size;
        return true;
    }

    /** {@code agree(flag)}, where a failure it reports counts as a no. */
    private int agreeOrZero(int flag) {
        try {
            return comm.agree(flag);
        } catch (TuttiException.PeerFailed e) {
            return 0;
        }
    }

    /**
     * Shrinks to the survivors and rebuilds x as it was at the committed checkpoint: every survivor
     * puts in its own block, and its ward's if the ward is gone; an allreduce adds them up.
     */
    private void recover() {
        Communicator shrunk = comm.shrink();
        // from here a failure is the shrunk communicator's: the same recovery runs again on it
        comm = shrunk;
        int[] survivors = new int[shrunk.size()];
        shrunk.allgather(new int[] {savedRank}, survivors);
        boolean[] alive = new boolean[savedSize];
        for (int r : survivors) {
            alive[r] = true;
        }
        for (int r = 0; r < savedSize; r++) {
            if (!alive[r] && !alive[(r + 1) % savedSize]) {
                throw new IllegalStateException("ranks " + r + " and " + (r + 1) % savedSize + " both failed: the"
                        + " checkpoint of rank " + r + " is lost");
            }
        }
        double[] whole = new double[n];
        System.arraycopy(saved, 0, whole, savedLo, saved.length);
        if (!alive[(savedRank + savedSize - 1) % savedSize]) {
            System.arraycopy(ward, 0, whole, wardLo, ward.length);
        }
        shrunk.allreduce(whole, ReduceOp.SUM);
        System.out.println("jacobi: " + comm.size() + " survivors back at iteration " + savedAt + " (ranks before: "
                + Arrays.toString(survivors) + ")");
        int lost = savedSize - shrunk.size();
        if (!respawn || lost == 0) {
            distribute(whole);
            return;
        }
        Intercommunicator fresh = shrunk.spawn(ResilientJacobi.class.getName(),
                List.of(Integer.toString(n), Integer.toString(iterations)), lost, 0);
        comm = fresh.merge(false);
        comm.bcast(new int[] {savedAt}, 0);
        comm.bcast(whole, 0);
        restart(savedAt, whole);
        System.out.println("jacobi: " + lost + " replaced: " + comm.size() + " ranks back at iteration " + savedAt);
    }

    /** Takes this rank's block of {@code whole} for the current communicator. */
    private void distribute(double[] whole) {
        lo = blockStart(comm.rank(), comm.size());
        x = Arrays.copyOfRange(whole, lo, lo + blockLength(comm.rank(), comm.size()));
    }

    private int blockStart(int rank, int size) {
        return (int) ((long) n * rank / size);
    }

    private int blockLength(int rank, int size) {
        return blockStart(rank + 1, size) - blockStart(rank, size);
    }

    /** The same iteration in one process: the answer to check against. */
    static double[] sequential(int n, int iterations) {
        double[] x = new double[n];
        for (int it = 0; it < iterations; it++) {
            double sum = 0;
            for (double v : x) {
                sum += v;
            }
            for (int i = 0; i < n; i++) {
                x[i] = update(i, x[i], sum, n);
            }
        }
        return x;
    }
}

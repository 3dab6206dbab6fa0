package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.that;

import java.nio.IntBuffer;
import java.util.concurrent.atomic.AtomicReference;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/**
 * A program of the mpi API as it runs under {@code tutti run --threads}: each rank, a thread of a
 * JVM shared with others, must see its own MPI state. A ring of sends, an allReduce, a split, a
 * window under fences, and MPI calls from a thread the rank starts itself (THREAD_SERIALIZED); a
 * second MPI.Init from that thread is refused at once, naming the thread that called it first. With
 * argument "from-a-thread", all that runs in a thread that main starts, MPI.Init included.
 */
public final class MpiThreadRanks {
    private MpiThreadRanks() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("from-a-thread")) {
            // the whole program, MPI.Init included, in a thread that main starts
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    run(args);
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "the program's own");
            t.start();
            t.join();
            if (failure.get() != null) {
                throw new AssertionError("the program's thread failed", failure.get());
            }
            return;
        }
        run(args);
    }

    private static void run(String[] args) throws Exception {
        equal(MPI.THREAD_SERIALIZED, MPI.InitThread(args, MPI.THREAD_SERIALIZED), "thread level provided");
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;

        // point-to-point: a ring, each rank's value to its right
        int[] got = new int[1];
        world.sendRecv(new int[] {100 + rank}, 1, MPI.INT, right, 7, got, 1, MPI.INT, left, 7);
        equal(100 + left, got[0], "the value from the left");

        // a collective
        int[] sum = new int[1];
        world.allReduce(new int[] {rank + 1}, sum, 1, MPI.INT, MPI.SUM);
        equal((long) size * (size + 1) / 2, sum[0], "allReduce SUM of rank + 1");

        // comm split: even and odd ranks
        Intracomm half = world.split(rank % 2, rank);
        equal(rank / 2, half.getRank(), "rank in the half");
        equal((size - rank % 2 + 1) / 2, half.getSize(), "size of the half");
        int[] halfSum = new int[1];
        half.allReduce(new int[] {rank}, halfSum, 1, MPI.INT, MPI.SUM);
        int expected = 0;
        for (int r = rank % 2; r < size; r += 2) {
            expected += r;
        }
        equal(expected, halfSum[0], "allReduce over the half");
        half.free();

        // a window: every rank puts its rank into its slot at its right neighbour
        IntBuffer mem = MPI.newIntBuffer(size);
        Win win = new Win(mem, size, 1, MPI.INFO_NULL, world);
        win.fence(0);
        IntBuffer origin = MPI.newIntBuffer(1).put(0, rank);
        win.put(origin, 1, MPI.INT, right, rank, 1, MPI.INT);
        win.fence(0);
        equal(left, mem.get(left), "the left neighbour's put");
        win.free();

        // a thread of the rank's own: MPI calls from it (serialized: this thread waits), and a second Init refused
        AtomicReference<Throwable> failure = new AtomicReference<>();
        String initThread = Thread.currentThread().getName();
        Thread helper = new Thread(() -> {
            try {
                int[] back = new int[1];
                world.sendRecv(new int[] {rank}, 1, MPI.INT, left, 8, back, 1, MPI.INT, right, 8);
                equal(right, back[0], "the right neighbour's rank, from the helper thread");
                equal(rank, MPI.COMM_WORLD.getRank(), "the rank, from the helper thread");
                try {
                    MPI.Init(args);
                    throw new AssertionError("a second MPI.Init was not refused");
                } catch (MPIException e) {
                    that(e.getMessage().startsWith("MPI.Init has been called already, by thread \"" + initThread
                            + "\""), "the second Init's message: " + e.getMessage());
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "helper of rank " + rank);
        helper.start();
        helper.join();
        if (failure.get() != null) {
            throw new AssertionError("the helper thread failed", failure.get());
        }

        world.barrier();
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": thread ranks ok");
    }
}

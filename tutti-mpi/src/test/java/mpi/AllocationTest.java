package mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import org.junit.jupiter.api.Test;

/**
 * What the blocking point-to-point calls allocate, in a job of one rank (this JVM) sending small
 * messages to itself: nothing but the Status each receive returns, for arrays and for a reused
 * direct buffer. The API keeps its state in statics, so this is the one test that initializes MPI
 * in this JVM.
 */
class AllocationTest {
    @Test
    void blockingSendAndRecvAllocateOnlyTheReturnedStatus() throws MPIException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        MPI.Init(new String[0]);
        try {
            Comm world = MPI.COMM_WORLD;
            assertEquals(1, world.getSize());
            int[] out = {1, 2, 3, 4};
            int[] in = new int[4];
            DoubleBuffer dout = MPI.newDoubleBuffer(8);
            DoubleBuffer din = MPI.newDoubleBuffer(8);
            Runnable round = () -> {
                try {
                    world.send(out, 4, MPI.INT, 0, 1);
                    world.recv(in, 4, MPI.INT, 0, 1);
                    world.send(dout, 8, MPI.DOUBLE, 0, 2);
                    world.recv(din, 8, MPI.DOUBLE, 0, 2);
                } catch (MPIException e) {
                    throw new AssertionError(e);
                }
            };
            for (int i = 0; i < 20_000; i++) {
                round.run();
            }
            int rounds = 2000;
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < rounds; i++) {
                round.run();
            }
            long perRound = (threads.getThreadAllocatedBytes(tid) - before) / rounds;
            // two receives, two Status objects of about 40 bytes each
            assertTrue(perRound <= 2 * 48, "bytes allocated per round of two sends and two receives: " + perRound);
            assertEquals(4, in[3]);
            windowOperationsAllocateNothing(threads, tid);
            aSecondRankInThisJvmIsRefused();
        } finally {
            MPI.Finalize();
        }
    }

    /**
     * Another thread's Init, as a second rank sharing these classes would call it (ranks as threads
     * started other than by tutti run --threads), is refused with the reason and what to do.
     */
    private static void aSecondRankInThisJvmIsRefused() throws MPIException {
        MPIException[] refused = new MPIException[1];
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                MPI.Init(new String[0]);
            } catch (MPIException e) {
                refused[0] = e;
            }
        });
        try {
            other.join(30_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertTrue(refused[0] != null && refused[0].getMessage().contains("start ranks that are threads with tutti run"
                + " --threads, which gives each rank its own copy"), String.valueOf(refused[0]));
        assertEquals(1, MPI.COMM_WORLD.getSize(), "the first rank's MPI is untouched");
    }

    /**
     * Put, get, accumulate and fetchAndOp of predefined types on direct buffers, each used with one
     * count (a buffer's last slice is kept), in a lockAll epoch: nothing at all.
     */
    private static void windowOperationsAllocateNothing(com.sun.management.ThreadMXBean threads, long tid)
            throws MPIException {
        Win win = new Win(8, 1, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newLongBuffer(0), Win.FLAVOR_PRIVATE);
        LongBuffer two = MPI.newLongBuffer(2);
        LongBuffer got = MPI.newLongBuffer(2);
        LongBuffer old = MPI.newLongBuffer(1);
        LongBuffer one = MPI.newLongBuffer(1);
        two.put(0, 1).put(1, 2);
        one.put(0, 1);
        win.lockAll(0);
        Runnable round = () -> {
            try {
                win.put(two, 2, MPI.LONG, 0, 0, 2, MPI.LONG);
                win.get(got, 2, MPI.LONG, 0, 0, 2, MPI.LONG);
                win.accumulate(two, 2, MPI.LONG, 0, 2, 2, MPI.LONG, MPI.SUM);
                win.fetchAndOp(one, old, MPI.LONG, 0, 4, MPI.SUM);
            } catch (MPIException e) {
                throw new AssertionError(e);
            }
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        int rounds = 2000;
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < rounds; i++) {
            round.run();
        }
        long perRound = (threads.getThreadAllocatedBytes(tid) - before) / rounds;
        win.unlockAll();
        win.free();
        assertEquals(0, perRound, "bytes allocated per round of put, get, accumulate and fetchAndOp");
        assertEquals(2, got.get(1));
    }
}

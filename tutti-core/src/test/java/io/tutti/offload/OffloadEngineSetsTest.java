package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.coll.algo.LinearAllreduce;
import io.tutti.coll.algo.LinearBarrier;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * An engine with a set of counters and buffers per run parity, the way the ranks of one node use
 * their offload areas: a peer writes straight into this rank's set for the run it is in, so a peer
 * one run ahead must land in the other set, never in the data of the run this rank has not finished.
 */
class OffloadEngineSetsTest {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;

    /** Two ranks of a linear allreduce (int64 sum of one element), their sets, and a port writing into them. */
    private static final class Pair {
        final OffloadEngine[] e = new OffloadEngine[2];
        final Counter[][][] counters = new Counter[2][][];
        final MemorySegment[][][] memory = new MemorySegment[2][][];

        Pair(int sets) {
            Arena arena = Arena.ofAuto();
            OffloadEngine.Port port = new OffloadEngine.Port() {
                @Override
                public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf,
                                long roff, int counter, long add, int arrival) {
                    int set = epoch % sets; // the set of the sender's run, whatever run the peer is in
                    MemorySegment.copy(src, off, memory[peer][set][rbuf], roff, len);
                    counters[peer][set][counter].add(add);
                }

                @Override
                public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
                    counters[peer][epoch % sets][counter].add(value);
                }

                @Override
                public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
                    throw new AssertionError("a linear allreduce sends no descriptors");
                }
            };
            for (int r = 0; r < 2; r++) {
                OffloadProgram p = OffloadCompiler.bucket(x -> LinearAllreduce.build(x, 2, 8, 8, false), r,
                        OffloadAlu.Op.ADD, OffloadAlu.Type.INT64, true);
                MemorySegment send = arena.allocate(8, 8);
                MemorySegment recv = arena.allocate(8, 8);
                counters[r] = new Counter[sets][];
                memory[r] = new MemorySegment[sets][];
                for (int k = 0; k < sets; k++) {
                    counters[r][k] = new Counter[] {new Counter()};
                    memory[r][k] = new MemorySegment[OffloadProgram.BUFFERS];
                    memory[r][k][OffloadProgram.SEND_BUFFER] = send;
                    memory[r][k][OffloadProgram.RECV_BUFFER] = recv;
                    memory[r][k][OffloadProgram.TEMP_BUFFER] = arena.allocate(p.bufferBytes(OffloadProgram.TEMP_BUFFER), 8);
                }
                e[r] = new OffloadEngine(p, counters[r], memory[r], port, null);
            }
        }

        void in(int rank, long v) {
            e[rank].memory(OffloadProgram.SEND_BUFFER).set(L, 0, v);
        }

        long out(int rank) {
            return e[rank].memory(OffloadProgram.RECV_BUFFER).get(L, 0);
        }
    }

    /**
     * Rank 1 starts run 1 and waits; rank 0 starts run 1, completes it and runs ahead into run 2,
     * whose PUT reaches rank 1 before rank 1 has reduced run 1. Rank 1 then finishes run 1 and
     * runs run 2: both of its results are right.
     */
    @Test
    void aPeerOneRunAheadLandsInTheOtherSet() {
        Pair x = new Pair(2);
        x.in(1, 20);
        x.e[1].start(); // its PUT to rank 0; waits for rank 0's
        x.in(0, 1);
        x.e[0].start(); // its PUT to rank 1; rank 1's is in: run 1 completes
        assertEquals(1, x.e[0].completedRuns());
        assertEquals(21, x.out(0));
        x.in(0, 2);
        x.e[0].start(); // run 2's PUT lands while rank 1 is still in run 1
        x.e[1].progress();
        assertEquals(1, x.e[1].completedRuns());
        assertEquals(21, x.out(1), "rank 1's run 1 must reduce run 1's contribution of rank 0");
        x.in(1, 40);
        x.e[1].start();
        x.e[0].progress();
        assertEquals(2, x.e[0].completedRuns());
        assertEquals(2, x.e[1].completedRuns());
        assertEquals(42, x.out(0));
        assertEquals(42, x.out(1));
        for (int r = 0; r < 2; r++) {
            for (int k = 0; k < 2; k++) {
                assertEquals(0, x.counters[r][k][0].level(), "rank " + r + " set " + k + " wrapped back to 0");
            }
        }
    }

    /** The same order with one set: the run-ahead PUT overwrites the data rank 1 has yet to reduce. */
    @Test
    void withOneSetTheSameOrderLosesData() {
        Pair x = new Pair(1);
        x.in(1, 20);
        x.e[1].start();
        x.in(0, 1);
        x.e[0].start();
        x.in(0, 2);
        x.e[0].start();
        x.e[1].progress();
        assertEquals(22, x.out(1), "with one set, rank 1 reduces rank 0's run 2 data in its run 1");
    }

    @Test
    void theEngineTakesOneOrTwoSetsOfTheSameShape() {
        OffloadProgram p = OffloadCompiler.bucket(x -> LinearBarrier.build(x, 3), 0, null, null, true);
        Counter[] one = {new Counter()};
        MemorySegment[] mem = new MemorySegment[OffloadProgram.BUFFERS];
        assertThrows(IllegalArgumentException.class, () -> new OffloadEngine(p, new Counter[][] {one, one, one},
                new MemorySegment[][] {mem, mem, mem}, null, null));
        assertThrows(IllegalArgumentException.class, () -> new OffloadEngine(p, new Counter[][] {one, {}},
                new MemorySegment[][] {mem, mem}, null, null));
        assertNotNull(new OffloadEngine(p, new Counter[][] {one, {new Counter()}}, new MemorySegment[][] {mem, mem},
                null, null));
    }

    /** The linear barrier: one counter, a signal to every peer, and which peer each bucket stands for. */
    @Test
    void theLinearBarrierWaitsForEveryPeerOnOneCounter() {
        OffloadProgram p = OffloadCompiler.bucket(x -> LinearBarrier.build(x, 4), 0, null, null, true);
        assertEquals(1, p.counters());
        assertEquals(3, p.arrivals());
        int adds = 0;
        for (DeferredWork w : p.list()) {
            if (w.op() == OffloadProgram.REMOTE_CNTR_ADD) {
                adds++;
                assertEquals(0, w.threshold(), "every signal goes at the start");
            }
        }
        assertEquals(3, adds);
        // arrivals in receive order: from rank 3, 2, 1
        assertEquals(3, p.arrivalPeer(0));
        assertEquals(2, p.arrivalPeer(1));
        assertEquals(1, p.arrivalPeer(2));
        assertEquals(-1, p.arrivalPeer(3));
    }
}

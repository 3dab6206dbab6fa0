package io.tutti.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's thread contract with real threads: each rank's progress runs on its own thread, and
 * the peer's thread is the arrival path (it lands PUTs straight into this rank's engine while this
 * rank's thread fires entries). A pipelined broadcast of many segments checks that every segment's
 * data is visible once the counter says it has landed, over many back-to-back runs.
 */
class OffloadEngineConcurrencyTest {
    static final int SEGMENTS = 64;
    static final int SEGMENT = 16;
    static final int RUNS = 500;

    @Test
    @Timeout(120)
    void pipelineDataIsVisibleWhenCounted() throws Exception {
        int bytes = SEGMENTS * SEGMENT;
        OffloadProgram[] p = new OffloadProgram[2];
        for (int r = 0; r < 2; r++) {
            p[r] = OffloadCompiler.singleSource(x -> Schedules.chain(x, 2, bytes, 0, SEGMENT), r);
        }
        OffloadEngine[] e = new OffloadEngine[2];
        OffloadEngine.Port port = new OffloadEngine.Port() {
            @Override
            public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf,
                            long roff, int counter, long add, int arrival) {
                e[peer].onPut(src, off, len, rbuf, roff, counter, add); // the sender's thread is the arrival path
            }

            @Override
            public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
                e[peer].onRemoteAdd(counter, value);
            }

            @Override
            public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
                e[peer].onDescriptor(d, at);
            }
        };
        Arena arena = Arena.ofShared();
        for (int r = 0; r < 2; r++) {
            MemorySegment[] mem = new MemorySegment[OffloadProgram.BUFFERS];
            mem[OffloadProgram.RECV_BUFFER] = arena.allocate(bytes, 8);
            e[r] = new OffloadEngine(p[r], new Counter[] {new Counter()}, mem, port, null);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread root = new Thread(() -> {
            try {
                MemorySegment buf = e[0].memory(OffloadProgram.RECV_BUFFER);
                for (int run = 1; run <= RUNS; run++) {
                    for (int i = 0; i < bytes / 8; i++) {
                        buf.setAtIndex(ValueLayout.JAVA_LONG, i, run * 1_000_000L + i);
                    }
                    e[0].start();
                    while (e[0].completedRuns() < run) {
                        e[0].progress();
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        Thread leaf = new Thread(() -> {
            try {
                MemorySegment buf = e[1].memory(OffloadProgram.RECV_BUFFER);
                for (int run = 1; run <= RUNS; run++) {
                    e[1].start();
                    while (e[1].completedRuns() < run) {
                        e[1].progress();
                        Thread.onSpinWait();
                    }
                    for (int i = 0; i < bytes / 8; i++) {
                        long v = buf.getAtIndex(ValueLayout.JAVA_LONG, i);
                        if (v != run * 1_000_000L + i) {
                            throw new AssertionError("run " + run + " word " + i + ": " + v);
                        }
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        root.start();
        leaf.start();
        root.join();
        leaf.join();
        assertNull(failure.get());
        assertEquals(RUNS, e[1].completedRuns());
        assertEquals(0, e[0].counter(0).level());
        assertEquals(0, e[1].counter(0).level());
    }
}

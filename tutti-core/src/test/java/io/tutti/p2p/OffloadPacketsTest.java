package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.TuttiException;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * PUT and remote counter-add packets, the arrival path of offloaded collectives: data lands in the
 * endpoint's region, the counter grows by what the sender said, packets that come before their
 * endpoint is registered wait for it, and bad ones are dropped. Over shared memory and over the
 * network path.
 */
@Timeout(60)
class OffloadPacketsTest {
    private static final int CONTEXT = 77;
    private static final int TAG = 5;

    /** Counters and a 4 KiB region; a task that finishes when counter 0 reaches a level. */
    private static final class Target implements OffloadEndpoint {
        final MemorySegment region = MemorySegment.ofArray(new byte[4096]);
        final long[] counters = new long[2];
        long lastEpoch = -1;

        @Override
        public boolean onPut(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length,
                             int counter, long add, long epoch) {
            if (buffer != 0 || counter >= counters.length || offset < 0 || offset > region.byteSize() - length) {
                return false;
            }
            MemorySegment.copy(data, dataOffset, region, offset, length);
            counters[counter] += add;
            lastEpoch = epoch;
            return true;
        }

        @Override
        public boolean onAdd(int source, int counter, long value, long epoch) {
            if (counter >= counters.length) {
                return false;
            }
            counters[counter] += value;
            return true;
        }

        Engine.Task until(long level) {
            return new Engine.Task() {
                @Override
                public boolean poll() {
                    return counters[0] >= level;
                }

                @Override
                public void fail(TuttiException error) {
                }
            };
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "net"})
    void putsAndAddsReachTheEndpointEvenBeforeItIsRegistered(String path) {
        BiConsumer<Integer, Map<String, String>> env = (r, e) -> {
            if (path.equals("net")) {
                e.put("TUTTI_TRANSPORT", "net");
                e.put("TUTTI_NET_PROVIDER", "inproc");
            }
        };
        String jobId = "o" + Long.toHexString(System.nanoTime());
        ThreadLauncher.Outcome o = ThreadLauncher.run(jobId,
                io.tutti.bootstrap.ShmFiles.defaultRoot().resolve("tutti-" + jobId), 2, Duration.ofSeconds(40),
                rank -> {
                    try (Tutti t = Tutti.init(new String[0])) {
                        Engine engine = io.tutti.runtime.Rank.of(t).engine();
                        // the barriers below order packets by passing through the same ring after them;
                        // a shared-memory slot barrier would not
                        t.world().setAlgorithm("barrier", "dissemination");
                        if (rank == 1) {
                            MemorySegment src = MemorySegment.ofArray(new byte[100]);
                            for (int i = 0; i < 100; i++) {
                                src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
                            }
                            // sent before rank 0 registers: they must wait for the endpoint
                            assertTrue(engine.tryPut(0, CONTEXT, TAG, 0, 1000, src, 0, 100, 0, 1, 7));
                            assertTrue(engine.tryRemoteAdd(0, CONTEXT, TAG, 0, 5, 7));
                            assertTrue(engine.tryRemoteAdd(0, CONTEXT, TAG, 1, -3, 7));
                            // a bad one: out of the region; dropped, not fatal
                            assertTrue(engine.tryPut(0, CONTEXT, TAG, 0, 4090, src, 0, 100, 0, 1000, 7));
                            t.world().barrier();
                            t.world().barrier();
                            t.world().barrier(); // rank 0 has freed its endpoint
                            assertTrue(engine.tryRemoteAdd(0, CONTEXT, TAG, 0, 1, 8));
                            t.world().barrier();
                            t.world().barrier();
                        } else {
                            t.world().barrier();
                            Target target = new Target();
                            engine.register(CONTEXT, TAG, target);
                            engine.await(target.until(6));
                            assertEquals(6, target.counters[0]);
                            assertEquals(-3, target.counters[1]);
                            assertEquals(7, target.lastEpoch);
                            for (int i = 0; i < 100; i++) {
                                assertEquals((byte) (i + 1), target.region.get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                                        1000 + i));
                            }
                            t.world().barrier();
                            engine.unregister(CONTEXT, TAG);
                            long before = engine.droppedPackets();
                            t.world().barrier();
                            // rank 1 sends one more add now, then enters the next barrier: its add
                            // comes first through the ring, so it has been read when the barrier ends
                            t.world().barrier();
                            t.world().barrier();
                            assertEquals(before + 1, engine.droppedPackets(), "a packet for a freed endpoint is"
                                    + " dropped, not kept");
                        }
                    }
                }, env);
        ThreadLauncher.RankResult f = o.firstFailure();
        assertTrue(o.succeeded(), f == null ? "timed out" : "rank " + f.rank() + ": " + f.failure());
    }
}

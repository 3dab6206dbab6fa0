package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dynamic windows (attach, detach, addresses as displacements) through the public API, ranks as
 * threads, and the region table they rest on against a model.
 */
@Timeout(120)
class DynamicWindowTest {
    static void job(int n, io.tutti.bootstrap.ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(90), body);
    }

    /** Every rank attaches two regions and publishes their addresses; the others put, get and accumulate there. */
    @Test
    void putGetAndAccumulateReachAttachedMemoryByItsAddress() {
        int n = 3;
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = Window.createDynamic(w)) {
                    assertTrue(win.isDynamic());
                    assertEquals(0, win.segment().byteSize());
                    MemorySegment first = arena.allocate(64, 8);
                    MemorySegment second = arena.allocate(8 * n, 8);
                    win.attach(first);
                    win.attach(second);
                    long[] mine = {first.address(), second.address()};
                    long[] all = new long[2 * n];
                    w.allgather(mine, all, 2, Datatype.LONG);
                    int next = (rank + 1) % n;
                    win.fence();
                    // a put of 8 longs into the next rank's first region, at its address + 0
                    long[] values = new long[8];
                    for (int i = 0; i < 8; i++) {
                        values[i] = rank * 100L + i;
                    }
                    win.put(values, 8, Datatype.LONG, next, all[2 * next]);
                    // every rank adds its rank + 1 to slot r of every rank's second region
                    for (int r = 0; r < n; r++) {
                        win.accumulate(new long[] {rank + 1L}, 1, Datatype.LONG, r, all[2 * r + 1] + 8L * rank,
                                AccumulateOp.SUM);
                        win.accumulate(new long[] {10}, 1, Datatype.LONG, r, all[2 * r + 1], AccumulateOp.SUM);
                    }
                    win.fence();
                    int prev = (rank + n - 1) % n;
                    for (int i = 0; i < 8; i++) {
                        assertEquals(prev * 100L + i, first.getAtIndex(ValueLayout.JAVA_LONG, i));
                    }
                    assertEquals(10L * n + 1, second.getAtIndex(ValueLayout.JAVA_LONG, 0));
                    for (int r = 1; r < n; r++) {
                        assertEquals(r + 1L, second.getAtIndex(ValueLayout.JAVA_LONG, r));
                    }
                    // a get of the middle of the next rank's first region
                    long[] got = new long[3];
                    win.get(got, 3, Datatype.LONG, next, all[2 * next] + 16);
                    win.fence(Window.MODE_NOSUCCEED);
                    assertArrayEquals(new long[] {rank * 100L + 2, rank * 100L + 3, rank * 100L + 4}, got);
                    long[] old = new long[1];
                    win.lock(Window.LockType.EXCLUSIVE, next);
                    win.fetchAndOp(new long[] {5}, old, Datatype.LONG, next, all[2 * next + 1] + 8L * rank,
                            AccumulateOp.SUM);
                    win.unlock(next);
                    assertEquals(rank == 0 ? 10L * n + 1 : rank + 1L, old[0]);
                    w.barrier();
                    win.detach(first);
                    win.detach(second);
                }
            }
        });
    }

    /** Accesses outside attached memory, and detaching what is not attached, fail naming rank and address. */
    @Test
    void accessesOutsideAttachedMemoryAreErrorsNamingRankAndAddress() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.createDynamicWindow(); Window plain = w.allocateWindow(8, 1)) {
                    assertThrows(TuttiException.InvalidArgument.class, () -> plain.attach(arena.allocate(8)));
                    assertThrows(TuttiException.InvalidArgument.class, () -> win.attach(MemorySegment.ofArray(new byte[8])));
                    MemorySegment region = arena.allocate(32, 8);
                    win.attach(region);
                    TuttiException overlap = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.attach(region.asSlice(8, 8)));
                    assertTrue(overlap.getMessage().contains("overlaps"), overlap.getMessage());
                    long[] at = new long[2];
                    w.allgather(new long[] {region.address()}, at, 1, Datatype.LONG);
                    int other = 1 - rank;
                    win.lock(Window.LockType.SHARED, other);
                    win.put(new long[4], 4, Datatype.LONG, other, at[other]);
                    // one byte past the end
                    TuttiException past = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new long[4], 4, Datatype.LONG, other, at[other] + 1));
                    String m = past.getMessage();
                    assertTrue(m.contains("to rank " + other) && m.contains("0x" + Long.toHexString(at[other] + 1))
                            && m.contains("outside every region") && m.contains("+32"), m);
                    assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.get(new long[1], 1, Datatype.LONG, other, at[other] - 8));
                    win.unlock(other);
                    w.barrier();
                    TuttiException notAttached = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.detach(region.asSlice(8)));
                    assertTrue(notAttached.getMessage().contains("rank " + rank)
                            && notAttached.getMessage().contains("0x" + Long.toHexString(region.address() + 8)),
                            notAttached.getMessage());
                    win.detach(region);
                    assertThrows(TuttiException.InvalidArgument.class, () -> win.detach(region));
                    w.barrier();
                    // detached: the peer's access is refused
                    win.lock(Window.LockType.SHARED, other);
                    TuttiException gone = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.get(new long[1], 1, Datatype.LONG, other, at[other]));
                    assertTrue(gone.getMessage().contains("has none attached"), gone.getMessage());
                    win.unlock(other);
                    w.barrier();
                }
            }
        });
    }

    /** Random attaches and detaches against a list of regions: find answers as the list does. */
    @Test
    void regionTableAnswersAsAModel() {
        Random random = new Random(25);
        try (Arena arena = Arena.ofConfined()) {
            RegionTable table = new RegionTable(arena.allocate(WindowAreaDescriptor.REGION_TABLE_BYTES, 64));
            List<long[]> model = new ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                long base = random.nextInt(1 << 16);
                long length = 1 + random.nextInt(512);
                if (random.nextInt(3) > 0 || model.isEmpty()) {
                    boolean overlaps = model.stream().anyMatch(r -> base < r[0] + r[1] && r[0] < base + length);
                    assertEquals(overlaps, table.overlapping(base, length) >= 0);
                    if (!overlaps) {
                        boolean full = model.size() == WindowAreaDescriptor.REGIONS;
                        assertEquals(!full, table.add(base, length));
                        if (!full) {
                            model.add(new long[] {base, length});
                        }
                    }
                } else {
                    long[] r = model.remove(random.nextInt(model.size()));
                    assertTrue(table.remove(r[0]));
                    assertFalse(table.remove(r[0]));
                }
                long probe = random.nextInt(1 << 16);
                long bytes = random.nextInt(64);
                boolean inModel = model.stream().anyMatch(r -> probe >= r[0] && probe + bytes <= r[0] + r[1]);
                assertEquals(inModel, table.find(probe, bytes) >= 0, "probe " + probe + "+" + bytes);
                assertEquals(model.size(), table.count());
            }
        }
    }
}

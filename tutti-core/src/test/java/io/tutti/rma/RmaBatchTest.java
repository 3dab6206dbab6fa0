package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.reduce.Reduction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Small puts, accumulates and gets packed into batches at the origin and applied in order at the target. */
@Timeout(30)
class RmaBatchTest {
    private static final int WINDOW = 512;

    /** A packed batch applied to a window gives what the operations applied one by one, in order, give. */
    @Test
    void entriesOfEveryKindApplyInTheOrderIssued() {
        Random rnd = new Random(7);
        RmaBatch batch = new RmaBatch(2, 1 << 16);
        MemorySegment window = Arena.ofAuto().allocate(WINDOW);
        MemorySegment model = Arena.ofAuto().allocate(WINDOW);
        int entries = 0;
        for (Datatype type : Datatype.values()) {
            for (AccumulateOp op : AccumulateOp.values()) {
                if (op == AccumulateOp.NO_OP || op.reduceOp() != null && !op.reduceOp().supports(type)) {
                    continue;
                }
                // a put then an accumulate on the same bytes, then an accumulate that depends on both
                int count = 1 + rnd.nextInt(3);
                int bytes = count * type.extent();
                long at = (long) rnd.nextInt((WINDOW - bytes) / type.extent()) * type.extent();
                MemorySegment data = small(rnd, bytes);
                MemorySegment more = small(rnd, bytes);
                assertTrue(batch.packs(1, bytes, 1 << 16));
                batch.add(1, RmaWire.PUT, null, null, at, data, 0, bytes);
                MemorySegment.copy(data, 0, model, at, bytes);
                batch.add(1, RmaWire.ACC, type, op, at, more, 0, bytes);
                Accumulation.apply(model, at, more, 0, null, 0, count, type, op);
                entries += 2;
            }
        }
        // an order that a reordering would show: PROD by 3, then SUM i, on one long
        for (long i = 1; i <= 20; i++) {
            batch.add(1, RmaWire.ACC, Datatype.LONG, AccumulateOp.PROD, 8, MemorySegment.ofArray(new long[] {3}), 0, 8);
            batch.add(1, RmaWire.ACC, Datatype.LONG, AccumulateOp.SUM, 8, MemorySegment.ofArray(new long[] {i}), 0, 8);
            Reduction.apply(io.tutti.ReduceOp.PROD, Datatype.LONG, model, 8, MemorySegment.ofArray(new long[] {3}), 0, 1);
            Reduction.apply(io.tutti.ReduceOp.SUM, Datatype.LONG, model, 8, MemorySegment.ofArray(new long[] {i}), 0, 1);
            entries += 2;
        }
        assertTrue(batch.pending(1));
        assertFalse(batch.pending(0), "another target's batch");
        assertTrue(RmaBatch.accumulates(batch.buffer(1), 0, batch.length(1)));
        List<String> refused = new ArrayList<>();
        assertEquals(0, RmaBatch.apply(batch.buffer(1), 0, batch.length(1), window, 1, refused::add), refused::toString);
        assertEquals(-1, window.mismatch(model), "the batch of " + entries + " entries against the operations one by one");
        batch.sent(1);
        assertFalse(batch.pending(1));
    }

    @Test
    void aBatchOfPutsOnlyNeedsNoAccumulateLock() {
        RmaBatch batch = new RmaBatch(1, 4096);
        assertTrue(batch.packs(0, 8, 4096));
        batch.add(0, RmaWire.PUT, null, null, 0, MemorySegment.ofArray(new long[] {1}), 0, 8);
        batch.add(0, RmaWire.PUT, null, null, 8, MemorySegment.ofArray(new long[] {2}), 0, 8);
        assertFalse(RmaBatch.accumulates(batch.buffer(0), 0, batch.length(0)));
        batch.add(0, RmaWire.ACC, Datatype.INT, AccumulateOp.SUM, 16, MemorySegment.ofArray(new int[] {2}), 0, 4);
        assertTrue(RmaBatch.accumulates(batch.buffer(0), 0, batch.length(0)));
    }

    /** The bound is the smaller of the setting and the frame; an entry that does not fit waits for the next batch. */
    @Test
    void aBatchHoldsWhatItsBoundAllowsAndNoMore() {
        RmaBatch batch = new RmaBatch(2, 64);
        assertTrue(batch.packs(0, 48, 1400), "16 + 48 bytes fill a batch of 64");
        assertFalse(batch.packs(0, 49, 1400), "an entry larger than a batch goes as records of its own");
        assertTrue(batch.fits(0, 8));
        MemorySegment eight = MemorySegment.ofArray(new long[] {5});
        batch.add(0, RmaWire.PUT, null, null, 0, eight, 0, 8);
        batch.add(0, RmaWire.PUT, null, null, 8, eight, 0, 8);
        assertEquals(48, batch.length(0));
        assertFalse(batch.fits(0, 8), "a third entry of 24 bytes passes 64");
        assertTrue(batch.fits(0, 0));
        batch.sent(0);
        assertTrue(batch.fits(0, 8));
        // a frame smaller than the setting bounds the batch
        RmaBatch framed = new RmaBatch(2, 8192);
        assertFalse(framed.packs(1, 1400, 1400));
        assertTrue(framed.packs(1, 1384, 1400));
        RmaBatch off = new RmaBatch(2, 0);
        assertFalse(off.packs(0, 1, 1400), "0 packs nothing");
    }

    /** An entry the target cannot apply is refused with its cause; the entries around it apply. */
    @Test
    void anEntryInTheMiddleThatCannotApplyIsRefusedAndTheOthersApply() {
        RmaBatch batch = new RmaBatch(2, 4096);
        MemorySegment window = Arena.ofAuto().allocate(64);
        assertTrue(batch.packs(1, 8, 4096));
        batch.add(1, RmaWire.PUT, null, null, 0, MemorySegment.ofArray(new long[] {11}), 0, 8);
        batch.add(1, RmaWire.PUT, null, null, 60, MemorySegment.ofArray(new long[] {12}), 0, 8);
        batch.add(1, RmaWire.ACC, Datatype.LONG, AccumulateOp.SUM, 0, MemorySegment.ofArray(new long[] {4}), 0, 8);
        batch.add(1, RmaWire.ACC, Datatype.DOUBLE, AccumulateOp.BAND, 8, MemorySegment.ofArray(new double[] {1}), 0, 8);
        batch.add(1, RmaWire.PUT, null, null, 56, MemorySegment.ofArray(new long[] {13}), 0, 8);
        List<String> refused = new ArrayList<>();
        assertEquals(2, RmaBatch.apply(batch.buffer(1), 0, batch.length(1), window, 1, refused::add));
        assertEquals(15, window.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "the put and the accumulate around the refusal");
        assertEquals(0, window.get(ValueLayout.JAVA_LONG_UNALIGNED, 8), "the refused accumulate changed nothing");
        assertEquals(13, window.get(ValueLayout.JAVA_LONG_UNALIGNED, 56), "the put after both refusals");
        assertEquals(2, refused.size());
        assertTrue(refused.get(0).contains("a put of 8 bytes at byte offset 60")
                && refused.get(0).contains("outside rank 1's window of 64 bytes"), refused.get(0));
        assertTrue(refused.get(1).contains("an accumulate of 8 bytes at byte offset 8"), refused.get(1));
    }

    /**
     * A batch of gets and fetching operations only is complete once its replies come, so it goes
     * without a number to answer; one put or accumulate among them, before or after, needs one.
     */
    @Test
    void onlyABatchOfRepliedEntriesGoesWithoutANumber() {
        RmaBatch batch = new RmaBatch(2, 4096);
        MemorySegment eight = MemorySegment.ofArray(new long[] {7});
        assertTrue(batch.packsReplied(1, 0, 8, 4096));
        assertFalse(batch.onlyReplied(1), "empty");
        addGet(batch, 1, 0, 8, 1);
        addGet(batch, 1, 8, 8, 2);
        assertTrue(batch.onlyReplied(1));
        batch.addReplied(1, RmaWire.GET_ACC, 8, Datatype.LONG, AccumulateOp.SUM, 0, eight, 0, 8, 3);
        batch.addReplied(1, RmaWire.CAS, 8, Datatype.LONG, AccumulateOp.REPLACE, 0,
                MemorySegment.ofArray(new long[] {1, 2}), 0, 16, 4);
        assertTrue(batch.onlyReplied(1), "fetching entries are answered by the replies too");
        assertEquals(4, batch.gets(1));
        batch.add(1, RmaWire.PUT, null, null, 16, eight, 0, 8);
        assertFalse(batch.onlyReplied(1), "a put after the gets");
        batch.sent(1);
        batch.add(1, RmaWire.ACC, Datatype.LONG, AccumulateOp.SUM, 0, eight, 0, 8);
        addGet(batch, 1, 0, 8, 5);
        assertFalse(batch.onlyReplied(1), "an accumulate before a get");
    }

    /** A batch whose last entry claims more bytes than it carries stops there, refused, after the whole entries. */
    @Test
    void aBatchCutShortIsRefusedAtTheCut() {
        RmaBatch batch = new RmaBatch(1, 4096);
        MemorySegment window = Arena.ofAuto().allocate(64);
        assertTrue(batch.packs(0, 16, 4096));
        batch.add(0, RmaWire.PUT, null, null, 0, MemorySegment.ofArray(new long[] {21}), 0, 8);
        batch.add(0, RmaWire.PUT, null, null, 8, MemorySegment.ofArray(new long[] {22, 23}), 0, 16);
        List<String> refused = new ArrayList<>();
        assertEquals(1, RmaBatch.apply(batch.buffer(0), 0, batch.length(0) - 1, window, 1, refused::add));
        assertEquals(21, window.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(0, window.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertTrue(refused.get(0).contains("cut short"), refused.get(0));
        refused.clear();
        assertEquals(1, RmaBatch.apply(batch.buffer(0), 0, 10, window, 1, refused::add), "a header cut short");
    }

    /**
     * Gets packed among puts read where they stand: a get after a put to the same bytes reads the
     * put's data, one before it the old; a get outside the window, or beyond the bytes one reply
     * carries, is refused by its number among the batch's gets and the others still read.
     */
    @Test
    void getsReadAtTheirPlaceAmongThePuts() {
        RmaBatch batch = new RmaBatch(1, 4096);
        MemorySegment window = Arena.ofAuto().allocate(64);
        window.set(ValueLayout.JAVA_LONG, 0, 5);
        assertTrue(batch.packsReplied(0, 0, 8, 4096));
        addGet(batch, 0, 0, 8, 41);
        batch.add(0, RmaWire.PUT, null, null, 0, MemorySegment.ofArray(new long[] {6}), 0, 8);
        addGet(batch, 0, 0, 8, 42);
        addGet(batch, 0, 64, 8, 43);
        addGet(batch, 0, 8, 16, 44);
        addGet(batch, 0, 0, 24, 45);
        assertEquals(41, batch.firstGet(0));
        assertEquals(5, batch.gets(0));
        assertEquals(5 * RmaBatch.ENTRY_HEADER + RmaBatch.ENTRY_HEADER + 8, batch.length(0), "gets carry no bytes");
        Walk walk = new Walk(64);
        List<String> refused = walk.refused;
        List<Integer> refusedGets = walk.refusedGets;
        assertEquals(2, RmaBatch.apply(batch.buffer(0), 0, batch.length(0), window, 1, 32, walk));
        assertEquals(List.of(2, 4), refusedGets);
        assertTrue(refused.get(0).contains("a get of 8 bytes at byte offset 64")
                && refused.get(0).contains("outside rank 1's window"), refused.get(0));
        assertTrue(refused.get(1).contains("beyond the 32 bytes one reply carries"), refused.get(1));
        assertEquals(32, walk.fill);
        assertEquals(5, walk.reply.get(ValueLayout.JAVA_LONG, 0), "the get before the put");
        assertEquals(6, walk.reply.get(ValueLayout.JAVA_LONG, 8), "the get after the put");
        batch.sent(0);
        assertEquals(0, batch.firstGet(0));
        assertTrue(batch.fitsReplied(0, 0, 4096));
        assertFalse(batch.packsReplied(0, 0, 4097, 4096), "a reply larger than a batch");
    }

    /**
     * Fetching entries read their old values where they stand, then change them, under the walk's
     * order: a fetchAndOp after an accumulate to the same element sees it, a compare-and-swap after
     * it compares with what it left; a getAccumulate with NO_OP carries no data; one outside the
     * window is refused by its number among the replied entries and the others still answer.
     */
    @Test
    void fetchingEntriesReadTheirOldValuesInOrder() {
        RmaBatch batch = new RmaBatch(1, 4096);
        MemorySegment window = Arena.ofAuto().allocate(64);
        window.set(ValueLayout.JAVA_LONG, 0, 5);
        assertTrue(batch.packsReplied(0, 16, 8, 4096));
        batch.add(0, RmaWire.ACC, Datatype.LONG, AccumulateOp.SUM, 0, MemorySegment.ofArray(new long[] {10}), 0, 8);
        batch.addReplied(0, RmaWire.GET_ACC, 8, Datatype.LONG, AccumulateOp.SUM, 0,
                MemorySegment.ofArray(new long[] {1}), 0, 8, 7);                        // reads 15, leaves 16
        batch.addReplied(0, RmaWire.CAS, 8, Datatype.LONG, AccumulateOp.REPLACE, 0,
                MemorySegment.ofArray(new long[] {100, 16}), 0, 16, 8);                 // reads 16, swaps in 100
        batch.addReplied(0, RmaWire.CAS, 8, Datatype.LONG, AccumulateOp.REPLACE, 0,
                MemorySegment.ofArray(new long[] {200, 16}), 0, 16, 9);                 // reads 100, no swap
        batch.addReplied(0, RmaWire.GET_ACC, 8, Datatype.LONG, AccumulateOp.NO_OP, 0, MemorySegment.NULL, 0, 0, 10);
        batch.add(0, RmaWire.PUT, null, null, 8, MemorySegment.ofArray(new long[] {7}), 0, 8);
        batch.addReplied(0, RmaWire.GET_ACC, 16, Datatype.LONG, AccumulateOp.REPLACE, 0,
                MemorySegment.ofArray(new long[] {1, 2}), 0, 16, 11);                   // reads 100 and 7
        batch.addReplied(0, RmaWire.GET_ACC, 8, Datatype.LONG, AccumulateOp.SUM, 64,
                MemorySegment.ofArray(new long[] {1}), 0, 8, 12);                       // outside: refused
        addGet(batch, 0, 0, 8, 13);                                                      // reads 1
        assertEquals(7, batch.firstGet(0));
        assertEquals(7, batch.gets(0));
        assertTrue(RmaBatch.accumulates(batch.buffer(0), 0, batch.length(0)));
        Walk walk = new Walk(128);
        List<String> refused = walk.refused;
        List<Integer> refusedGets = walk.refusedGets;
        assertEquals(1, RmaBatch.apply(batch.buffer(0), 0, batch.length(0), window, 1, 4096, walk), refused::toString);
        assertEquals(List.of(5), refusedGets);
        assertTrue(refused.get(0).contains("a getAccumulate of 8 bytes at byte offset 64"), refused.get(0));
        assertArrayEquals(new long[] {15, 16, 100, 100, 100, 7, 1},
                walk.reply.asSlice(0, walk.fill).toArray(ValueLayout.JAVA_LONG),
                "the old values, each read where its entry stands");
        assertArrayEquals(new long[] {1, 2}, window.asSlice(0, 16).toArray(ValueLayout.JAVA_LONG));
        // one compare-and-swap alone still takes the accumulate lock
        RmaBatch cas = new RmaBatch(1, 4096);
        assertTrue(cas.packsReplied(0, 16, 8, 4096));
        cas.addReplied(0, RmaWire.CAS, 8, Datatype.LONG, AccumulateOp.REPLACE, 0, MemorySegment.ofArray(new long[] {1, 2}),
                0, 16, 1);
        assertTrue(RmaBatch.accumulates(cas.buffer(0), 0, cas.length(0)));
        assertFalse(cas.fitsReplied(0, 0, 4096), "the replies' bytes are bounded as the entries are");
    }

    /** A get of {@code bytes} at {@code at}, reply number {@code reply}, into {@code target}'s batch. */
    private static void addGet(RmaBatch batch, int target, long at, int bytes, long reply) {
        batch.addReplied(target, RmaWire.GET, bytes, null, null, at, MemorySegment.NULL, 0, 0, reply);
    }

    /** A target's walk as a test sees it: the reply's bytes read so far, the causes, the refused gets' numbers. */
    private static final class Walk implements RmaBatch.Refusals {
        final MemorySegment reply;
        long fill;
        final List<String> refused = new ArrayList<>();
        final List<Integer> refusedGets = new ArrayList<>();

        Walk(int replyBytes) {
            reply = Arena.ofAuto().allocate(replyBytes);
        }

        @Override
        public void refuse(String cause) {
            refused.add(cause);
        }

        @Override
        public void read(int index, MemorySegment memory, long at, int bytes) {
            MemorySegment.copy(memory, at, reply, fill, bytes);
            fill += bytes;
        }

        @Override
        public void refuseGet(int index, String cause) {
            refusedGets.add(index);
            refused.add(cause);
        }
    }

    private static MemorySegment small(Random rnd, int bytes) {
        byte[] b = new byte[bytes];
        rnd.nextBytes(b);
        for (int i = 0; i < bytes; i++) {
            b[i] &= 0x3F; // no NaN patterns, no overflow worth speaking of
        }
        return MemorySegment.ofArray(b);
    }
}

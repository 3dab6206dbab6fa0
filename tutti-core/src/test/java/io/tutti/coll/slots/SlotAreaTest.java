package io.tutti.coll.slots;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** A slot area as its owner publishes into it and a peer reads it. */
class SlotAreaTest {

    @Test
    void aPeerReadsEachSlotsStampLengthProcessorAndDataFromOneLine() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SlotAreaDescriptor.fileLength(), 64);
            SlotArea.format(s);
            SlotArea owner = new SlotArea(s);
            SlotArea peer = new SlotArea(s);
            for (int slot = 0; slot < SlotAreaDescriptor.SLOTS; slot++) {
                assertEquals(0, peer.stamp(slot), "a fresh slot holds no generation");
                long data = SlotArea.dataOffset(slot);
                long line = SlotAreaDescriptor.slotOffset(slot) / 64;
                assertEquals(line, (SlotAreaDescriptor.slotOffset(slot) + SlotAreaDescriptor.CPU_OFFSET) / 64,
                        "the processor shares the stamp's line");
                assertEquals(line, (data + 8) / 64, "so do the first 8 bytes of data");
                assertEquals(0, SlotAreaDescriptor.slotOffset(slot) % 64, "each slot starts a line");
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, data, 1000L + slot);
                owner.publish(slot, 8 * (slot + 1), slot % 2 == 0 ? -1 : slot, 7 + slot);
            }
            for (int slot = 0; slot < SlotAreaDescriptor.SLOTS; slot++) {
                assertEquals(7 + slot, peer.stamp(slot));
                assertEquals(7 + slot, owner.ownStamp(slot));
                assertEquals(8L * (slot + 1), peer.length(slot));
                assertEquals(slot % 2 == 0 ? -1 : slot, peer.cpu(slot));
                assertEquals(1000L + slot, peer.via().get(ValueLayout.JAVA_LONG_UNALIGNED, peer.dataAt(slot)),
                        "dataAt() in via() reaches the data");
            }
            // the largest contribution still has its length read back whole
            owner.publish(3, SlotAreaDescriptor.SLOT_BYTES, 1, 99);
            assertEquals(SlotAreaDescriptor.SLOT_BYTES, peer.length(3));
        }
    }

    @Test
    void aSlotHoldsWhatAScheduleStepCarriesBehindItsHeader() {
        assertEquals(io.tutti.coll.schedule.Schedule.SLOT_BYTES, SlotAreaDescriptor.SLOT_BYTES);
        assertEquals(SlotAreaDescriptor.SLOT_STRIDE, SlotAreaDescriptor.DATA_OFFSET + SlotAreaDescriptor.SLOT_BYTES);
    }

    @Test
    void anAreaOfAnotherGeometryIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SlotAreaDescriptor.fileLength(), 64);
            assertThrows(IllegalArgumentException.class, () -> new SlotArea(s), "not formatted");
            SlotArea.format(s);
            s.set(ValueLayout.JAVA_INT, SlotAreaDescriptor.SLOT_BYTES_OFFSET, 64);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SlotArea(s));
            assertTrue(e.getMessage().contains("different builds"), e.getMessage());
        }
    }
}

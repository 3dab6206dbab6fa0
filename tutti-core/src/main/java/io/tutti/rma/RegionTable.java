package io.tutti.rma;

import static io.tutti.rma.WindowAreaDescriptor.REGIONS;
import static io.tutti.rma.WindowAreaDescriptor.REGION_COUNT_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.REGION_ENTRIES_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.REGION_GENERATION_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.REGION_LENGTH;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The regions a rank has attached to its dynamic window ({@link WindowAreaDescriptor}'s region
 * table): changed by the owner only ({@link #add}, {@link #remove}), read by every origin on each
 * access ({@link #find}). A sequence lock: the owner makes the generation odd, changes the entries,
 * and makes it even again (release); a reader takes the generation (acquire), reads the entries
 * (opaque: each word whole), and keeps what it read only if the generation is still the same even
 * value (jcstress: {@code RegionTableReads}). So an origin never pairs one region's base with
 * another's length, and never waits for the owner but for the few stores of one change.
 */
public final class RegionTable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;

    /** Over the table's bytes ({@link WindowAreaDescriptor#REGION_TABLE_BYTES}), zero when new: no region. */
    public RegionTable(MemorySegment segment) {
        this.segment = segment;
    }

    // ------------------------------------------------------------ the owner's

    /**
     * Owner: the index of an attached region that shares a byte with {@code [address, address +
     * bytes)}, or -1. Plain reads: only the owner writes.
     */
    public int overlapping(long address, long bytes) {
        int n = count();
        for (int i = 0; i < n; i++) {
            long b = base(i);
            if (address < b + length(i) && b < address + bytes) {
                return i;
            }
        }
        return -1;
    }

    /** Owner: adds a region; false when the table is full ({@link WindowAreaDescriptor#REGIONS}). */
    public boolean add(long address, long bytes) {
        int n = count();
        if (n == REGIONS) {
            return false;
        }
        long g = begin();
        LONG.setOpaque(segment, entry(n), address);
        LONG.setOpaque(segment, entry(n) + 8, bytes);
        LONG.setOpaque(segment, (long) REGION_COUNT_OFFSET, n + 1L);
        end(g);
        return true;
    }

    /** Owner: removes the region that starts at {@code address} (the last one moves into its slot); false if none does. */
    public boolean remove(long address) {
        int n = count();
        for (int i = 0; i < n; i++) {
            if (base(i) == address) {
                long g = begin();
                LONG.setOpaque(segment, entry(i), base(n - 1));
                LONG.setOpaque(segment, entry(i) + 8, length(n - 1));
                LONG.setOpaque(segment, (long) REGION_COUNT_OFFSET, n - 1L);
                end(g);
                return true;
            }
        }
        return false;
    }

    /** Opaque store of an odd generation, then a store-store fence: no entry store passes it. */
    private long begin() {
        long g = (long) LONG.getOpaque(segment, (long) REGION_GENERATION_OFFSET) + 1;
        LONG.setOpaque(segment, (long) REGION_GENERATION_OFFSET, g);
        VarHandle.storeStoreFence();
        return g;
    }

    /** Release store of the next even generation: the entries' stores happen before a reader's acquire of it. */
    private void end(long odd) {
        LONG.setRelease(segment, (long) REGION_GENERATION_OFFSET, odd + 1);
    }

    // ------------------------------------------------------------ any rank's

    /**
     * Any rank: the index of a region that holds all of {@code [address, address + bytes)}, or -1.
     * Retries while the owner is changing the table (an odd or changed generation); a load fence
     * keeps the entries' reads before the second read of the generation.
     */
    public int find(long address, long bytes) {
        while (true) {
            long g = (long) LONG.getAcquire(segment, (long) REGION_GENERATION_OFFSET);
            if ((g & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            int n = (int) Math.min(REGIONS, Math.max(0, (long) LONG.getOpaque(segment, (long) REGION_COUNT_OFFSET)));
            int found = -1;
            for (int i = 0; i < n; i++) {
                long b = (long) LONG.getOpaque(segment, entry(i));
                long len = (long) LONG.getOpaque(segment, entry(i) + 8);
                if (address >= b && bytes <= len && address - b <= len - bytes) {
                    found = i;
                    break;
                }
            }
            VarHandle.loadLoadFence();
            if ((long) LONG.getOpaque(segment, (long) REGION_GENERATION_OFFSET) == g) {
                return found;
            }
        }
    }

    /** Regions attached (opaque; exact for the owner, a recent value for others). */
    public int count() {
        return (int) (long) LONG.getOpaque(segment, (long) REGION_COUNT_OFFSET);
    }

    /** Region {@code i}'s first address (opaque; for the owner and for messages). */
    public long base(int i) {
        return (long) LONG.getOpaque(segment, entry(i));
    }

    /** Region {@code i}'s bytes (opaque; for the owner and for messages). */
    public long length(int i) {
        return (long) LONG.getOpaque(segment, entry(i) + 8);
    }

    private static long entry(int i) {
        return REGION_ENTRIES_OFFSET + (long) REGION_LENGTH * i;
    }
}

package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.rma.RegionTable;
import io.tutti.rma.WindowAreaDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A dynamic window's region table ({@link RegionTable}) read by an origin ({@link RegionTable#find})
 * while its owner changes it ({@link RegionTable#remove}, {@link RegionTable#add}): the sequence
 * lock keeps a reader from pairing one region's base with another's length, and from missing a
 * region that stays attached while the last entry moves into a freed slot. Owner and reader each
 * have their own view of the table, as separate processes do.
 */
public final class RegionTableReads {
    private RegionTableReads() {
    }

    private static RegionTable[] twoViews() {
        MemorySegment table = Arena.ofAuto().allocate(WindowAreaDescriptor.REGION_TABLE_BYTES, 64);
        return new RegionTable[] {new RegionTable(table), new RegionTable(table)};
    }

    /**
     * The owner replaces [1000, +10000) by [20000, +10) in the same slot; the reader asks for address
     * 25000, which neither holds but the torn pair [20000, +10000) would. Result: 1 if found.
     */
    @JCStressTest
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "not found, in the old table, the new one or between")
    @Outcome(id = "1", expect = FORBIDDEN, desc = "found in a region made of the new base and the old length")
    @Outcome(expect = FORBIDDEN, desc = "no such outcome")
    @State
    public static class NoTornRegion {
        private final RegionTable owner;
        private final RegionTable reader;

        public NoTornRegion() {
            RegionTable[] views = twoViews();
            owner = views[0];
            reader = views[1];
            owner.add(1000, 10000);
        }

        @Actor
        public void replace() {
            owner.remove(1000);
            owner.add(20000, 10);
        }

        @Actor
        public void find(I_Result r) {
            r.r1 = reader.find(25000, 1) >= 0 ? 1 : 0;
        }
    }

    /**
     * The owner detaches [5000, +100) from slot 0, so [100, +50) moves there from slot 1; the reader
     * looks for address 120 of the region that stays. Result: 1 if found.
     */
    @JCStressTest
    @Outcome(id = "1", expect = ACCEPTABLE, desc = "the region that stays attached is found")
    @Outcome(id = "0", expect = FORBIDDEN, desc = "missed while the last entry moved into the freed slot")
    @Outcome(expect = FORBIDDEN, desc = "no such outcome")
    @State
    public static class StayingRegionStaysFound {
        private final RegionTable owner;
        private final RegionTable reader;

        public StayingRegionStaysFound() {
            RegionTable[] views = twoViews();
            owner = views[0];
            reader = views[1];
            owner.add(5000, 100);
            owner.add(100, 50);
        }

        @Actor
        public void detach() {
            owner.remove(5000);
        }

        @Actor
        public void find(I_Result r) {
            r.r1 = reader.find(120, 4) >= 0 ? 1 : 0;
        }
    }
}

package io.tutti.rma;

/**
 * Where records from across the network may land in a target's window: its bytes from 0, or, for a
 * dynamic window, the regions the target has attached ({@link RegionTable}), addressed by their
 * addresses. The target checks every record and batch entry against it ({@link RmaWire#refusal});
 * an origin across the network cannot read a dynamic window's table, so there the target's check
 * is the only one, and a refusal fails the origin's flush naming the rank and the address.
 */
abstract sealed class Extent {
    /** Whether {@code [address, address + bytes)} lies inside, for {@code bytes} ≥ 0. */
    abstract boolean holds(long address, long bytes);

    /** The extent in an origin's error: "rank 3's window of 4096 bytes". */
    abstract String describe(int rank);

    /** Where {@code address} is, in an origin's error: "byte offset 64" or "address 0x7f...". */
    abstract String where(long address);

    /** A window of {@code bytes} bytes, addressed from 0. */
    static Extent of(long bytes) {
        return new Bytes(bytes);
    }

    /** The regions attached to a dynamic window, as its owner's {@code table} holds them. */
    static Extent attached(RegionTable table) {
        return new Attached(table);
    }

    private static final class Bytes extends Extent {
        private final long bytes;

        Bytes(long bytes) {
            this.bytes = bytes;
        }

        @Override
        boolean holds(long address, long n) {
            return address >= 0 && n >= 0 && address <= bytes - n;
        }

        @Override
        String describe(int rank) {
            return "rank " + rank + "'s window of " + bytes + " bytes";
        }

        @Override
        String where(long address) {
            return "byte offset " + address;
        }
    }

    private static final class Attached extends Extent {
        private final RegionTable table;

        Attached(RegionTable table) {
            this.table = table;
        }

        @Override
        boolean holds(long address, long n) {
            return n >= 0 && (n == 0 || table.find(address, n) >= 0);
        }

        @Override
        String where(long address) {
            return "address 0x" + Long.toHexString(address);
        }

        @Override
        String describe(int rank) {
            return "every region rank " + rank + " has attached to the dynamic window (" + table.count()
                    + " attached; attach the memory there first and address it by its segment's address())";
        }
    }
}

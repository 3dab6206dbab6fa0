package io.tutti.transport;

/**
 * Where a network transport publishes the counters of its rails, so that other processes can read
 * them while the job runs ({@code tutti status}); the rank's counters file implements it. The
 * transport calls it from whichever thread runs its protocol, one at a time (its own exclusion),
 * and not on every datagram: a copy of its own counters now and then is enough for a reader.
 */
public interface RailCounters {
    /** Rails a counters file has room for; a transport with more publishes the first ones. */
    int MAX_RAILS = 8;

    /** A rail carries nothing now (no peer has it up). */
    long DOWN = 0;
    /** A rail is up and its load on this host is at most the busy threshold. */
    long FREE = 1;
    /** A rail is up and loaded above the busy threshold ([MNC]'s BUSY). */
    long BUSY = 2;

    /** The values kept per rail. */
    enum Rail {
        /** {@link #DOWN}, {@link #FREE} or {@link #BUSY}. */
        STATE,
        DATAGRAMS_SENT,
        BYTES_SENT,
        DATAGRAMS_RECEIVED,
        RETRANSMITS,
        /** Bytes in flight on the rail from every rank of this host (the node's rail table). */
        OUTSTANDING_BYTES
    }

    /** The values kept for the transport as a whole. */
    enum Total {
        NAKS_SENT,
        /** Received datagrams whose CRC32C did not match. */
        CRC_DROPS,
        /** Received datagrams of another job, or from an address that did not prove the job's secret. */
        FOREIGN_DROPS,
        /** Every other received datagram dropped (malformed, out of the window, injected). */
        OTHER_DROPS,
        TIMEOUTS,
        /** Smoothed round-trip time, the mean over the peers that have one, in nanoseconds. */
        SRTT_NANOS
    }

    /** Names rail {@code rail} (its interface or address); once, before its first values. */
    void railName(int rail, String name);

    /** Sets one value of rail {@code rail} (below {@link #MAX_RAILS}; others are ignored). */
    void rail(int rail, Rail what, long value);

    /** Sets one value of the transport as a whole. */
    void total(Total what, long value);
}

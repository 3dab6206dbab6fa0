package io.tutti.transport;

/**
 * Where a network transport publishes the counters of its rails, so that other processes can read
 * them while the job runs ({@code tutti status}); the rank's counters file implements it. The
 * transport calls it from whichever thread runs its protocol, one at a time (its own exclusion),
 * and not on every datagram: a copy of its own counters now and then is enough for a reader.
 * The same file carries the operator's rail commands ({@code tutti rail}) the other way: the
 * transport reads the latest with {@link #railCommand()} when it copies its counters, and answers
 * it with {@link #railAnswer}. A command is one 64-bit word, {@link #command}: its sequence number
 * (from 1), the operation and the rail.
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
    /** A rail taken out of service by an operator ({@code tutti rail JOB down}), here or at the peers. */
    long ADMIN_DOWN = 3;

    /** Command operations: take a rail out of service, bring it back. */
    int RAIL_DOWN = 1;
    int RAIL_UP = 2;

    /**
     * Answers: done (or it was so already); no such rail; refused, it is the last rail in service;
     * not done, the rank ended first (a launcher's answer for a rank on another host).
     */
    int DONE = 1;
    int NO_SUCH_RAIL = 2;
    int LAST_RAIL = 3;
    int ENDED = 4;

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

    /** The latest command posted ({@link #command} word), 0 when none ever was. Acquire. */
    default long railCommand() {
        return 0;
    }

    /** Answers {@code command} (a word {@link #railCommand()} returned) with {@link #DONE}, ... Release. */
    default void railAnswer(long command, int result) {
    }

    /** A command word: sequence number {@code seq} (1 to 2^31-1), {@code op} on rail {@code rail}. */
    static long command(int seq, int op, int rail) {
        return (long) seq << 32 | (op & 0xFF) << 8 | (rail & 0xFF);
    }

    /** The sequence number of a command or answer word. */
    static int sequence(long word) {
        return (int) (word >>> 32);
    }

    /** The operation of a command word, or the result of an answer word. */
    static int operation(long word) {
        return (int) (word >>> 8) & 0xFF;
    }

    /** The rail of a command word. */
    static int rail(long word) {
        return (int) word & 0xFF;
    }

    /** The answer word to {@code command}: its sequence number and {@code result}. */
    static long answer(long command, int result) {
        return command & 0xFFFF_FFFF_0000_0000L | (result & 0xFF) << 8;
    }
}

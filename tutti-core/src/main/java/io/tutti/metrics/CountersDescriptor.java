package io.tutti.metrics;

import io.tutti.transport.RailCounters;

/**
 * Layout of a rank's counters file ({@code counters-RANK} in the job's directory), Aeron's CnC idea:
 * the owning rank writes, any process of the user maps it and reads, nobody locks.
 *
 * <pre>
 *  header (512 bytes)
 *    +0   magic      i64  MAGIC, stored last (release): the file is formatted
 *    +8   version    i32  VERSION        +12  rank     i32
 *    +16  size       i32  ranks          +20  rails    i32  RailCounters.MAX_RAILS
 *    +24  pid        i64                 +32  started  i64  epoch ms
 *    +40  enabled    i32  0: counting is off
 *    +44  copy       i32  0: the rank's own file; else a launcher's copy of a rank on another host:
 *                         COPY_RUNNING, COPY_DONE, COPY_FAILED (written by that launcher)
 *    +48  copied     i64  epoch ms of the copy's latest refresh (the launcher)
 *    +64  job id     i32 length, then UTF-8 (at most 440 bytes)
 *  labels (4096 bytes): lines in cell order: "collective OP", each followed by its "algorithm NAME"
 *                        lines; then "offload NAME", "inc NAME" and "error NAME" lines
 *  values, each group on its own 128-byte lines, 8-byte cells:
 *    traffic    owner      8 cells unused (the totals by transport are the reader's sum over the
 *                          peers: half the stores a message), dropped, clock
 *    blocked    owner      seq, call, peer, tag, context, since (a seqlock: seq odd while written)
 *    errors     owner      one cell per error class
 *    peers      owner      size x 8 cells: msgs, bytes sent, msgs, bytes received, last heard, transport
 *    collectives owner     per operation, per algorithm 40 cells: calls, then BUCKETS log2 latency
 *                          buckets (an operation's calls and histogram are the reader's sum)
 *    offload    owner      one cell per offload counter: offloaded collectives, runs, packets landed,
 *                          held and queued, then the deferred-work entries fired, per operation
 *    in-network owner      one cell per in-network counter: groups, fallbacks, packets, retries
 *    net totals transport  RailCounters.Total, one cell each
 *    rails      transport  MAX_RAILS x 256 bytes: RailCounters.Rail cells; name at +128 (i32 length, UTF-8)
 *    command    operators  one line: the latest rail command word (RailCounters.command), by CAS
 *    answer     transport  one line: the answer word to the latest command it took
 * </pre>
 *
 * Writers by region: the rank's own thread (which holds the engine) writes the owner groups, the
 * network transport's protocol thread the rails and the answer, {@code tutti rail} the command
 * line, so no cache line has two kinds of writer. The offload engine and the in-network client run
 * under the engine's lock (on the rank's thread, or the progress agent while it holds the engine), as
 * the message counts do: they are owner groups, each on its own lines all the same. The collectives
 * are counted per algorithm, the calls and the log2 latency histogram alike, so a call still costs
 * one increment (the algorithm's count) and a timed one a second (its bucket): the operation's
 * figures are the reader's sums. A cell is written with a release store by its
 * writer and read with an acquire load; the latency histogram is log2 buckets rather than an
 * HdrHistogram because HdrHistogram keeps its counts in a heap array, which another process cannot
 * map. Commands ride here rather than in a file of their own so that they name ranks and rails as
 * {@code tutti status} shows them, under the same owner-only permissions, and the transport reads
 * them when it copies its counters anyway (every 10 ms), never on a message's path.
 */
public final class CountersDescriptor {
    /** "TUTTICNT" as a little-endian long. */
    public static final long MAGIC = 0x544E435454555454L;
    public static final int VERSION = 4;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int RANK_OFFSET = 12;
    public static final int SIZE_OFFSET = 16;
    public static final int RAILS_OFFSET = 20;
    public static final int PID_OFFSET = 24;
    public static final int STARTED_OFFSET = 32;
    public static final int ENABLED_OFFSET = 40;
    /**
     * A launcher keeps a copy of the counters of each rank on another host (sent every second over
     * the rendezvous, RendezvousWire COPY), so its own host's {@code tutti status} and monitor see the
     * whole job; these two cells say so, and whether that rank still runs, as the pid cannot there.
     */
    public static final int COPY_OFFSET = 44;
    public static final int COPIED_OFFSET = 48;
    public static final int COPY_NONE = 0;
    public static final int COPY_RUNNING = 1;
    public static final int COPY_DONE = 2;
    public static final int COPY_FAILED = 3;
    public static final int JOB_OFFSET = 64;
    public static final int JOB_MAX_BYTES = 440;
    public static final int HEADER_LENGTH = 512;

    public static final int LABELS_OFFSET = HEADER_LENGTH;
    public static final int LABELS_LENGTH = 4096;

    private static final int LINE = 128;
    private static final int CELL = 8;

    /**
     * The traffic line: its first eight cells are unused (see the picture), then DROPPED and CLOCK.
     * SHM and NET are the values of a peer's TRANSPORT cell; the four below are a peer's traffic cells.
     */
    public static final int TRAFFIC_OFFSET = LABELS_OFFSET + LABELS_LENGTH;
    public static final int SHM = 0;
    public static final int NET = 1;
    public static final int MSGS_SENT = 0;
    public static final int BYTES_SENT = 1;
    public static final int MSGS_RECEIVED = 2;
    public static final int BYTES_RECEIVED = 3;
    public static final int DROPPED_CELL = 8;
    /** The owner's coarse clock (epoch ms), advanced when it waits: what "last heard" is stamped with. */
    public static final int CLOCK_CELL = 9;

    public static final int BLOCKED_OFFSET = TRAFFIC_OFFSET + LINE;
    public static final int BLOCKED_SEQ = 0;
    public static final int BLOCKED_CALL = 1;
    public static final int BLOCKED_PEER = 2;
    public static final int BLOCKED_TAG = 3;
    public static final int BLOCKED_CONTEXT = 4;
    public static final int BLOCKED_SINCE = 5;

    public static final int ERRORS_OFFSET = BLOCKED_OFFSET + LINE;

    /** Cells per peer: the four traffic cells, LAST_HEARD, TRANSPORT, two spare (64 bytes). */
    public static final int PEER_CELLS = 8;
    public static final int LAST_HEARD = 4;
    public static final int TRANSPORT = 5;

    /** Latency buckets per algorithm: bucket i counts calls of [2^i, 2^(i+1)) ns, the last one all longer. */
    public static final int BUCKETS = 38;
    /** Cells per algorithm of an operation: the call count, then the buckets, then spare (320 bytes). */
    public static final int COLLECTIVE_CELLS = 40;

    public static final int RAIL_LENGTH = 256;
    public static final int RAIL_NAME_OFFSET = 128;
    public static final int RAIL_NAME_MAX_BYTES = 124;

    private CountersDescriptor() {
    }

    /** The name of rank {@code rank}'s counters file in the job's directory. */
    public static String fileName(int rank) {
        return "counters-" + rank;
    }

    /** Rounds up to whole 128-byte lines. */
    static long lines(long bytes) {
        return (bytes + LINE - 1) & -LINE;
    }

    /**
     * How many cells a file's variable groups have, which places every group after the errors:
     * the error classes, the ranks, the algorithms over all operations, the offload and in-network
     * counters (all from the labels).
     */
    public record Shape(int errorKinds, int size, int algorithms, int offloadKinds, int inNetworkKinds) {
        /** Offset of the peers group. */
        public long peersOffset() {
            return ERRORS_OFFSET + lines((long) errorKinds * CELL);
        }

        /** Offset of the collectives group. */
        public long collectivesOffset() {
            return peersOffset() + lines((long) size * PEER_CELLS * CELL);
        }

        /** Offset of the offload group. */
        public long offloadOffset() {
            return collectivesOffset() + lines((long) algorithms * COLLECTIVE_CELLS * CELL);
        }

        /** Offset of the in-network group. */
        public long inNetworkOffset() {
            return offloadOffset() + lines((long) offloadKinds * CELL);
        }

        /** Offset of the network totals (the transport's first line). */
        public long netTotalsOffset() {
            return inNetworkOffset() + lines((long) inNetworkKinds * CELL);
        }

        /** Offset of the rails group. */
        public long railsOffset() {
            return netTotalsOffset() + lines((long) RailCounters.Total.values().length * CELL);
        }

        /** Offset of the command line (operators write it); the answer line follows it. */
        public long commandOffset() {
            return railsOffset() + (long) RailCounters.MAX_RAILS * RAIL_LENGTH;
        }

        /** Offset of the answer line (the transport writes it). */
        public long answerOffset() {
            return commandOffset() + LINE;
        }

        /** The file's length. */
        public long fileLength() {
            return answerOffset() + LINE;
        }
    }

    /** The bucket of a latency: floor(log2(nanos)), at most the last. */
    public static int bucket(long nanos) {
        return Math.min(BUCKETS - 1, 63 - Long.numberOfLeadingZeros(Math.max(1, nanos)));
    }
}

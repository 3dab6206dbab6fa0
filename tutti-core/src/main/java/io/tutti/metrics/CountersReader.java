package io.tutti.metrics;

import static io.tutti.metrics.CountersDescriptor.*;

import io.tutti.Metrics;
import io.tutti.transport.RailCounters;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a rank's counters ({@link CountersDescriptor}) from any process, while the rank runs and
 * without disturbing it: every cell with an acquire load, the blocked call with the seqlock's
 * reader protocol. Maps the file read-only; {@link #close()} unmaps it.
 */
public final class CountersReader implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    /** Tries of the seqlock before the blocked call is reported as changing (the rank is busy). */
    private static final int SEQLOCK_TRIES = 100;
    private static final String[] RAIL_STATES = {"down", "free", "busy", "down (admin)"};

    private final Arena arena;
    private final MemorySegment s;
    private final List<String> operations = new ArrayList<>();
    /** Per operation, its algorithms, in cell order. */
    private final List<List<String>> algorithms = new ArrayList<>();
    private final List<String> offload = new ArrayList<>();
    private final List<String> inNetwork = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final int size;
    private final Shape shape;

    private CountersReader(Arena arena, MemorySegment s) {
        this.arena = arena;
        this.s = s;
        this.size = s.get(ValueLayout.JAVA_INT, SIZE_OFFSET);
        int cells = 0;
        for (String line : text(s, LABELS_OFFSET, LABELS_LENGTH - 4).split("\n")) {
            if (line.startsWith("collective ")) {
                operations.add(line.substring("collective ".length()));
                algorithms.add(new ArrayList<>());
            } else if (line.startsWith("algorithm ") && !algorithms.isEmpty()) {
                algorithms.getLast().add(line.substring("algorithm ".length()));
                cells++;
            } else if (line.startsWith("offload ")) {
                offload.add(line.substring("offload ".length()));
            } else if (line.startsWith("inc ")) {
                inNetwork.add(line.substring("inc ".length()));
            } else if (line.startsWith("error ")) {
                errors.add(line.substring("error ".length()));
            }
        }
        this.shape = new Shape(errors.size(), size, cells, offload.size(), inNetwork.size());
    }

    /**
     * Maps a counters file; null when it does not exist or is not formatted yet (a rank starting).
     * Throws {@link IllegalStateException} for a file of another layout version.
     */
    public static CountersReader open(Path file) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = ch.size();
            if (length < HEADER_LENGTH + LABELS_LENGTH) {
                arena.close();
                return null;
            }
            CountersReader r = of(ch.map(FileChannel.MapMode.READ_ONLY, 0, length, arena), arena);
            if (r == null) {
                arena.close();
            }
            return r;
        } catch (IOException e) {
            arena.close();
            return null;
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * A reader over a mapped (or private) counters segment, which closes {@code owner} (may be null)
     * when it is closed; null while the segment is not formatted. Closes nothing when it returns
     * null or throws.
     */
    public static CountersReader of(MemorySegment s, Arena owner) {
        if ((long) LONG.getAcquire(s, (long) MAGIC_OFFSET) != MAGIC) {
            return null;
        }
        int version = s.get(ValueLayout.JAVA_INT, VERSION_OFFSET);
        if (version != VERSION) {
            throw new IllegalStateException("counters file of layout version " + version + ", this Tutti reads "
                    + VERSION + ": read it with the tutti of the job's own version");
        }
        CountersReader r = new CountersReader(owner, s);
        long needed = r.shape.fileLength();
        if (s.byteSize() < needed) {
            throw new IllegalStateException("counters file of " + s.byteSize() + " bytes, its header asks for "
                    + needed);
        }
        return r;
    }

    static String text(MemorySegment s, long at, int max) {
        int n = Math.clamp((int) INT.getAcquire(s, at), 0, max);
        byte[] b = new byte[n];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + 4, b, 0, n);
        return new String(b, StandardCharsets.UTF_8);
    }

    private long cell(long group, int cell) {
        return (long) LONG.getAcquire(s, group + cell * 8L);
    }

    /** The rank whose counters these are. */
    public int rank() {
        return s.get(ValueLayout.JAVA_INT, RANK_OFFSET);
    }

    /** The rank's process. */
    public long pid() {
        return s.get(ValueLayout.JAVA_LONG, PID_OFFSET);
    }

    /** {@link CountersDescriptor#COPY_NONE} for a rank's own file, else the state of a launcher's copy. */
    public int copyState() {
        return (int) INT.getAcquire(s, (long) COPY_OFFSET);
    }

    /** When a launcher's copy was last refreshed (epoch ms); 0 for a rank's own file. */
    public long copiedMillis() {
        return (long) LONG.getAcquire(s, (long) COPIED_OFFSET);
    }

    /** Ranks in the job. */
    public int size() {
        return size;
    }

    /** Error classes counted: how many cells the errors group has. */
    int errorKinds() {
        return errors.size();
    }

    /** Where this file's rail command word is ({@link RailControl} posts it); the answer word is one line on. */
    public long commandOffset() {
        return shape.commandOffset();
    }

    /** Where this file's rail answer word is (the transport, or a launcher for its copy, writes it). */
    public long answerOffset() {
        return shape.answerOffset();
    }

    /** The names of the rank's network rails, by index; empty when it has none. */
    public List<String> railNames() {
        long railsAt = shape.railsOffset();
        List<String> names = new ArrayList<>();
        for (int r = 0; r < s.get(ValueLayout.JAVA_INT, RAILS_OFFSET) && r < RailCounters.MAX_RAILS; r++) {
            String name = text(s, railsAt + (long) r * RAIL_LENGTH + RAIL_NAME_OFFSET, RAIL_NAME_MAX_BYTES);
            if (name.isEmpty()) {
                break;
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    /** The collective operations, in the order of their cells. */
    public List<String> operations() {
        return List.copyOf(operations);
    }

    /** Each operation's algorithms, in the order of their cells. */
    public List<List<String>> algorithms() {
        return algorithms.stream().map(List::copyOf).toList();
    }

    /** What the counters hold now. */
    public Metrics read() {
        int errorKinds = errors.size();
        long peersAt = shape.peersOffset();
        long totalsAt = shape.netTotalsOffset();
        long railsAt = shape.railsOffset();
        List<Metrics.Peer> peers = new ArrayList<>(size);
        // the totals by transport are the sums over the peers (the rank keeps no separate totals)
        long[] totalsBy = new long[8];
        for (int p = 0; p < size; p++) {
            long at = peersAt + (long) p * PEER_CELLS * 8;
            Metrics.Traffic t = traffic(at);
            boolean net = cell(at, TRANSPORT) == NET;
            peers.add(new Metrics.Peer(p, net ? "net" : "shm", t, cell(at, LAST_HEARD)));
            int base = net ? 4 : 0;
            totalsBy[base] += t.messagesSent();
            totalsBy[base + 1] += t.bytesSent();
            totalsBy[base + 2] += t.messagesReceived();
            totalsBy[base + 3] += t.bytesReceived();
        }
        List<Metrics.Collective> colls = collectives();
        List<Metrics.Rail> rails = new ArrayList<>();
        for (int r = 0; r < s.get(ValueLayout.JAVA_INT, RAILS_OFFSET) && r < RailCounters.MAX_RAILS; r++) {
            long at = railsAt + (long) r * RAIL_LENGTH;
            String name = text(s, at + RAIL_NAME_OFFSET, RAIL_NAME_MAX_BYTES);
            if (name.isEmpty()) {
                continue;
            }
            int state = (int) cell(at, RailCounters.Rail.STATE.ordinal());
            rails.add(new Metrics.Rail(r, name, RAIL_STATES[Math.clamp(state, 0, RAIL_STATES.length - 1)],
                    cell(at, RailCounters.Rail.DATAGRAMS_SENT.ordinal()), cell(at, RailCounters.Rail.BYTES_SENT.ordinal()),
                    cell(at, RailCounters.Rail.DATAGRAMS_RECEIVED.ordinal()),
                    cell(at, RailCounters.Rail.RETRANSMITS.ordinal()),
                    cell(at, RailCounters.Rail.OUTSTANDING_BYTES.ordinal())));
        }
        Metrics.NetTotals totals = new Metrics.NetTotals(cell(totalsAt, RailCounters.Total.NAKS_SENT.ordinal()),
                cell(totalsAt, RailCounters.Total.CRC_DROPS.ordinal()),
                cell(totalsAt, RailCounters.Total.FOREIGN_DROPS.ordinal()),
                cell(totalsAt, RailCounters.Total.OTHER_DROPS.ordinal()),
                cell(totalsAt, RailCounters.Total.TIMEOUTS.ordinal()),
                cell(totalsAt, RailCounters.Total.SRTT_NANOS.ordinal()));
        List<Metrics.ErrorCount> errs = new ArrayList<>();
        for (int e = 0; e < errorKinds; e++) {
            long n = cell(ERRORS_OFFSET, e);
            if (n > 0) {
                errs.add(new Metrics.ErrorCount(errors.get(e), n));
            }
        }
        return new Metrics(text(s, JOB_OFFSET, JOB_MAX_BYTES), rank(), size, pid(),
                s.get(ValueLayout.JAVA_LONG, STARTED_OFFSET), s.get(ValueLayout.JAVA_INT, ENABLED_OFFSET) != 0,
                new Metrics.Traffic(totalsBy[0], totalsBy[1], totalsBy[2], totalsBy[3]),
                new Metrics.Traffic(totalsBy[4], totalsBy[5], totalsBy[6], totalsBy[7]),
                cell(TRAFFIC_OFFSET, DROPPED_CELL), List.copyOf(peers), colls, List.copyOf(rails), totals,
                List.copyOf(errs), blocked(), named(shape.offloadOffset(), offload),
                named(shape.inNetworkOffset(), inNetwork));
    }

    /**
     * The operations that ran, each with the algorithms that ran it: an algorithm's calls and
     * histogram are its cells, the operation's their sums.
     */
    private List<Metrics.Collective> collectives() {
        List<Metrics.Collective> colls = new ArrayList<>();
        long at = shape.collectivesOffset();
        for (int o = 0; o < operations.size(); o++) {
            List<Metrics.Algorithm> ran = new ArrayList<>();
            long calls = 0;
            long[] sum = new long[BUCKETS];
            for (String name : algorithms.get(o)) {
                long n = cell(at, 0);
                if (n > 0) {
                    long[] h = new long[BUCKETS];
                    for (int b = 0; b < BUCKETS; b++) {
                        h[b] = cell(at, 1 + b);
                        sum[b] += h[b];
                    }
                    ran.add(new Metrics.Algorithm(name, n, h));
                    calls += n;
                }
                at += COLLECTIVE_CELLS * 8L;
            }
            if (calls > 0) {
                colls.add(new Metrics.Collective(operations.get(o), calls, sum, List.copyOf(ran)));
            }
        }
        return List.copyOf(colls);
    }

    /** The cells of a group named by {@code names}, by name in cell order. */
    private Map<String, Long> named(long group, List<String> names) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(names.get(i), cell(group, i));
        }
        return Collections.unmodifiableMap(m);
    }

    /** The four traffic cells at {@code at}: count read before bytes, each after the bytes it counts. */
    private Metrics.Traffic traffic(long at) {
        long msgsSent = cell(at, MSGS_SENT);
        long bytesSent = cell(at, BYTES_SENT);
        long msgsReceived = cell(at, MSGS_RECEIVED);
        long bytesReceived = cell(at, BYTES_RECEIVED);
        return new Metrics.Traffic(msgsSent, bytesSent, msgsReceived, bytesReceived);
    }

    /**
     * The blocked call, by the seqlock's reader protocol: the sequence (acquire), the fields, a
     * load-load fence, the sequence again; the fields are one write's when both readings are the same
     * even number. Null when not blocked, or when it changed on every try (the rank is busy).
     */
    public Metrics.Blocked blocked() {
        long at = BLOCKED_OFFSET;
        for (int i = 0; i < SEQLOCK_TRIES; i++) {
            long seq = (long) LONG.getAcquire(s, at + BLOCKED_SEQ * 8L);
            if ((seq & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            long call = (long) LONG.getOpaque(s, at + BLOCKED_CALL * 8L);
            long peer = (long) LONG.getOpaque(s, at + BLOCKED_PEER * 8L);
            long tag = (long) LONG.getOpaque(s, at + BLOCKED_TAG * 8L);
            long context = (long) LONG.getOpaque(s, at + BLOCKED_CONTEXT * 8L);
            long since = (long) LONG.getOpaque(s, at + BLOCKED_SINCE * 8L);
            VarHandle.loadLoadFence();
            if ((long) LONG.getOpaque(s, at + BLOCKED_SEQ * 8L) != seq) {
                continue;
            }
            return call == Counters.NONE ? null
                    : new Metrics.Blocked(callName((int) call), (int) peer, (int) tag, (int) context, since);
        }
        return null;
    }

    private String callName(int call) {
        return switch (call) {
            case Counters.SEND -> "send";
            case Counters.RECV -> "recv";
            case Counters.PROBE -> "probe";
            case Counters.WAIT -> "wait";
            default -> call >= Counters.COLLECTIVE && call - Counters.COLLECTIVE < operations.size()
                    ? operations.get(call - Counters.COLLECTIVE) : "call " + call;
        };
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}

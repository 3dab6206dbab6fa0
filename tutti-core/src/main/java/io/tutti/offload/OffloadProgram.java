package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One rank's offloaded collective: a list of deferred-work entries ({@link DeferredWork}) on a few
 * counters, plus the buffers it touches. Entries are stored in primitive arrays, sorted by
 * (counter, threshold, posting order), so the engine fires them with one cursor per counter and
 * no search. Immutable once built; the same program serves every start of a persistent request.
 *
 * <p>Operations (the Ot column):
 * <ul>
 *   <li>{@link #PUT}: write a local region into the peer's region; on landing the peer's counter
 *       {@code targetCounter} gains {@code value} (0: no count; [water-tank]'s FI_OP_WRITE adds 1).</li>
 *   <li>{@link #CNTR_ADD}: add {@code value} (any sign) to local counter {@code targetCounter}.</li>
 *   <li>{@link #REMOTE_CNTR_ADD}: add {@code value} to counter {@code targetCounter} of {@code peer}.</li>
 *   <li>{@link #NIC_REDUCE}: combine the local region into the accumulator with the ALU, then (if
 *       {@code peer >= 0}) send the accumulator to the peer's accumulator as reduction descriptors,
 *       each adding {@code value} on arrival; the peer expects {@code branch} inputs.</li>
 *   <li>{@link #TRIGGERED_BCAST}: send the local region to the peer's region as broadcast
 *       descriptors, each adding {@code value} on arrival.</li>
 *   <li>{@link #COPY}: local copy of a region (a schedule's COPY step, or the root's result write).</li>
 *   <li>{@link #REDUCE}: local ALU combine of one host region into another.</li>
 *   <li>{@link #COMPLETE}: the collective is done on this rank (the request's completion).</li>
 * </ul>
 *
 * Two fields are checking metadata, not sent anywhere: {@code arrival} (which of the peer's
 * expected arrivals the packet is, numbered in the peer's bucket order) and {@code need} (how many
 * of this rank's arrivals, counted from the first, must have landed before the entry may fire).
 * The harness uses them to catch an entry that fires early.
 */
public final class OffloadProgram {
    public static final byte PUT = 1;
    public static final byte CNTR_ADD = 2;
    public static final byte REMOTE_CNTR_ADD = 3;
    public static final byte NIC_REDUCE = 4;
    public static final byte TRIGGERED_BCAST = 5;
    public static final byte COPY = 6;
    public static final byte REDUCE = 7;
    public static final byte COMPLETE = 8;

    /** What an entry is for, in [water-tank]'s message names (the dump's Mn column); reports only. */
    public static final byte ROLE_NONE = 0;
    public static final byte ROLE_RTR = 1;
    public static final byte ROLE_DAT = 2;
    public static final byte ROLE_RTE = 3;
    public static final byte ROLE_SIGNAL = 4;
    public static final byte ROLE_SYNC = 5;
    public static final byte ROLE_BRANCH = 6;
    public static final byte ROLE_FIN = 7;
    private static final String[] ROLES = {"", "RTR", "DAT", "RTE", "SIG", "SYNC", "BRANCH", "FIN"};

    /** Buffer ids: the schedule's three, and the NIC's accumulator. */
    public static final byte SEND_BUFFER = 0;
    public static final byte RECV_BUFFER = 1;
    public static final byte TEMP_BUFFER = 2;
    public static final byte ACC_BUFFER = 3;
    public static final int BUFFERS = 4;

    final String name;
    final String scheme;
    final int rank;
    final int size;
    final int counters;
    final int entries;
    final int arrivals;
    final int[] arrivalStart;
    /** Per arrival, the rank it comes from, or null where the scheme does not record it. */
    final int[] arrivalPeer;
    final long[] bufferBytes;
    final OffloadAlu.Op aluOp;
    final OffloadAlu.Type aluType;
    final int[] counterStart;
    final byte[] op;
    final int[] counter;
    final long[] threshold;
    final int[] peer;
    final long[] value;
    final int[] targetCounter;
    final byte[] buffer;
    final long[] offset;
    final long[] length;
    final byte[] srcBuffer;
    final long[] srcOffset;
    final byte[] remoteBuffer;
    final long[] remoteOffset;
    final int[] branch;
    final int[] arrival;
    final int[] need;
    final byte[] role;
    final int rounds;

    private OffloadProgram(Builder b, List<Builder.E> es) {
        this.name = b.name;
        this.scheme = b.scheme;
        this.rank = b.rank;
        this.size = b.size;
        this.counters = b.counters;
        this.arrivalStart = new int[b.counters + 1];
        for (int c = 0; c < b.counters; c++) {
            arrivalStart[c + 1] = arrivalStart[c] + (c < b.arrivals.length ? b.arrivals[c] : 0);
        }
        this.arrivals = arrivalStart[b.counters];
        this.arrivalPeer = b.arrivalPeers == null ? null : b.arrivalPeers.clone();
        this.bufferBytes = b.bufferBytes.clone();
        this.aluOp = b.aluOp;
        this.aluType = b.aluType;
        this.rounds = b.rounds;
        int n = es.size();
        this.entries = n;
        op = new byte[n];
        counter = new int[n];
        threshold = new long[n];
        peer = new int[n];
        value = new long[n];
        targetCounter = new int[n];
        buffer = new byte[n];
        offset = new long[n];
        length = new long[n];
        srcBuffer = new byte[n];
        srcOffset = new long[n];
        remoteBuffer = new byte[n];
        remoteOffset = new long[n];
        branch = new int[n];
        arrival = new int[n];
        need = new int[n];
        role = new byte[n];
        counterStart = new int[counters + 1];
        for (int i = 0; i < n; i++) {
            Builder.E e = es.get(i);
            op[i] = e.op;
            counter[i] = e.counter;
            threshold[i] = e.threshold;
            peer[i] = e.peer;
            value[i] = e.value;
            targetCounter[i] = e.targetCounter;
            buffer[i] = e.buffer;
            offset[i] = e.offset;
            length[i] = e.length;
            srcBuffer[i] = e.srcBuffer;
            srcOffset[i] = e.srcOffset;
            remoteBuffer[i] = e.remoteBuffer;
            remoteOffset[i] = e.remoteOffset;
            branch[i] = e.branch;
            arrival[i] = e.arrival;
            need[i] = e.need;
            role[i] = e.role;
            counterStart[e.counter + 1]++;
        }
        for (int c = 0; c < counters; c++) {
            counterStart[c + 1] += counterStart[c];
        }
    }

    /** Which collective and algorithm it came from. */
    public String name() {
        return name;
    }

    /** The offload pattern: "2^n", "single-source", "nic-reduction-tree". */
    public String scheme() {
        return scheme;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /** Counters (water tanks) the program uses on this rank. */
    public int counters() {
        return counters;
    }

    /** Deferred-work entries. */
    public int entries() {
        return entries;
    }

    /** Arrivals this rank expects per run (packets that add to its counters). */
    public int arrivals() {
        return arrivals;
    }

    /**
     * The rank arrival {@code k} comes from (in the 2^n scheme, the arrival of bucket weight
     * 2^(arrivals − 1 − k)), or −1 where the program does not record it.
     */
    public int arrivalPeer(int k) {
        return arrivalPeer == null || k < 0 || k >= arrivalPeer.length ? -1 : arrivalPeer[k];
    }

    /**
     * Checking metadata: arrivals are numbered per counter, counter {@code c}'s from
     * {@code arrivalStart(c)} to {@code arrivalStart(c + 1) - 1}; {@link #need} counts from the start
     * of the entry's counter's block.
     */
    public int arrivalStart(int c) {
        return arrivalStart[c];
    }

    /** The counter entry {@code i} waits on. */
    public int counter(int i) {
        return counter[i];
    }

    /** Communication rounds of the algorithm on this rank. */
    public int rounds() {
        return rounds;
    }

    /** Distinct thresholds: the checkpoints ([water-tank]'s real rounds R) at which the rank waits. */
    public int checkpoints() {
        long distinct = 0;
        for (int c = 0; c < counters; c++) {
            for (int i = counterStart[c]; i < counterStart[c + 1]; i++) {
                if (threshold[i] > 0 && (i == counterStart[c] || threshold[i] != threshold[i - 1])) {
                    distinct++;
                }
            }
        }
        return (int) distinct;
    }

    /** Bytes of buffer {@code id} the program reads or writes. */
    public long bufferBytes(int id) {
        return bufferBytes[id];
    }

    /** The ALU operation of NIC_REDUCE and REDUCE entries, or null. */
    public OffloadAlu.Op aluOp() {
        return aluOp;
    }

    /** The ALU type, or null. */
    public OffloadAlu.Type aluType() {
        return aluType;
    }

    /** Entry {@code i} as a value. */
    public DeferredWork entry(int i) {
        return new DeferredWork(i, op[i], counter[i], threshold[i], peer[i], value[i], targetCounter[i], buffer[i],
                offset[i], length[i]);
    }

    /** All entries, in firing order. */
    public List<DeferredWork> list() {
        List<DeferredWork> l = new ArrayList<>(entries);
        for (int i = 0; i < entries; i++) {
            l.add(entry(i));
        }
        return l;
    }

    /** Checking metadata: arrivals of this rank on the entry's counter that must have landed before it fires. */
    public int need(int i) {
        return need[i];
    }

    /** Checking metadata: the number, in the peer's arrival order, of the first packet entry {@code i} sends. */
    public int arrival(int i) {
        return arrival[i];
    }

    /** The entry's role ({@link #ROLE_RTR} ...), for reports. */
    public byte role(int i) {
        return role[i];
    }

    /** Buffer read for COPY/REDUCE sources and NIC_REDUCE's accumulator. */
    public byte srcBuffer(int i) {
        return srcBuffer[i];
    }

    public long srcOffset(int i) {
        return srcOffset[i];
    }

    public byte remoteBuffer(int i) {
        return remoteBuffer[i];
    }

    public long remoteOffset(int i) {
        return remoteOffset[i];
    }

    /** NIC_REDUCE: inputs the peer accumulates before its own descriptor fires. */
    public int branch(int i) {
        return branch[i];
    }

    /** The operation's short name. */
    public static String opName(byte op) {
        return switch (op) {
            case PUT -> "PUT";
            case CNTR_ADD -> "CNTR_ADD";
            case REMOTE_CNTR_ADD -> "REMOTE_CNTR_ADD";
            case NIC_REDUCE -> "NIC_REDUCE";
            case TRIGGERED_BCAST -> "TRIGGERED_BCAST";
            case COPY -> "COPY";
            case REDUCE -> "REDUCE";
            case COMPLETE -> "COMPLETE";
            default -> "?" + op;
        };
    }

    private static String bufferName(byte b) {
        return switch (b) {
            case SEND_BUFFER -> "send";
            case RECV_BUFFER -> "recv";
            case TEMP_BUFFER -> "temp";
            case ACC_BUFFER -> "acc";
            default -> "?" + b;
        };
    }

    /**
     * The deferred-work list in [water-tank]'s column format (tables 2, 4, 5): Rq, Th, Ot, Iv/Cl/Cr,
     * Pq, Ci, then the region moved. Cl is a local add, Cr the add a landing packet makes at the
     * peer, Iv the value of a remote counter add.
     */
    public String dump() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%s, rank %d of %d, scheme %s: %d counter(s), %d entries%n", name, rank, size, scheme,
                counters, entries));
        sb.append(String.format("%4s %3s %20s  %-16s %10s %5s %4s  %-6s %s%n", "Rq", "Ct", "Th", "Ot", "Iv/Cl/Cr", "Pq",
                "Ci", "Mn", "region"));
        for (int i = 0; i < entries; i++) {
            String v;
            String pq = peer[i] >= 0 ? Integer.toString(peer[i]) : "-";
            String ci = "-";
            String region = "";
            switch (op[i]) {
                case CNTR_ADD -> {
                    v = "Cl " + value[i];
                    ci = "C" + targetCounter[i];
                }
                case REMOTE_CNTR_ADD -> {
                    v = "Iv " + value[i];
                    ci = "C" + targetCounter[i];
                }
                case PUT, NIC_REDUCE, TRIGGERED_BCAST -> {
                    v = value[i] == 0 ? "-" : "Cr " + value[i];
                    ci = value[i] == 0 ? "-" : "C" + targetCounter[i];
                    region = bufferName(buffer[i]) + "@" + offset[i] + "+" + length[i] + " -> "
                            + bufferName(remoteBuffer[i]) + "@" + remoteOffset[i];
                    if (op[i] != PUT) {
                        region += " (" + ReductionDescriptor.parts(length[i]) + " descr."
                                + (op[i] == NIC_REDUCE ? ", Branch " + branch[i] : "") + ")";
                    }
                    if (op[i] == NIC_REDUCE && peer[i] < 0) {
                        region = bufferName(buffer[i]) + "@" + offset[i] + "+" + length[i] + " into "
                                + bufferName(srcBuffer[i]) + "@" + srcOffset[i];
                    }
                }
                case COPY, REDUCE -> {
                    v = "-";
                    region = bufferName(srcBuffer[i]) + "@" + srcOffset[i] + " -> " + bufferName(buffer[i]) + "@"
                            + offset[i] + "+" + length[i];
                }
                default -> v = "-";
            }
            sb.append(String.format("%4d %3s %20d  %-16s %10s %5s %4s  %-6s %s", i, "C" + counter[i], threshold[i],
                    opName(op[i]), v, pq, ci, ROLES[role[i]], region).stripTrailing()).append(System.lineSeparator());
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return dump();
    }

    /**
     * Collects entries in posting order, then sorts them stably by (counter, threshold): equal
     * thresholds keep posting order, which is the firing order the engine guarantees.
     */
    public static final class Builder {
        private static final class E {
            byte op;
            int counter;
            long threshold;
            int peer = -1;
            long value;
            int targetCounter;
            byte buffer;
            long offset;
            long length;
            byte srcBuffer;
            long srcOffset;
            byte remoteBuffer;
            long remoteOffset;
            int branch;
            int arrival = -1;
            int need;
            byte role;
        }

        private final String name;
        private final String scheme;
        private final int rank;
        private final int size;
        private final List<E> es = new ArrayList<>();
        private final long[] bufferBytes = new long[BUFFERS];
        private int counters = 1;
        private int[] arrivals = {0};
        private int[] arrivalPeers;
        private int rounds;
        private OffloadAlu.Op aluOp;
        private OffloadAlu.Type aluType;

        public Builder(String name, String scheme, int rank, int size) {
            this.name = name;
            this.scheme = scheme;
            this.rank = rank;
            this.size = size;
        }

        public Builder counters(int n) {
            counters = n;
            return this;
        }

        /** Arrivals per run, all on counter 0. */
        public Builder arrivals(int n) {
            arrivals = new int[] {n};
            return this;
        }

        /** Per arrival (numbered as in the program), the rank it comes from. */
        public Builder arrivalPeers(int[] peers) {
            arrivalPeers = peers.clone();
            return this;
        }

        /** Arrivals per run on each counter. */
        public Builder arrivals(int[] perCounter) {
            arrivals = perCounter.clone();
            return this;
        }

        public Builder rounds(int n) {
            rounds = n;
            return this;
        }

        public Builder alu(OffloadAlu.Op op, OffloadAlu.Type type) {
            aluOp = op;
            aluType = type;
            return this;
        }

        /** Makes buffer {@code id} at least {@code bytes} long. */
        public Builder buffer(int id, long bytes) {
            bufferBytes[id] = Math.max(bufferBytes[id], bytes);
            return this;
        }

        private E add(byte op, long threshold, int need) {
            if (threshold < 0) {
                throw new IllegalArgumentException("negative threshold " + threshold);
            }
            E e = new E();
            e.op = op;
            e.threshold = threshold;
            e.need = need;
            es.add(e);
            return e;
        }

        public Builder put(long th, int need, int peer, byte buf, long off, long len, byte rbuf, long roff, long add,
                           int arrival) {
            E e = add(PUT, th, need);
            e.peer = peer;
            e.buffer = buf;
            e.offset = off;
            e.length = len;
            e.remoteBuffer = rbuf;
            e.remoteOffset = roff;
            e.value = add;
            e.arrival = arrival;
            buffer(buf, off + len);
            return this;
        }

        /** Adds {@code value} to the triggering counter (or to another one, see {@link #target}). */
        public Builder counterAdd(long th, int need, long value) {
            E e = add(CNTR_ADD, th, need);
            e.value = value;
            e.targetCounter = -1;
            return this;
        }

        public Builder remoteAdd(long th, int need, int peer, long value, int arrival) {
            E e = add(REMOTE_CNTR_ADD, th, need);
            e.peer = peer;
            e.value = value;
            e.arrival = arrival;
            return this;
        }

        /** Combine {@code own} region into the accumulator region, then send it to {@code peer} (or not, if -1). */
        public Builder nicReduce(long th, int need, int peer, byte buf, long off, long len, long accOff, long raccOff,
                                 int branch, int arrival) {
            E e = add(NIC_REDUCE, th, need);
            e.peer = peer;
            e.buffer = buf;
            e.offset = off;
            e.length = len;
            e.srcBuffer = ACC_BUFFER;
            e.srcOffset = accOff;
            e.remoteBuffer = ACC_BUFFER;
            e.remoteOffset = raccOff;
            e.value = peer >= 0 ? 1 : 0;
            e.branch = branch;
            e.arrival = arrival;
            buffer(buf, off + len);
            buffer(ACC_BUFFER, accOff + len);
            return this;
        }

        public Builder bcast(long th, int need, int peer, byte buf, long off, long len, byte rbuf, long roff,
                             int arrival) {
            E e = add(TRIGGERED_BCAST, th, need);
            e.peer = peer;
            e.buffer = buf;
            e.offset = off;
            e.length = len;
            e.remoteBuffer = rbuf;
            e.remoteOffset = roff;
            e.value = 1;
            e.arrival = arrival;
            buffer(buf, off + len);
            return this;
        }

        public Builder copy(long th, int need, byte dst, long dstOff, byte src, long srcOff, long len) {
            return local(COPY, th, need, dst, dstOff, src, srcOff, len);
        }

        public Builder reduce(long th, int need, byte dst, long dstOff, byte src, long srcOff, long len) {
            return local(REDUCE, th, need, dst, dstOff, src, srcOff, len);
        }

        /** A COPY or REDUCE: from one of the rank's buffers into another, no packet. */
        private Builder local(byte op, long th, int need, byte dst, long dstOff, byte src, long srcOff, long len) {
            E e = add(op, th, need);
            e.buffer = dst;
            e.offset = dstOff;
            e.length = len;
            e.srcBuffer = src;
            e.srcOffset = srcOff;
            buffer(dst, dstOff + len);
            buffer(src, srcOff + len);
            return this;
        }

        public Builder complete(long th, int need) {
            add(COMPLETE, th, need);
            return this;
        }

        /** Sets the triggering counter of the entry added last. */
        public Builder on(int counter) {
            es.getLast().counter = counter;
            return this;
        }

        /** Names what the entry added last is for ({@link #ROLE_RTR} ...). */
        public Builder role(byte r) {
            es.getLast().role = r;
            return this;
        }

        /** Sets the counter the entry added last adds to (the peer's for PUT and remote adds). */
        public Builder target(int counter) {
            es.getLast().targetCounter = counter;
            return this;
        }

        public OffloadProgram build() {
            List<E> sorted = new ArrayList<>(es);
            sorted.sort(Comparator.<E>comparingInt(e -> e.counter).thenComparingLong(e -> e.threshold));
            for (E e : sorted) {
                if (e.op == CNTR_ADD && e.targetCounter < 0) {
                    e.targetCounter = e.counter;
                }
                if (e.counter < 0 || e.counter >= counters || e.targetCounter < 0) {
                    throw new IllegalStateException("counter out of range in " + name);
                }
            }
            return new OffloadProgram(this, sorted);
        }

        @Override
        public String toString() {
            return name + " " + Arrays.toString(bufferBytes);
        }
    }
}

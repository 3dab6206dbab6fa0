package io.tutti.sim;

import io.tutti.rma.RmaConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * One-sided operations between two hosts as Tutti's windows carry them over the network
 * (docs/guide/rma.md, "Across hosts"): rank 0 the origin, rank 1 the target, rounds of a window of
 * operations closed by a flush, as {@code tutti bench put|putbw|get} time them. The model, exactly:
 *
 * <ol>
 *   <li>Records are sent and taken in by {@link HostModel}'s SEND and arrival rules (o_s, o_r, g, G,
 *       O), the target's side on the CPU that runs its progress, not its application.</li>
 *   <li>A put or accumulate of s bytes with {@code 16 + s} ≤ min(batch limit, frame) is packed into the
 *       target's batch (an entry: 16 bytes of word and offset, then the data): the origin's CPU is busy
 *       (s−1)·O for the copy. A full batch goes out as one record before the entry that does not fit.</li>
 *   <li>A larger put or accumulate is a record of its own, after the pending batch.</li>
 *   <li>The target applies a record when it has taken it in (the arrival rule's O covers the copy into
 *       the window; an accumulate adds s·reduce_per_byte), then answers with one cumulative
 *       acknowledgement of 0 bytes, unless it is still busy with a later record: one answer per pass.</li>
 *   <li>A get of s ≤ min(batch limit, frame) bytes is an entry of 16 bytes in the batch, which goes out
 *       first when the entry or the batch's replies (their s together) would not fit. The target answers
 *       a batch's gets with one record of their bytes once it has taken the batch in; a batch of gets
 *       only is not acknowledged (rule 4). A larger get sends the pending batch, then a request of 0
 *       bytes; the target answers with s bytes.</li>
 *   <li>A flush sends the pending batch and completes when every record is acknowledged and every
 *       get answered; the next round starts then.</li>
 * </ol>
 *
 * Not modelled: the rails' retransmissions and windows, the per-entry bookkeeping (taken as 0), and
 * shared memory, where puts are loads and stores without a message.
 */
public final class OneSided {
    /** Bytes of a batch entry's word and target offset ({@code RmaBatch.ENTRY_HEADER}). */
    static final int ENTRY_BYTES = 16;

    /** What a round's operations do. */
    public enum Kind {
        PUT, ACCUMULATE, GET
    }

    /**
     * A window of {@code window} operations of {@code bytes} bytes each, then a flush.
     *
     * @param batch the batch limit ({@code tutti.rma.batch}; 0: no packing)
     * @param frame the largest record the network carries whole
     */
    public record Pattern(Kind kind, long bytes, int window, int batch, int frame) {
        public Pattern {
            if (bytes < 0 || window < 1 || batch < 0 || frame < ENTRY_BYTES) {
                throw new IllegalArgumentException("a pattern has a window of at least one operation, no negative"
                        + " size or batch, and a frame of at least " + ENTRY_BYTES + " bytes");
            }
        }

        /** A window of {@code window} operations with Tutti's default batch limit and a 64 KiB frame. */
        public static Pattern of(Kind kind, long bytes, int window) {
            return new Pattern(kind, bytes, window, RmaConfig.BATCH_DEFAULT, 64 * 1024);
        }
    }

    private static final int DATA = 0;
    private static final int ACK = 1;
    private static final int REQUEST = 2;
    private static final int REPLY = 3;
    /** A batch of gets only: answered by its reply, not acknowledged (rule 5). */
    private static final int GETS = 4;

    private OneSided() {
    }

    /** Mean time (ns) of one round (the window and its flush) over {@code rounds} rounds from t0. */
    public static double nanosPerRound(Network net, SimParams p, Pattern pat, int rounds) {
        return new Run(net, p, pat).rounds(rounds) / (double) rounds;
    }

    /** Bandwidth in MB/s (10^6 bytes per second) of rounds of {@code pat}. */
    public static double mbPerSecond(Network net, SimParams p, Pattern pat, int rounds) {
        return pat.window() * pat.bytes() * 1e3 / nanosPerRound(net, p, pat, rounds);
    }

    /** One simulation: the two ranks' CPUs and NICs, the records in flight. */
    private static final class Run {
        private final Network net;
        private final SimParams p;
        private final Pattern pat;
        private final EventLoop loop = new EventLoop(1 << 10);
        private final long[] cpu = new long[2];
        private final long[] nicSend = new long[2];
        private final long[] nicRecv = new long[2];
        /**
         * Per record sent: its kind, bytes, destination, what it covers (an acknowledgement: the data
         * records; a reply: the gets), and for a batch the gets in it and their bytes.
         */
        private final List<long[]> records = new ArrayList<>();
        private final boolean charges;
        private final int issue;
        private final int arrive;
        private final int answer;
        private int rounds;
        private int round;
        private int op;
        private long batchFill;
        private int batchGets;
        private long batchGetBytes;
        private long dataSent;
        private long dataApplied;
        private long dataAcked;
        private long acknowledged;
        private int getsOut;
        private boolean flushing;
        private long end = -1;

        Run(Network net, SimParams p, Pattern pat) {
            this.net = net;
            this.p = p;
            this.pat = pat;
            this.charges = net.hostChargesBandwidth();
            net.attach(loop);
            issue = loop.register((now, payload) -> issue(now));
            arrive = loop.register((now, payload) -> arrive(now, (int) payload));
            answer = loop.register((now, payload) -> answerIfIdle(now));
        }

        long rounds(int n) {
            rounds = n;
            loop.schedule(issue, 0, 0);
            loop.run(null);
            if (end < 0) {
                throw new SimulationException("the one-sided run stopped after " + round + " of " + n + " rounds");
            }
            return end;
        }

        private static long times(long bytes, double perByte) {
            return bytes <= 1 ? 0 : Math.round((bytes - 1) * perByte);
        }

        /** The origin's next operation, or the flush that ends the round (rules 2, 3, 5, 6). */
        private void issue(long now) {
            cpu[0] = Math.max(now, cpu[0]);
            long s = pat.bytes();
            if (op == pat.window()) {
                sendBatch();
                flushing = true;
                flushDone();
                return;
            }
            op++;
            long limit = Math.min(pat.batch(), pat.frame());
            if (pat.kind() == Kind.GET && pat.batch() > 0 && ENTRY_BYTES <= limit && s <= limit) {
                if (batchFill + ENTRY_BYTES > limit || batchGetBytes + s > limit) {
                    sendBatch();
                }
                batchFill += ENTRY_BYTES;
                batchGets++;
                batchGetBytes += s;
            } else if (pat.kind() == Kind.GET) {
                sendBatch();
                getsOut++;
                send(0, 1, REQUEST, 0, 0, 0, 0);
            } else if (pat.batch() > 0 && ENTRY_BYTES + s <= Math.min(pat.batch(), pat.frame())) {
                if (batchFill + ENTRY_BYTES + s > Math.min(pat.batch(), pat.frame())) {
                    sendBatch();
                }
                cpu[0] += times(s, p.O());
                batchFill += ENTRY_BYTES + s;
            } else {
                sendBatch();
                send(0, 1, DATA, s, 0, 0, 0);
            }
            loop.schedule(issue, cpu[0], 0);
        }

        private void sendBatch() {
            if (batchFill > 0) {
                boolean onlyGets = batchFill == (long) batchGets * ENTRY_BYTES;
                getsOut += batchGets;
                send(0, 1, onlyGets ? GETS : DATA, batchFill, 0, batchGets, batchGetBytes);
                batchFill = 0;
                batchGets = 0;
                batchGetBytes = 0;
            }
        }

        /**
         * HostModel's SEND rule from rank {@code from}; the record's arrival is an event. {@code covers}:
         * for an acknowledgement the data records it answers, for a reply its gets; {@code gets} and
         * {@code getBytes}: a batch's gets and the bytes they read.
         */
        private void send(int from, int to, int kind, long bytes, long covers, int gets, long getBytes) {
            long ts = Math.max(cpu[from], nicSend[from]);
            cpu[from] = ts + p.os() + times(bytes, p.O());
            nicSend[from] = ts + p.g() + (charges ? times(bytes, p.G()) : 0);
            if (kind == DATA) {
                dataSent++;
            }
            records.add(new long[] {kind, bytes, to, covers, gets, getBytes});
            net.carry(ts + p.os(), from, to, bytes, arrive, records.size() - 1);
        }

        /** HostModel's arrival rule, then what the record asks for (rules 4 to 6). */
        private void arrive(long now, int id) {
            long[] r = records.get(id);
            int kind = (int) r[0];
            long bytes = r[1];
            int at = (int) r[2];
            long tr = Math.max(now, Math.max(cpu[at], nicRecv[at]));
            cpu[at] = tr + p.or() + Math.max(times(bytes, p.O()), charges ? times(bytes, p.G()) : 0);
            nicRecv[at] = tr + p.g() + (charges ? times(bytes, p.G()) : 0);
            switch (kind) {
                case DATA -> {
                    if (pat.kind() == Kind.ACCUMULATE) {
                        cpu[at] += Math.round(bytes * p.reducePerByte());
                    }
                    dataApplied++;
                    reply(r);
                    loop.schedule(answer, cpu[at], 0);
                }
                case GETS -> reply(r);
                case REQUEST -> send(1, 0, REPLY, pat.bytes(), 1, 0, 0);
                case ACK -> {
                    acknowledged = Math.max(acknowledged, r[3]);
                    flushDone();
                }
                case REPLY -> {
                    getsOut -= (int) r[3];
                    flushDone();
                }
                default -> throw new SimulationException("unknown record kind " + kind);
            }
        }

        /** The target's one record of a batch's get data, if it had gets (rule 5). */
        private void reply(long[] batch) {
            if (batch[4] > 0) {
                send(1, 0, REPLY, batch[5], batch[4], 0, 0);
            }
        }

        /** The target's cumulative answer, when no later record keeps its CPU busy past {@code now}. */
        private void answerIfIdle(long now) {
            if (cpu[1] > now || dataApplied == dataAcked) {
                return;
            }
            dataAcked = dataApplied;
            send(1, 0, ACK, 0, dataAcked, 0, 0);
        }

        private void flushDone() {
            if (!flushing || acknowledged < dataSent || getsOut > 0) {
                return;
            }
            flushing = false;
            round++;
            op = 0;
            if (round == rounds) {
                end = cpu[0];
            } else {
                loop.schedule(issue, cpu[0], 0);
            }
        }
    }
}

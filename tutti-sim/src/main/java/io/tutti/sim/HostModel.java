package io.tutti.sim;

import io.tutti.coll.schedule.Schedule;
import java.util.Arrays;

/**
 * Host mode: each rank's CPU executes its {@link Schedule} steps (from {@link CompiledSchedules})
 * as the real host executor does, with LogGOPSim's eager-message costs. The model, exactly:
 *
 * <ul>
 *   <li>Every rank starts at t0; a step starts when its last dependency completes.</li>
 *   <li><b>SEND</b> of s bytes, ready at t, starts at {@code ts = max(t, cpu, nicSend)}. The CPU
 *       is busy until {@code ts + o_s + (s−1)·O}, when the step completes; the sending NIC is
 *       busy until {@code ts + g + (s−1)·G}. The message enters the network at {@code ts + o_s};
 *       under {@link LogGPNetwork} its first byte arrives at {@code ts + o_s + L}.</li>
 *   <li><b>Arrival</b> at t: the receive starts at {@code tr = max(t, cpu, nicRecv)}; the CPU is
 *       busy until {@code tr + o_r + max((s−1)·O, (s−1)·G)}, and the message is received at the
 *       end of that; the receiving NIC is busy until {@code tr + g + (s−1)·G}.</li>
 *   <li>A received message is matched to the first posted RECV of that rank with the same
 *       source and tag (posting order), which completes at that moment; with none, it waits in
 *       the unexpected queue. A RECV step that starts takes the first unexpected message with
 *       its source and tag (arrival order) and completes at once, or is posted. Posting a
 *       receive costs nothing: the receive overhead is paid at arrival (the rule above),
 *       whether a receive is posted yet or not.</li>
 *   <li><b>REDUCE</b> and <b>COPY</b> of s bytes occupy the CPU for s·reduce_per_byte or
 *       s·copy_per_byte from {@code max(t, cpu)}; an empty one (a join) completes at once.</li>
 *   <li><b>Host noise</b>: with {@code host_noise} = c above 0, each of these CPU times x (o_s, o_r,
 *       shm_o_s, shm_o_r, a REDUCE's or COPY's) is paid as (1 − c)·x plus an exponential draw of mean
 *       c·x, seeded per operation ({@link SimParams#noisy}): the mean stays x, but a parent that waits
 *       for several children waits for the slowest, which grows with the tree ([NIC-reduce] §3.2
 *       advantage 3: the host path meets system noise that the NIC path avoids).</li>
 *   <li><b>Scale</b>: with {@code o_per_rank} = d above 0, o_s and o_r of a message between nodes
 *       are each d·(P − 1) larger, P the communicator's size: the per-message start-up and receive
 *       delays that [NIC-reduce] §1 says grow with the system's scale (a progress engine that looks
 *       at every peer's channel for each message; docs/sim/README.md, host mode rule 8).</li>
 *   <li><b>Rendezvous</b>: with {@code rendezvous_bytes} = R above 0, a SEND of s ≥ R bytes first
 *       sends a request of {@code rendezvous_control} bytes (as a SEND, the step not yet complete);
 *       the receiver takes it in (as an arrival) and matches it as a message, and once it is
 *       matched to a posted RECV answers with a message of the same size; when the sender has
 *       taken the answer in, the data goes as an eager SEND, which completes the step, and its
 *       arrival completes that RECV ([BCL-3] §5.2.2: MPI above 1 KiB; host mode rule 9). The data
 *       leaves from the sender's own buffer (no copy), so a step that sends it through the NIC
 *       completes no earlier than {@code (s−1)·G} after it entered the network, when the NIC has
 *       taken its last byte (a blocking send returns then).</li>
 *   <li>CPU and NICs are granted first come, first served in request-time order (ties in event
 *       order), so a run is deterministic (for a given {@code noise_seed}). {@code (s−1)} is taken
 *       as 0 for empty messages; each product is rounded to whole nanoseconds.</li>
 * </ul>
 *
 * With a packet network ({@link Network#hostChargesBandwidth()} false) the per-byte gap is the
 * links' business: the NICs are busy g per message and the receive CPU o_r + (s−1)·O. A message
 * between ranks of one node (same {@link Network#nicOf}) does not touch the node's NIC: only the
 * CPUs' {@code shm_o_s} and {@code shm_o_r} + (s−1)·O are charged (o_s and o_r unless set: [BCL-3]
 * table 5.3 measures them apart), and the network's shared-memory costs (with {@code shm_cross}
 * between two CPUs of the node).
 */
public final class HostModel implements RankModel {
    /** Observes every step, for tests; null in normal runs. */
    public interface Trace {
        void started(int rank, int step, long t);

        void completed(int rank, int step, long t);

        /** Rank {@code src}'s SEND step {@code sendStep} was matched by rank {@code dst}'s RECV {@code recvStep}. */
        void matched(int src, int sendStep, int dst, int recvStep, long t);
    }

    private static final long DONE = 0;
    private static final long ARRIVE = 1;
    private static final long RECEIVED = 2;
    // the events of a rendezvous handshake (cost item Rendezvous), to their own handler (the payload
    // has room for four types): its request and its answer, each arriving and then taken in
    private static final long REQUEST_ARRIVE = 0;
    private static final long REQUEST_RECEIVED = 1;
    private static final long ANSWER_ARRIVE = 2;
    private static final long ANSWER_RECEIVED = 3;
    private static final int TYPE_SHIFT = 58;
    private static final int RANK_SHIFT = 32;
    private static final long RANK_MASK = (1L << 26) - 1;

    private final CompiledSchedules s;
    private final SimParams p;
    private final Trace trace;
    private EventLoop engine;
    private Network network;
    private int handler;
    private int handshakes;
    private boolean chargeG;
    /** When the message of the last {@link #send} entered the network. */
    private long entered;
    /** o_s and o_r of a message between nodes: LogGP's plus {@code o_per_rank} per other rank (cost item 8). */
    private long osNic;
    private long orNic;
    /** Messages of at least this many bytes wait for a handshake; {@link Long#MAX_VALUE}: none. */
    private long rendezvous;
    /**
     * Index in {@link #st} of rank 0's list of answered requests (rank r's at {@code answered + r}):
     * nodes of (sender, its SEND step, the RECV step the data completes), so that the data's arrival
     * completes the receive its request was matched to.
     */
    private int answered;
    /** The bytes of a handshake's request and answer. */
    private long control;

    // Per-rank state: one record of 8 longs (64 bytes, a cache line) per rank at st[rec(r)], so that
    // touching a rank costs one cache miss: the CPU, NIC_SEND, NIC_RECV and FINISH clocks (the NIC
    // slots indexed by NIC id); FIRST_POSTED, its oldest posted receive's step when held here (−1:
    // none; a posted receive's source and tag are its step's, so a rank with one receive posted at a
    // time never touches a list node); COUNTERS, its join counter itself when its shape has one, else
    // its first counter in `remaining`; and the heads (low 32 bits) and tails (high 32 bits) of its
    // POSTED (after FIRST_POSTED) and UNEXPECTED lists (−1: empty). A rank's shape is read from the
    // schedules' shapeOf (4 bytes a rank: 16 ranks a cache line, where a sender's is read again).
    // Records start at index RECORD_0, 48 bytes past the array's 16-byte header: G1 puts a large array
    // at a region boundary, so the records line up with cache lines (only speed depends on that).
    private static final int CPU = 0;
    private static final int NIC_SEND = 1;
    private static final int NIC_RECV = 2;
    private static final int FINISH = 3;
    private static final int FIRST_POSTED = 4;
    private static final int COUNTERS = 5;
    private static final int POSTED = 6;
    private static final int UNEXPECTED = 7;
    private static final int RECORD = 8;
    private static final int RECORD_0 = 6;
    private static final long EMPTY = -1L;
    private long[] st;
    /** Dependency counters of the joins (steps with two or more) of ranks with several joins. */
    private int[] remaining;
    // list nodes, interleaved (one cache line holds four): src, tag, step, next at NODE * n + ...
    private static final int NODE = 4;
    private static final int N_SRC = 0;
    private static final int N_TAG = 1;
    private static final int N_STEP = 2;
    private static final int N_NEXT = 3;
    private int[] node = new int[NODE * 1024];
    private int nodesUsed;
    private int freeNode = -1;

    private int[] stackRank = new int[256];
    private int[] stackStep = new int[256];
    private int top;

    /** The sum of what {@link #prefetch} read, kept so that its reads are not dropped as unused. */
    private long touched;

    private long doneSteps;
    private long messages;
    private long bytes;
    private long matched;

    /** Host mode over {@code schedules} with parameters {@code params}; {@code trace} may be null. */
    public HostModel(CompiledSchedules schedules, SimParams params, Trace trace) {
        if (schedules.size() - 1 > RANK_MASK) {
            throw new IllegalArgumentException("at most 2^26 ranks, got " + schedules.size());
        }
        this.s = schedules;
        this.p = params;
        this.trace = trace;
    }

    @Override
    public String mode() {
        return "host";
    }

    @Override
    public void attach(EventLoop e, Network n) {
        this.engine = e;
        this.network = n;
        this.handler = e.register(new EventLoop.Handler() {
            @Override
            public void handle(long now, long payload) {
                HostModel.this.handle(now, payload);
            }

            @Override
            public void prefetch(long payload) {
                HostModel.this.prefetch(payload);
            }
        });
        this.handshakes = e.register(this::handshake);
        this.chargeG = n.hostChargesBandwidth();
        int size = s.size;
        long scale = Math.round(p.oPerRank() * (size - 1));
        this.osNic = p.os() + scale;
        this.orNic = p.or() + scale;
        if (n.nics(size) > size) {
            throw new IllegalArgumentException("more NICs than ranks");
        }
        rendezvous = p.rendezvousBytes() > 0 ? p.rendezvousBytes() : Long.MAX_VALUE;
        control = p.rendezvousControl();
        answered = RECORD_0 + RECORD * size;
        st = new long[answered + (rendezvous < Long.MAX_VALUE ? size : 0)];
        Arrays.fill(st, answered, st.length, EMPTY);
        long counters = 0;
        for (int r = 0; r < size; r++) {
            int k = s.counters[s.shapeOf[r]];
            counters += k > 1 ? k : 0;
        }
        remaining = new int[Math.toIntExact(counters)];
        int c = 0;
        for (int r = 0; r < size; r++) {
            int sh = s.shapeOf[r];
            int at = rec(r);
            st[at + FIRST_POSTED] = -1;
            st[at + POSTED] = EMPTY;
            st[at + UNEXPECTED] = EMPTY;
            if (s.counters[sh] == 1) {
                st[at + COUNTERS] = s.depCount[s.joinOf[sh]];
            } else {
                st[at + COUNTERS] = c;
                for (int j = s.shapeStart[sh]; j < s.shapeStart[sh + 1]; j++) {
                    if (s.counterOf[j] >= 0) {
                        remaining[c + s.counterOf[j]] = s.depCount[j];
                    }
                }
                c += s.counters[sh];
            }
        }
    }

    /** Index of rank (or NIC) r's record in {@link #st}. */
    private static int rec(int r) {
        return RECORD_0 + RECORD * r;
    }

    @Override
    public void start(long t0) {
        for (int r = 0; r < s.size; r++) {
            int at = rec(r);
            st[at + CPU] = t0;
            st[at + NIC_SEND] = t0;
            st[at + NIC_RECV] = t0;
            st[at + FINISH] = t0;
        }
        for (int r = 0; r < s.size; r++) {
            int base = s.shapeStart[s.shapeOf[r]];
            int steps = s.steps(r);
            for (int i = 0; i < steps; i++) {
                if (s.depCount[base + i] == 0) {
                    begin(r, i, t0);
                }
            }
            drain(t0);
        }
    }

    @Override
    public double progress() {
        return s.totalSteps == 0 ? 1 : (double) doneSteps / s.totalSteps;
    }

    private static long payload(long type, int rank, int step) {
        return (type << TYPE_SHIFT) | ((long) rank << RANK_SHIFT) | (step & 0xffffffffL);
    }

    /**
     * Reads the record an event of {@link #handle} works on: its rank's for a DONE, else the
     * destination's (found through the sender's shape), so that the misses of the next events overlap.
     */
    private void prefetch(long d) {
        int rank = (int) ((d >>> RANK_SHIFT) & RANK_MASK);
        int j = s.shapeStart[s.shapeOf[rank]] + (int) d;
        if (d >>> TYPE_SHIFT == DONE) {
            touched += st[rec(rank)] + s.succStart[j];
        } else {
            int dst = s.peerAt(rank, j);
            touched += st[rec(dst)] + s.shapeStart[s.shapeOf[dst]];
        }
    }

    private void handle(long now, long d) {
        int type = (int) (d >>> TYPE_SHIFT);
        int rank = (int) ((d >>> RANK_SHIFT) & RANK_MASK);
        int step = (int) d;
        if (type == DONE) {
            complete(rank, step, now);
        } else if (type == ARRIVE) {
            arrive(rank, step, now);
        } else {
            received(rank, step, now);
        }
        drain(now);
    }

    /** Starts rank r's step i at t (its dependencies are complete). */
    private void begin(int r, int i, long t) {
        if (trace != null) {
            trace.started(r, i, t);
        }
        int at = rec(r);
        int j = s.shapeStart[s.shapeOf[r]] + i;
        byte k = s.kind[j];
        long len = s.length[j];
        long[] c = st;
        if (k == Schedule.SEND) {
            if (len >= rendezvous) {
                // the data waits for the receiver's answer (cost item Rendezvous)
                send(r, s.peerAt(r, j), control, t, r, i, SimParams.NOISE_REQUEST, handshakes,
                        payload(REQUEST_ARRIVE, r, i));
                return;
            }
            sendData(r, i, t);
        } else if (k == Schedule.RECV) {
            int src = s.peerAt(r, j);
            int tg = s.tag[j];
            int sendStep = take(at + UNEXPECTED, src, tg);
            if (sendStep >= 0) {
                if (s.length(src, sendStep) >= rendezvous) {
                    answer(src, sendStep, r, i, t);
                } else {
                    match(src, sendStep, r, i, t);
                }
                return;
            }
            post(r, i, src, tg);
        } else if (len == 0) {
            push(r, i);
        } else {
            long start = Math.max(t, c[at + CPU]);
            long end = start + p.noisy(SimParams.perByte(k == Schedule.REDUCE ? p.reducePerByte() : p.copyPerByte(),
                    len), r, i, SimParams.NOISE_COMPUTE);
            c[at + CPU] = end;
            engine.schedule(handler, end, payload(DONE, r, i));
        }
    }

    /** Rank r's SEND step i hands its data to the network at t or when its CPU and NIC are free. */
    private void sendData(int r, int i, long t) {
        int j = s.shapeStart[s.shapeOf[r]] + i;
        long len = s.length[j];
        int to = s.peerAt(r, j);
        long cpuEnd = send(r, to, len, t, r, i, SimParams.NOISE_SEND, handler, payload(ARRIVE, r, i));
        if (len >= rendezvous && network.nicOf(r) != network.nicOf(to)) {
            // rule 9: sent from the caller's buffer, done when the NIC has taken the last byte
            cpuEnd = Math.max(cpuEnd, entered + SimParams.perByte(p.G(), len - 1));
        }
        messages++;
        bytes += len;
        if (s.succStart[j] == s.succStart[j + 1]) {
            // nothing waits for this send: record its completion now instead of an event (a
            // third of a dissemination barrier's events)
            finishAt(r, i, cpuEnd);
        } else {
            engine.schedule(handler, cpuEnd, payload(DONE, r, i));
        }
    }

    /**
     * Sends {@code len} bytes from rank {@code from} to {@code to}, ready at t (cost item SEND; the
     * noise keyed by {@code key, keyStep, side}); the arrival is the event {@code (sink, arrival)}.
     * Returns when the sending CPU is done.
     */
    private long send(int from, int to, long len, long t, int key, int keyStep, long side, int sink, long arrival) {
        long[] c = st;
        int at = rec(from);
        // a message to a rank of the same node goes through shared memory, not the node's NIC
        int nicId = network.nicOf(from);
        boolean viaNic = nicId != network.nicOf(to);
        int nic = rec(nicId) + NIC_SEND;
        long ts = Math.max(t, viaNic ? Math.max(c[at + CPU], c[nic]) : c[at + CPU]);
        long os = p.noisy(viaNic ? osNic : p.shmSendOverhead(), key, keyStep, side);
        long cpuEnd = ts + os + SimParams.perByte(p.O(), len - 1);
        entered = ts + os;
        c[at + CPU] = cpuEnd;
        if (viaNic) {
            c[nic] = ts + p.g() + (chargeG ? SimParams.perByte(p.G(), len - 1) : 0);
        }
        network.carry(ts + os, from, to, len, sink, arrival);
        return cpuEnd;
    }

    /** Rank src's message (its SEND step sendStep) reaches the receiving NIC at t. */
    private void arrive(int src, int sendStep, long t) {
        int j = s.shapeStart[s.shapeOf[src]] + sendStep;
        takeIn(src, s.peerAt(src, j), s.length[j], t, src, sendStep, SimParams.NOISE_RECV, handler,
                payload(RECEIVED, src, sendStep));
    }

    /**
     * Rank {@code to}'s CPU takes in {@code len} bytes from rank {@code from} that reached it at t
     * (cost item Arrival; the noise keyed by {@code key, keyStep, side}), then the event {@code (sink,
     * received)}.
     */
    private void takeIn(int from, int to, long len, long t, int key, int keyStep, long side, int sink,
                        long received) {
        long[] c = st;
        int at = rec(to);
        int nicId = network.nicOf(to);
        int nic = rec(nicId) + NIC_RECV;
        long cpu = SimParams.perByte(p.O(), len - 1);
        long end;
        if (nicId == network.nicOf(from)) {
            // shared memory: the CPU takes it in, the NIC is not involved
            long tr = Math.max(t, c[at + CPU]);
            end = tr + p.noisy(p.shmRecvOverhead(), key, keyStep, side) + cpu;
            c[at + CPU] = end;
            engine.schedule(sink, end, received);
            return;
        }
        long tr = Math.max(t, Math.max(c[at + CPU], c[nic]));
        long or = p.noisy(orNic, key, keyStep, side);
        if (chargeG) {
            long wire = SimParams.perByte(p.G(), len - 1);
            end = tr + or + Math.max(cpu, wire);
            c[nic] = tr + p.g() + wire;
        } else {
            end = tr + or + cpu;
            c[nic] = tr + p.g();
        }
        c[at + CPU] = end;
        engine.schedule(sink, end, received);
    }

    /** A step, at t, of the handshake of a rank's SEND step (cost item Rendezvous). */
    private void handshake(long t, long d) {
        int type = (int) (d >>> TYPE_SHIFT);
        int src = (int) ((d >>> RANK_SHIFT) & RANK_MASK);
        int sendStep = (int) d;
        int j = s.shapeStart[s.shapeOf[src]] + sendStep;
        int dst = s.peerAt(src, j);
        if (type == REQUEST_ARRIVE) {
            takeIn(src, dst, control, t, src, sendStep, SimParams.NOISE_REQUEST ^ SimParams.NOISE_RECV, handshakes,
                    payload(REQUEST_RECEIVED, src, sendStep));
        } else if (type == REQUEST_RECEIVED) {
            int tg = s.tag[j];
            int recvStep = takePosted(dst, src, tg);
            if (recvStep >= 0) {
                answer(src, sendStep, dst, recvStep, t);
            } else {
                append(rec(dst) + UNEXPECTED, src, tg, sendStep);
            }
        } else if (type == ANSWER_ARRIVE) {
            takeIn(dst, src, control, t, src, sendStep, SimParams.NOISE_ANSWER ^ SimParams.NOISE_RECV, handshakes,
                    payload(ANSWER_RECEIVED, src, sendStep));
        } else {
            sendData(src, sendStep, t);
        }
        drain(t);
    }

    /** Rank dst's RECV step recvStep is matched at t to rank src's request: dst answers. */
    private void answer(int src, int sendStep, int dst, int recvStep, long t) {
        check(src, sendStep, dst, recvStep, t);
        append(answered + dst, src, sendStep, recvStep);
        send(dst, src, control, t, src, sendStep, SimParams.NOISE_ANSWER, handshakes,
                payload(ANSWER_ARRIVE, src, sendStep));
    }

    /** Rank src's message has been taken in by its destination's CPU at t: match it. */
    private void received(int src, int sendStep, long t) {
        int j = s.shapeStart[s.shapeOf[src]] + sendStep;
        int dst = s.peerAt(src, j);
        if (s.length[j] >= rendezvous) {
            // its receive was matched to the request: the data completes it
            int recvStep = take(answered + dst, src, sendStep);
            if (recvStep < 0) {
                throw new SimulationException("rank " + src + " step " + sendStep + " sent its data to rank " + dst
                        + " before an answer");
            }
            matched++;
            push(dst, recvStep);
            return;
        }
        int tg = s.tag[j];
        int at = rec(dst);
        int recvStep = takePosted(dst, src, tg);
        if (recvStep >= 0) {
            match(src, sendStep, dst, recvStep, t);
            return;
        }
        append(at + UNEXPECTED, src, tg, sendStep);
    }

    private void match(int src, int sendStep, int dst, int recvStep, long t) {
        check(src, sendStep, dst, recvStep, t);
        matched++;
        push(dst, recvStep);
    }

    /** Rank src's SEND step sendStep is paired with rank dst's RECV step recvStep at t: the lengths must agree. */
    private void check(int src, int sendStep, int dst, int recvStep, long t) {
        long sl = s.length(src, sendStep);
        long rl = s.length(dst, recvStep);
        if (sl != rl) {
            throw new SimulationException("rank " + src + " step " + sendStep + " sends " + sl + " B with tag "
                    + s.tag(src, sendStep) + " but rank " + dst + " step " + recvStep + " receives " + rl + " B");
        }
        if (trace != null) {
            trace.matched(src, sendStep, dst, recvStep, t);
        }
    }

    /** Step i of rank r completed at t: release its successors. */
    private void complete(int r, int i, long t) {
        finishAt(r, i, t);
        int at = rec(r);
        int sh = s.shapeOf[r];
        int base = s.shapeStart[sh];
        int[] succ = s.succ;
        for (int k = s.succStart[base + i], end = s.succStart[base + i + 1]; k < end; k++) {
            int n = succ[k];
            int counter = s.counterOf[base + n];
            // a step with one dependency starts now; a join when its counter reaches 0
            if (counter < 0 || (s.counters[sh] == 1 ? --st[at + COUNTERS] == 0
                    : --remaining[(int) st[at + COUNTERS] + counter] == 0)) {
                begin(r, n, t);
            }
        }
    }

    /** Counts rank r's step i as completed at t. */
    private void finishAt(int r, int i, long t) {
        doneSteps++;
        int f = rec(r) + FINISH;
        if (t > st[f]) {
            st[f] = t;
        }
        if (trace != null) {
            trace.completed(r, i, t);
        }
    }

    /** Completes, at t, the steps that finished without taking time, until none is left. */
    private void drain(long t) {
        while (top > 0) {
            top--;
            complete(stackRank[top], stackStep[top], t);
        }
    }

    private void push(int r, int i) {
        if (top == stackRank.length) {
            stackRank = Arrays.copyOf(stackRank, top * 2);
            stackStep = Arrays.copyOf(stackStep, top * 2);
        }
        stackRank[top] = r;
        stackStep[top++] = i;
    }

    /** Posts rank r's RECV step i (from src, tag tg): in its record when it has none posted, else listed. */
    private void post(int r, int i, int src, int tg) {
        int at = rec(r);
        if (st[at + FIRST_POSTED] < 0 && (int) st[at + POSTED] < 0) {
            st[at + FIRST_POSTED] = i;
        } else {
            append(at + POSTED, src, tg, i);
        }
    }

    /**
     * Removes rank r's first posted receive from {@code src} with tag {@code tg} and returns its
     * step, −1 when there is none. The one in the record is older than every listed one (it is
     * filled only when the list is empty), so it is looked at first.
     */
    private int takePosted(int r, int src, int tg) {
        int at = rec(r);
        int first = (int) st[at + FIRST_POSTED];
        if (first >= 0) {
            int j = s.shapeStart[s.shapeOf[r]] + first;
            if (s.peerAt(r, j) == src && s.tag[j] == tg) {
                st[at + FIRST_POSTED] = -1;
                return first;
            }
        }
        return take(at + POSTED, src, tg);
    }

    /**
     * Removes the first node of the list in slot {@code list} of {@link #st} with source {@code src}
     * and tag {@code tg} and returns its step; −1 when there is none.
     */
    private int take(int list, int src, int tg) {
        int[] nd = node;
        int prev = -1;
        for (int n = (int) st[list]; n >= 0; prev = n, n = nd[NODE * n + N_NEXT]) {
            if (nd[NODE * n + N_SRC] == src && nd[NODE * n + N_TAG] == tg) {
                int step = nd[NODE * n + N_STEP];
                unlink(list, prev, n);
                return step;
            }
        }
        return -1;
    }

    /** Appends to the list in slot {@code list} of {@link #st} (head in its low, tail in its high 32 bits). */
    private void append(int list, int src, int tg, int step) {
        int n = freeNode;
        if (n >= 0) {
            freeNode = node[NODE * n + N_NEXT];
        } else {
            if (NODE * (nodesUsed + 1) > node.length) {
                node = Arrays.copyOf(node, node.length * 2);
            }
            n = nodesUsed++;
        }
        int[] nd = node;
        nd[NODE * n + N_SRC] = src;
        nd[NODE * n + N_TAG] = tg;
        nd[NODE * n + N_STEP] = step;
        nd[NODE * n + N_NEXT] = -1;
        long l = st[list];
        int head = (int) l;
        if (head < 0) {
            head = n;
        } else {
            nd[NODE * (int) (l >>> 32) + N_NEXT] = n;
        }
        st[list] = list(head, n);
    }

    private static long list(int head, int tail) {
        return ((long) tail << 32) | (head & 0xffffffffL);
    }

    private void unlink(int list, int prev, int n) {
        int[] nd = node;
        int next = nd[NODE * n + N_NEXT];
        long l = st[list];
        int head = (int) l;
        int tail = (int) (l >>> 32);
        if (prev < 0) {
            head = next;
        } else {
            nd[NODE * prev + N_NEXT] = next;
        }
        if (tail == n) {
            tail = prev;
        }
        st[list] = list(head, tail);
        nd[NODE * n + N_NEXT] = freeNode;
        freeNode = n;
    }

    @Override
    public SimResult finish(long events) {
        if (doneSteps != s.totalSteps) {
            StringBuilder sb = new StringBuilder("deadlock: " + (s.totalSteps - doneSteps) + " of " + s.totalSteps
                    + " steps never completed");
            int shown = 0;
            for (int r = 0; r < s.size && shown < 5; r++) {
                int first = (int) st[rec(r) + FIRST_POSTED];
                if (first >= 0) {
                    sb.append("\n  rank ").append(r).append(" step ").append(first).append(" waits for rank ")
                            .append(s.peer(r, first)).append(" tag ").append(s.tag(r, first));
                    shown++;
                }
                for (int n = (int) st[rec(r) + POSTED]; n >= 0 && shown < 5; n = node[NODE * n + N_NEXT], shown++) {
                    sb.append("\n  rank ").append(r).append(" step ").append(node[NODE * n + N_STEP])
                            .append(" waits for rank ").append(node[NODE * n + N_SRC]).append(" tag ")
                            .append(node[NODE * n + N_TAG]);
                }
            }
            throw new SimulationException(sb.toString());
        }
        if (matched != messages) {
            for (int r = 0; r < s.size; r++) {
                int n = (int) st[rec(r) + UNEXPECTED];
                if (n >= 0) {
                    throw new SimulationException((messages - matched) + " message(s) never received, e.g. rank "
                            + node[NODE * n + N_SRC] + " step " + node[NODE * n + N_STEP] + " to rank " + r + " tag "
                            + node[NODE * n + N_TAG]);
                }
            }
            throw new SimulationException((messages - matched) + " message(s) never received");
        }
        long completion = 0;
        long[] finish = new long[s.size];
        for (int r = 0; r < s.size; r++) {
            finish[r] = st[rec(r) + FINISH];
            completion = Math.max(completion, finish[r]);
        }
        return new SimResult(completion, finish, events, messages, bytes, doneSteps);
    }
}

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
    private static final int TYPE_SHIFT = 58;
    private static final int RANK_SHIFT = 32;
    private static final long RANK_MASK = (1L << 26) - 1;

    private final CompiledSchedules s;
    private final SimParams p;
    private final Trace trace;
    private EventLoop engine;
    private Network network;
    private int handler;
    private boolean chargeG;
    /** o_s and o_r of a message between nodes: LogGP's plus {@code o_per_rank} per other rank (cost item 8). */
    private long osNic;
    private long orNic;

    // Per-rank state interleaved, so that touching a rank costs one or two cache misses rather than
    // one per array: clocks at r*4 + CPU/NIC_SEND/NIC_RECV/FINISH (NIC slots indexed by NIC id),
    // and ints at r*8 + SHAPE_BASE/STEP_BASE/POSTED/.../UNEXPECTED_TAIL.
    private static final int CPU = 0;
    private static final int NIC_SEND = 1;
    private static final int NIC_RECV = 2;
    private static final int FINISH = 3;
    private static final int SHAPE_BASE = 0;
    private static final int STEP_BASE = 1;
    private static final int POSTED = 2;
    private static final int UNEXPECTED = 4;
    private long[] clock;
    private int[] rs;
    private int[] remaining;
    private int[] nodeSrc = new int[1024];
    private int[] nodeTag = new int[1024];
    private int[] nodeStep = new int[1024];
    private int[] nodeNext = new int[1024];
    private int nodesUsed;
    private int freeNode = -1;

    private int[] stackRank = new int[256];
    private int[] stackStep = new int[256];
    private int top;

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
        this.handler = e.register(this::handle);
        this.chargeG = n.hostChargesBandwidth();
        int size = s.size;
        long scale = Math.round(p.oPerRank() * (size - 1));
        this.osNic = p.os() + scale;
        this.orNic = p.or() + scale;
        if (n.nics(size) > size) {
            throw new IllegalArgumentException("more NICs than ranks");
        }
        clock = new long[4 * size];
        rs = new int[8 * size];
        remaining = new int[Math.toIntExact(s.totalSteps)];
        for (int r = 0; r < size; r++) {
            int base = s.shapeStart[s.shapeOf[r]];
            int g = s.stepBase[r];
            int steps = s.stepBase[r + 1] - g;
            System.arraycopy(s.depCount, base, remaining, g, steps);
            rs[8 * r + SHAPE_BASE] = base;
            rs[8 * r + STEP_BASE] = g;
            rs[8 * r + POSTED] = -1;
            rs[8 * r + UNEXPECTED] = -1;
        }
    }

    @Override
    public void start(long t0) {
        Arrays.fill(clock, t0);
        for (int r = 0; r < s.size; r++) {
            int base = s.shapeStart[s.shapeOf[r]];
            int steps = s.stepBase[r + 1] - s.stepBase[r];
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
        int j = rs[8 * r + SHAPE_BASE] + i;
        byte k = s.kind[j];
        long len = s.length[j];
        long[] c = clock;
        if (k == Schedule.SEND) {
            int dst = s.peerAt(r, j);
            // a message to a rank of the same node goes through shared memory, not the node's NIC
            int nicId = network.nicOf(r);
            boolean viaNic = nicId != network.nicOf(dst);
            int nic = 4 * nicId + NIC_SEND;
            long ts = Math.max(t, viaNic ? Math.max(c[4 * r + CPU], c[nic]) : c[4 * r + CPU]);
            long os = p.noisy(viaNic ? osNic : p.shmSendOverhead(), r, i, SimParams.NOISE_SEND);
            long cpuEnd = ts + os + SimParams.perByte(p.O(), len - 1);
            c[4 * r + CPU] = cpuEnd;
            if (viaNic) {
                c[nic] = ts + p.g() + (chargeG ? SimParams.perByte(p.G(), len - 1) : 0);
            }
            messages++;
            bytes += len;
            network.carry(ts + os, r, dst, len, handler, payload(ARRIVE, r, i));
            if (s.succStart[j] == s.succStart[j + 1]) {
                // nothing waits for this send: record its completion now instead of an event (a
                // third of a dissemination barrier's events)
                finishAt(r, i, cpuEnd);
            } else {
                engine.schedule(handler, cpuEnd, payload(DONE, r, i));
            }
        } else if (k == Schedule.RECV) {
            int src = s.peerAt(r, j);
            int tg = s.tag[j];
            int prev = -1;
            for (int n = rs[8 * r + UNEXPECTED]; n >= 0; prev = n, n = nodeNext[n]) {
                if (nodeSrc[n] == src && nodeTag[n] == tg) {
                    int sendStep = nodeStep[n];
                    unlink(8 * r + UNEXPECTED, prev, n);
                    match(src, sendStep, r, i, t);
                    return;
                }
            }
            append(8 * r + POSTED, src, tg, i);
        } else if (len == 0) {
            push(r, i);
        } else {
            long start = Math.max(t, c[4 * r + CPU]);
            long end = start + p.noisy(SimParams.perByte(k == Schedule.REDUCE ? p.reducePerByte() : p.copyPerByte(),
                    len), r, i, SimParams.NOISE_COMPUTE);
            c[4 * r + CPU] = end;
            engine.schedule(handler, end, payload(DONE, r, i));
        }
    }

    /** Rank src's message (its SEND step sendStep) reaches the receiving NIC at t. */
    private void arrive(int src, int sendStep, long t) {
        int j = rs[8 * src + SHAPE_BASE] + sendStep;
        int dst = s.peerAt(src, j);
        long len = s.length[j];
        long[] c = clock;
        int nicId = network.nicOf(dst);
        int nic = 4 * nicId + NIC_RECV;
        long cpu = SimParams.perByte(p.O(), len - 1);
        long end;
        if (nicId == network.nicOf(src)) {
            // shared memory: the CPU takes it in, the NIC is not involved
            long tr = Math.max(t, c[4 * dst + CPU]);
            end = tr + p.noisy(p.shmRecvOverhead(), src, sendStep, SimParams.NOISE_RECV) + cpu;
            c[4 * dst + CPU] = end;
            engine.schedule(handler, end, payload(RECEIVED, src, sendStep));
            return;
        }
        long tr = Math.max(t, Math.max(c[4 * dst + CPU], c[nic]));
        long or = p.noisy(orNic, src, sendStep, SimParams.NOISE_RECV);
        if (chargeG) {
            long wire = SimParams.perByte(p.G(), len - 1);
            end = tr + or + Math.max(cpu, wire);
            c[nic] = tr + p.g() + wire;
        } else {
            end = tr + or + cpu;
            c[nic] = tr + p.g();
        }
        c[4 * dst + CPU] = end;
        engine.schedule(handler, end, payload(RECEIVED, src, sendStep));
    }

    /** Rank src's message has been taken in by its destination's CPU at t: match it. */
    private void received(int src, int sendStep, long t) {
        int j = rs[8 * src + SHAPE_BASE] + sendStep;
        int dst = s.peerAt(src, j);
        int tg = s.tag[j];
        int prev = -1;
        for (int n = rs[8 * dst + POSTED]; n >= 0; prev = n, n = nodeNext[n]) {
            if (nodeSrc[n] == src && nodeTag[n] == tg) {
                int recvStep = nodeStep[n];
                unlink(8 * dst + POSTED, prev, n);
                match(src, sendStep, dst, recvStep, t);
                return;
            }
        }
        append(8 * dst + UNEXPECTED, src, tg, sendStep);
    }

    private void match(int src, int sendStep, int dst, int recvStep, long t) {
        long sl = s.length(src, sendStep);
        long rl = s.length(dst, recvStep);
        if (sl != rl) {
            throw new SimulationException("rank " + src + " step " + sendStep + " sends " + sl + " B with tag "
                    + s.tag(src, sendStep) + " but rank " + dst + " step " + recvStep + " receives " + rl + " B");
        }
        matched++;
        if (trace != null) {
            trace.matched(src, sendStep, dst, recvStep, t);
        }
        push(dst, recvStep);
    }

    /** Step i of rank r completed at t: release its successors. */
    private void complete(int r, int i, long t) {
        finishAt(r, i, t);
        int base = rs[8 * r + SHAPE_BASE];
        int g = rs[8 * r + STEP_BASE];
        int[] succ = s.succ;
        for (int k = s.succStart[base + i], end = s.succStart[base + i + 1]; k < end; k++) {
            int n = succ[k];
            if (--remaining[g + n] == 0) {
                begin(r, n, t);
            }
        }
    }

    /** Counts rank r's step i as completed at t. */
    private void finishAt(int r, int i, long t) {
        doneSteps++;
        if (t > clock[4 * r + FINISH]) {
            clock[4 * r + FINISH] = t;
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

    /** Appends to the list whose head is rs[list] and tail rs[list + 1]. */
    private void append(int list, int src, int tg, int step) {
        int n = freeNode;
        if (n >= 0) {
            freeNode = nodeNext[n];
        } else {
            if (nodesUsed == nodeSrc.length) {
                int c = nodesUsed * 2;
                nodeSrc = Arrays.copyOf(nodeSrc, c);
                nodeTag = Arrays.copyOf(nodeTag, c);
                nodeStep = Arrays.copyOf(nodeStep, c);
                nodeNext = Arrays.copyOf(nodeNext, c);
            }
            n = nodesUsed++;
        }
        nodeSrc[n] = src;
        nodeTag[n] = tg;
        nodeStep[n] = step;
        nodeNext[n] = -1;
        if (rs[list] < 0) {
            rs[list] = n;
        } else {
            nodeNext[rs[list + 1]] = n;
        }
        rs[list + 1] = n;
    }

    private void unlink(int list, int prev, int n) {
        int next = nodeNext[n];
        if (prev < 0) {
            rs[list] = next;
        } else {
            nodeNext[prev] = next;
        }
        if (rs[list + 1] == n) {
            rs[list + 1] = prev;
        }
        nodeNext[n] = freeNode;
        freeNode = n;
    }

    @Override
    public SimResult finish(long events) {
        if (doneSteps != s.totalSteps) {
            StringBuilder sb = new StringBuilder("deadlock: " + (s.totalSteps - doneSteps) + " of " + s.totalSteps
                    + " steps never completed");
            int shown = 0;
            for (int r = 0; r < s.size && shown < 5; r++) {
                for (int n = rs[8 * r + POSTED]; n >= 0 && shown < 5; n = nodeNext[n], shown++) {
                    sb.append("\n  rank ").append(r).append(" step ").append(nodeStep[n]).append(" waits for rank ")
                            .append(nodeSrc[n]).append(" tag ").append(nodeTag[n]);
                }
            }
            throw new SimulationException(sb.toString());
        }
        if (matched != messages) {
            for (int r = 0; r < s.size; r++) {
                if (rs[8 * r + UNEXPECTED] >= 0) {
                    int n = rs[8 * r + UNEXPECTED];
                    throw new SimulationException((messages - matched) + " message(s) never received, e.g. rank "
                            + nodeSrc[n] + " step " + nodeStep[n] + " to rank " + r + " tag " + nodeTag[n]);
                }
            }
            throw new SimulationException((messages - matched) + " message(s) never received");
        }
        long completion = 0;
        long[] finish = new long[s.size];
        for (int r = 0; r < s.size; r++) {
            finish[r] = clock[4 * r + FINISH];
            completion = Math.max(completion, finish[r]);
        }
        return new SimResult(completion, finish, events, messages, bytes, doneSteps);
    }
}

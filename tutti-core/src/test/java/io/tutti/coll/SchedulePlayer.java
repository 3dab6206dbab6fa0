package io.tutti.coll;

import io.tutti.coll.schedule.Schedule;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs every rank's {@link Schedule} of one collective inside one thread, in a random legal order,
 * and fails on anything the real executors could trip over:
 *
 * <ul>
 *   <li>a deadlock (steps left but nothing can move), or a send never received;</li>
 *   <li>a send and the receive it pairs with (same source, destination and tag, in posting order,
 *       as MPI's non-overtaking rule pairs them) of different lengths;</li>
 *   <li>a region outside its buffer;</li>
 *   <li>a race: a step writing memory that an in-flight send reads or an in-flight receive writes,
 *       or reading memory an in-flight receive writes.</li>
 * </ul>
 *
 * Sends complete only when received (rendezvous semantics, the strictest), and a message's bytes
 * are read at that moment, so a schedule that overwrites a buffer too early is caught. Which ready
 * step is posted next, and which matched pair completes next, is drawn from the seed.
 */
public final class SchedulePlayer {
    /** {@code inout = in ∘ inout} over {@code bytes}, the kernel convention of {@link Reduction}. */
    public interface Combiner {
        void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long bytes);

        boolean commutative();
    }

    /** What a run did, for tests that count traffic. */
    public record Stats(long[] messagesSent, long[] bytesSent, int[] rounds) {
    }

    private record Key(int from, int to, int tag) {
    }

    private record Posted(int rank, int step) {
    }

    private final Schedule[] s;
    private final MemorySegment[][] buffers;
    private final Combiner op;
    private final Random random;

    private SchedulePlayer(Schedule[] schedules, MemorySegment[] send, MemorySegment[] recv, Combiner op, long seed) {
        this.s = schedules;
        this.op = op;
        this.random = new Random(seed);
        this.buffers = new MemorySegment[schedules.length][];
        for (int r = 0; r < schedules.length; r++) {
            if (schedules[r].rank() != r || schedules[r].size() != schedules.length) {
                throw new AssertionError("schedule " + r + " is for rank " + schedules[r].rank() + " of "
                        + schedules[r].size());
            }
            MemorySegment temp = MemorySegment.ofArray(new byte[Math.toIntExact(schedules[r].tempBytes())]);
            buffers[r] = new MemorySegment[] {send[r] == null ? MemorySegment.NULL : send[r],
                recv[r] == null ? MemorySegment.NULL : recv[r], temp};
        }
    }

    /**
     * Plays the schedules; {@code send[r]} and {@code recv[r]} are rank r's buffers (the same
     * segment for both when the collective works in place). Throws {@link AssertionError} on any
     * of the faults above.
     */
    public static Stats play(Schedule[] schedules, MemorySegment[] send, MemorySegment[] recv, Combiner op,
                             long seed) {
        return new SchedulePlayer(schedules, send, recv, op, seed).run();
    }

    private Stats run() {
        int n = s.length;
        int[][] remaining = new int[n][];
        int[][] depth = new int[n][];
        List<List<Integer>> ready = new ArrayList<>();
        int left = 0;
        for (int r = 0; r < n; r++) {
            remaining[r] = new int[s[r].steps()];
            depth[r] = new int[s[r].steps()];
            List<Integer> rr = new ArrayList<>();
            for (int i = 0; i < s[r].steps(); i++) {
                remaining[r][i] = s[r].dependencies(i).length;
                if (remaining[r][i] == 0) {
                    rr.add(i);
                }
                checkBounds(r, i);
            }
            ready.add(rr);
            left += s[r].steps();
        }
        Map<Key, ArrayDeque<Posted>> sends = new HashMap<>();
        Map<Key, ArrayDeque<Posted>> recvs = new HashMap<>();
        List<Posted> inFlight = new ArrayList<>();
        long[] messages = new long[n];
        long[] bytes = new long[n];
        // SLOTS exchanges, by their index among a schedule's SLOTS steps: each rank's contribution as
        // it was when the step was posted, and the posting step
        Map<Integer, byte[][]> gathered = new HashMap<>();
        Map<Integer, int[]> gatherSteps = new HashMap<>();
        while (left > 0) {
            // candidates: post a ready step of some rank, or complete a matched pair
            List<Key> matchable = new ArrayList<>();
            for (Map.Entry<Key, ArrayDeque<Posted>> e : sends.entrySet()) {
                ArrayDeque<Posted> q = recvs.get(e.getKey());
                if (!e.getValue().isEmpty() && q != null && !q.isEmpty()) {
                    matchable.add(e.getKey());
                }
            }
            List<Integer> ranksWithWork = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (!ready.get(r).isEmpty()) {
                    ranksWithWork.add(r);
                }
            }
            if (matchable.isEmpty() && ranksWithWork.isEmpty()) {
                throw new AssertionError("deadlock with " + left + " steps left; in flight: " + describe(inFlight));
            }
            int pick = random.nextInt(matchable.size() + ranksWithWork.size());
            if (pick < matchable.size()) {
                Key k = matchable.get(pick);
                Posted snd = sends.get(k).poll();
                Posted rcv = recvs.get(k).poll();
                long len = s[snd.rank].length(snd.step);
                if (len != s[rcv.rank].length(rcv.step)) {
                    throw new AssertionError("rank " + snd.rank + " step " + snd.step + " sends " + len
                            + " B with tag " + k.tag + " but rank " + rcv.rank + " step " + rcv.step + " receives "
                            + s[rcv.rank].length(rcv.step) + " B");
                }
                inFlight.remove(snd);
                inFlight.remove(rcv);
                MemorySegment.copy(region(snd.rank, s[snd.rank].buffer(snd.step), s[snd.rank].offset(snd.step), len),
                        0, region(rcv.rank, s[rcv.rank].buffer(rcv.step), s[rcv.rank].offset(rcv.step), len), 0, len);
                messages[snd.rank]++;
                bytes[snd.rank] += len;
                int arrive = Math.max(depth[snd.rank][snd.step], depth[rcv.rank][rcv.step]) + 1;
                depth[snd.rank][snd.step] = arrive;
                depth[rcv.rank][rcv.step] = arrive;
                left -= complete(snd.rank, snd.step, remaining, ready, depth);
                left -= complete(rcv.rank, rcv.step, remaining, ready, depth);
                continue;
            }
            int r = ranksWithWork.get(pick - matchable.size());
            List<Integer> rr = ready.get(r);
            int i = rr.remove(random.nextInt(rr.size()));
            Schedule sr = s[r];
            int base = 0;
            for (int d : sr.dependencies(i)) {
                base = Math.max(base, depth[r][d]);
            }
            depth[r][i] = base;
            switch (sr.kind(i)) {
                case Schedule.SEND -> {
                    checkNoWriter(r, i, sr.buffer(i), sr.offset(i), sr.length(i), inFlight);
                    Key k = new Key(r, sr.peer(i), sr.tag(i));
                    sends.computeIfAbsent(k, x -> new ArrayDeque<>()).add(new Posted(r, i));
                    inFlight.add(new Posted(r, i));
                }
                case Schedule.RECV -> {
                    checkNoAccess(r, i, sr.buffer(i), sr.offset(i), sr.length(i), inFlight);
                    Key k = new Key(sr.peer(i), r, sr.tag(i));
                    recvs.computeIfAbsent(k, x -> new ArrayDeque<>()).add(new Posted(r, i));
                    inFlight.add(new Posted(r, i));
                }
                case Schedule.SLOTS, Schedule.SLOTS_REDUCE -> {
                    long len = sr.length(i);
                    checkNoWriter(r, i, sr.srcBuffer(i), sr.srcOffset(i), len, inFlight);
                    boolean reduces = sr.kind(i) == Schedule.SLOTS_REDUCE;
                    checkNoAccess(r, i, sr.buffer(i), sr.offset(i), reduces ? len : len * n, inFlight);
                    int g = 0;
                    for (int j = 0; j < i; j++) {
                        g += sr.kind(j) == Schedule.SLOTS || sr.kind(j) == Schedule.SLOTS_REDUCE ? 1 : 0;
                    }
                    byte[][] got = gathered.computeIfAbsent(g, x -> new byte[n][]);
                    int[] steps = gatherSteps.computeIfAbsent(g, x -> new int[n]);
                    got[r] = region(r, sr.srcBuffer(i), sr.srcOffset(i), len).toArray(
                            java.lang.foreign.ValueLayout.JAVA_BYTE);
                    steps[r] = i;
                    boolean all = true;
                    for (byte[] b : got) {
                        all &= b != null;
                    }
                    if (all) {
                        // the last rank has published: every rank reads every contribution
                        for (int q = 0; q < n; q++) {
                            Schedule sq = s[q];
                            if (got[q].length != len) {
                                throw new AssertionError("SLOTS exchange " + g + ": rank " + q + " gives " + got[q].length
                                        + " B where rank " + r + " gives " + len);
                            }
                            if (sq.kind(steps[q]) != sr.kind(i)) {
                                throw new AssertionError("SLOTS exchange " + g + ": rank " + q + " gathers where rank "
                                        + r + " reduces, or the other way round");
                            }
                            if (reduces) {
                                // t0 ∘ (t1 ∘ (… ∘ t(P−1))), each lower rank's the left operand
                                byte[] acc = got[n - 1].clone();
                                for (int from = n - 2; from >= 0; from--) {
                                    op.apply(MemorySegment.ofArray(acc), 0, MemorySegment.ofArray(got[from]), 0, len);
                                }
                                if (len > 0) {
                                    MemorySegment.copy(MemorySegment.ofArray(acc), 0, region(q, sq.buffer(steps[q]),
                                            sq.offset(steps[q]), len), 0, len);
                                }
                            } else {
                                for (int from = 0; from < n; from++) {
                                    MemorySegment.copy(MemorySegment.ofArray(got[from]), 0, region(q, sq.buffer(steps[q]),
                                            sq.offset(steps[q]) + from * len, len), 0, len);
                                }
                            }
                            depth[q][steps[q]] = depth[r][i] + 1;
                            left -= complete(q, steps[q], remaining, ready, depth);
                        }
                        gathered.remove(g);
                    }
                }
                case Schedule.REDUCE -> {
                    checkNoAccess(r, i, sr.buffer(i), sr.offset(i), sr.length(i), inFlight);
                    checkNoWriter(r, i, sr.srcBuffer(i), sr.srcOffset(i), sr.length(i), inFlight);
                    MemorySegment dst = region(r, sr.buffer(i), sr.offset(i), sr.length(i));
                    MemorySegment src = region(r, sr.srcBuffer(i), sr.srcOffset(i), sr.length(i));
                    if (sr.srcIsLeft(i) || op.commutative()) {
                        op.apply(dst, 0, src, 0, sr.length(i));
                    } else {
                        byte[] copy = src.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                        MemorySegment tmp = MemorySegment.ofArray(copy);
                        op.apply(tmp, 0, dst, 0, sr.length(i));
                        MemorySegment.copy(tmp, 0, dst, 0, sr.length(i));
                    }
                    left -= complete(r, i, remaining, ready, depth);
                }
                default -> {
                    checkNoAccess(r, i, sr.buffer(i), sr.offset(i), sr.length(i), inFlight);
                    checkNoWriter(r, i, sr.srcBuffer(i), sr.srcOffset(i), sr.length(i), inFlight);
                    if (sr.length(i) > 0) {
                        MemorySegment.copy(region(r, sr.srcBuffer(i), sr.srcOffset(i), sr.length(i)), 0,
                                region(r, sr.buffer(i), sr.offset(i), sr.length(i)), 0, sr.length(i));
                    }
                    left -= complete(r, i, remaining, ready, depth);
                }
            }
        }
        for (Map.Entry<Key, ArrayDeque<Posted>> e : sends.entrySet()) {
            if (!e.getValue().isEmpty()) {
                throw new AssertionError("unreceived send " + e.getKey());
            }
        }
        int[] rounds = new int[n];
        for (int r = 0; r < n; r++) {
            for (int d : depth[r]) {
                rounds[r] = Math.max(rounds[r], d);
            }
        }
        return new Stats(messages, bytes, rounds);
    }

    private int complete(int r, int i, int[][] remaining, List<List<Integer>> ready, int[][] depth) {
        Schedule sr = s[r];
        for (int j = 0; j < sr.steps(); j++) {
            for (int d : sr.dependencies(j)) {
                if (d == i && --remaining[r][j] == 0) {
                    ready.get(r).add(j);
                }
            }
        }
        return 1;
    }

    private void checkBounds(int r, int i) {
        Schedule sr = s[r];
        long len = sr.length(i);
        bound(r, i, sr.buffer(i), sr.offset(i), len);
        if (sr.kind(i) == Schedule.REDUCE || sr.kind(i) == Schedule.COPY || sr.kind(i) == Schedule.SLOTS
                || sr.kind(i) == Schedule.SLOTS_REDUCE) {
            bound(r, i, sr.srcBuffer(i), sr.srcOffset(i), len);
        }
        if (sr.kind(i) == Schedule.SLOTS) {
            bound(r, i, sr.buffer(i), sr.offset(i), len * s.length);
        }
    }

    private void bound(int r, int i, byte buf, long off, long len) {
        if (len > 0 && off + len > buffers[r][buf].byteSize()) {
            throw new AssertionError("rank " + r + " step " + i + " region " + buf + "@" + off + "+" + len
                    + " is outside its buffer of " + buffers[r][buf].byteSize() + " B\n" + s[r]);
        }
    }

    private MemorySegment region(int r, byte buf, long off, long len) {
        return len == 0 ? MemorySegment.NULL : buffers[r][buf].asSlice(off, len);
    }

    /** Nothing in flight on rank r may read or write this region (it is about to be written). */
    private void checkNoAccess(int r, int i, byte buf, long off, long len, List<Posted> inFlight) {
        for (Posted p : inFlight) {
            if (p.rank == r && overlaps(r, buf, off, len, s[r].buffer(p.step), s[r].offset(p.step),
                    s[r].length(p.step))) {
                throw new AssertionError("race on rank " + r + ": step " + i + " writes memory that in-flight step "
                        + p.step + " uses\n" + s[r]);
            }
        }
    }

    /** No receive in flight on rank r may write this region (it is about to be read). */
    private void checkNoWriter(int r, int i, byte buf, long off, long len, List<Posted> inFlight) {
        for (Posted p : inFlight) {
            if (p.rank == r && s[r].kind(p.step) == Schedule.RECV && overlaps(r, buf, off, len, s[r].buffer(p.step),
                    s[r].offset(p.step), s[r].length(p.step))) {
                throw new AssertionError("race on rank " + r + ": step " + i + " reads memory that in-flight receive "
                        + p.step + " writes\n" + s[r]);
            }
        }
    }

    private boolean overlaps(int r, byte b1, long o1, long l1, byte b2, long o2, long l2) {
        if (l1 == 0 || l2 == 0) {
            return false;
        }
        return region(r, b1, o1, l1).asOverlappingSlice(region(r, b2, o2, l2)).isPresent();
    }

    private String describe(List<Posted> inFlight) {
        StringBuilder sb = new StringBuilder();
        for (Posted p : inFlight) {
            Schedule sr = s[p.rank];
            sb.append("\n  rank ").append(p.rank).append(" step ").append(p.step)
                    .append(sr.kind(p.step) == Schedule.SEND ? " SEND to " : " RECV from ").append(sr.peer(p.step))
                    .append(" tag ").append(sr.tag(p.step));
        }
        return sb.toString();
    }
}

package io.tutti.offload;

import io.tutti.coll.schedule.Schedule;
import io.tutti.offload.OffloadCompiler.Refused;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Branch and pipeline ([water-tank] §4.1, table 2 and figure 5) for {@link OffloadCompiler#singleSource}:
 * it compiles a schedule in which every rank receives from one peer only (a broadcast tree or
 * chain). The root waits for a sync from every rank, then sends; a rank forwarding one message to
 * several children pours the fan-out into its tank first (threshold 1 + fan-out); a pipeline
 * forwards segment j at threshold j + 1.
 */
final class SingleSourcePattern {
    private SingleSourcePattern() {
    }

    /** Where a rank's receives come from: its sources in order of first receive, and each receive's number. */
    static final class Sources {
        final List<Integer> parents = new ArrayList<>();
        final int[] counts;
        final int[] source; // per step: index of the source a RECV is from, else -1
        final int[] ordinal; // per RECV step: its number among the receives from its source

        Sources(Schedule s) {
            int n = s.steps();
            source = new int[n];
            ordinal = new int[n];
            int[] c = new int[n + 1];
            for (int i = 0; i < n; i++) {
                source[i] = -1;
                if (s.kind(i) == Schedule.RECV) {
                    int k = parents.indexOf(s.peer(i));
                    if (k < 0) {
                        k = parents.size();
                        parents.add(s.peer(i));
                    }
                    source[i] = k;
                    ordinal[i] = c[k]++;
                }
            }
            counts = Arrays.copyOf(c, parents.size());
        }

        /** First arrival number of source {@code k}'s block (receives are counted per source). */
        int base(int k) {
            int b = 0;
            for (int j = 0; j < k; j++) {
                b += counts[j];
            }
            return b;
        }
    }

    /** See {@link OffloadCompiler#singleSource}. */
    static OffloadProgram compile(IntFunction<Schedule> schedules, int rank) {
        Schedule s = schedules.apply(rank);
        int size = s.size();
        Sources src = new Sources(s);
        int sources = src.parents.size();
        // every source must lead back to one root, and a root must be the only origin of what its children get
        int root = rank;
        for (int k = 0; k < sources; k++) {
            int r = rootOf(schedules, src.parents.get(k), size, s.name());
            if (k > 0 && r != root) {
                throw new Refused(s.name() + " rank " + rank + " gets data that starts at ranks " + root + " and " + r
                        + ": no single source; use the 2^n scheme");
            }
            root = r;
        }
        if (sources == 0) {
            // the root waits for a sync from every other rank, so its data must reach them all
            String why = broadcastFrom(schedules, rank, size);
            if (why != null) {
                throw new Refused(s.name() + ": rank " + rank + " receives nothing, but it is no broadcast root: " + why);
            }
        }
        int n = s.steps();
        int[] from = new int[n]; // the source a step's data comes from, -1 none, -2 several
        int[] seg = new int[n]; // receives from that source the step needs
        int[] level = new int[n];
        BitSet levels = new BitSet();
        int[] fanout = new int[Math.max(1, sources)];
        for (int i = 0; i < n; i++) {
            int f = -1;
            int need = 0;
            int lv = 0;
            for (int d : s.dependencies(i)) {
                lv = Math.max(lv, level[d] + 1);
                if (from[d] == -1) {
                    continue;
                }
                f = f == -1 || f == from[d] ? from[d] : -2;
                need = Math.max(need, seg[d]);
            }
            level[i] = lv;
            byte kind = s.kind(i);
            if (kind == Schedule.RECV) {
                int k = src.source[i];
                if (f >= 0 && f != k) {
                    f = -2;
                } else {
                    f = k;
                    need = Math.max(need, src.ordinal[i] + 1);
                }
                levels.set(lv);
            }
            boolean moves = s.length(i) > 0 && kind != Schedule.RECV;
            if (f == -2 && (kind == Schedule.SEND || moves)) {
                throw new Refused(s.name() + " rank " + rank + " step " + i + " waits for data from several sources;"
                        + " one threshold watches one counter");
            }
            if (kind == Schedule.SEND) {
                levels.set(lv);
                if (rank != root && f < 0 && s.length(i) > 0) {
                    throw new Refused(s.name() + " rank " + rank + " step " + i + " sends before it has received"
                            + " anything; not a single-source pattern");
                }
                if (f >= 0) {
                    fanout[f]++;
                }
            } else if (kind == Schedule.REDUCE && s.length(i) > 0) {
                throw new Refused(s.name() + " rank " + rank + " step " + i + " reduces: the single-source pattern"
                        + " only forwards data; use the NIC reduction tree");
            }
            from[i] = f;
            seg[i] = need;
        }
        int done = sources > 1 ? sources : -1; // the completion counter, when there are several sources
        int counters = Math.max(1, sources) + (sources > 1 ? 1 : 0);
        OffloadProgram.Builder b = new OffloadProgram.Builder(s.name(), "single-source", rank, size)
                .rounds(levels.cardinality()).counters(counters);
        long[] fin = new long[Math.max(1, sources)];
        boolean[] branch = new boolean[Math.max(1, sources)];
        if (rank == root) {
            b.arrivals(size - 1);
            fin[0] = size - 1;
        } else {
            int[] perCounter = new int[counters];
            System.arraycopy(src.counts, 0, perCounter, 0, sources);
            b.arrivals(perCounter);
            int sync = rank < root ? rank : rank - 1;
            // the sync (table 2, Rq 0): this rank's buffers are ready; a zero-byte write that counts 1 at the root
            b.put(0, 0, root, OffloadProgram.RECV_BUFFER, 0, 0, OffloadProgram.RECV_BUFFER, 0, 1, sync)
                    .role(OffloadProgram.ROLE_SYNC);
            for (int k = 0; k < sources; k++) {
                branch[k] = src.counts[k] == 1 && fanout[k] >= 2;
                if (branch[k]) {
                    // the tank must rise by the fan-out before the branch writes fire (table 2, Rq 1)
                    b.counterAdd(1, 1, fanout[k]).on(k).role(OffloadProgram.ROLE_BRANCH);
                    fin[k] = 1 + fanout[k];
                } else {
                    fin[k] = src.counts[k];
                }
            }
        }
        ArrivalAnalysis.Ranks ranks = new ArrivalAnalysis.Ranks(schedules, false);
        ArrivalAnalysis me = ranks.get(rank);
        Map<Integer, Sources> childSources = new HashMap<>();
        Map<Integer, Long> lastTh = new HashMap<>();
        for (int i = 0; i < n; i++) {
            byte kind = s.kind(i);
            long len = s.length(i);
            int k = Math.max(from[i], 0);
            long th = rank == root ? size - 1 : branch[k] ? 1 + fanout[k] : seg[i];
            int need = rank == root ? size - 1 : seg[i];
            if (kind == Schedule.RECV) {
                b.buffer(s.buffer(i), s.offset(i) + len);
            } else if (kind == Schedule.SEND) {
                ArrivalAnalysis ca = ranks.get(s.peer(i));
                Schedule child = ca.s;
                Sources cs = childSources.computeIfAbsent(s.peer(i), x -> new Sources(child));
                Integer found = ca.recvByKey.get(ArrivalAnalysis.key(rank, s.tag(i), me.ordinal[i]));
                int recv = found == null ? -1 : found;
                if (recv < 0) {
                    throw new Refused(s.name() + " rank " + rank + " step " + i + " to rank " + s.peer(i)
                            + " has no matching receive");
                }
                ArrivalAnalysis.checkLength(child, recv, s, i);
                Long prev = lastTh.put(s.peer(i), th);
                if (prev != null && prev > th) {
                    throw new Refused(s.name() + " rank " + rank + " sends segments to rank " + s.peer(i) + " out of"
                            + " order; a counter identifies them by count only");
                }
                // the child counts what we send on its counter for us, in order
                int ck = cs.source[recv];
                b.put(th, need, s.peer(i), s.buffer(i), s.offset(i), len, child.buffer(recv), child.offset(recv), 1,
                        cs.base(ck) + cs.ordinal[recv]).on(k).target(ck);
            } else if (kind == Schedule.COPY && len > 0) {
                b.copy(th, need, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len).on(k);
            }
        }
        if (done < 0) {
            int need = rank == root ? size - 1 : sources == 0 ? 0 : src.counts[0];
            b.complete(fin[0], need);
            if (fin[0] != 0) {
                b.counterAdd(fin[0], need, -fin[0]).role(OffloadProgram.ROLE_FIN);
            }
        } else {
            for (int k = 0; k < sources; k++) {
                b.counterAdd(fin[k], src.counts[k], 1).on(k).target(done);
                b.counterAdd(fin[k], src.counts[k], -fin[k]).on(k).role(OffloadProgram.ROLE_FIN);
            }
            b.complete(sources, 0).on(done);
            b.counterAdd(sources, 0, -sources).on(done).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    // follows first sources up to a rank that receives nothing
    static int rootOf(IntFunction<Schedule> schedules, int from, int size, String name) {
        int at = from;
        for (int hops = 0; hops <= size; hops++) {
            Sources up = new Sources(schedules.apply(at));
            if (up.parents.isEmpty()) {
                return at;
            }
            at = up.parents.get(0);
        }
        throw new Refused(name + ": the receive chain from rank " + from + " loops; no single source");
    }

    /**
     * Why the schedule is not a broadcast from {@code root} (its sends reach every rank, nobody
     * reduces, and every rank's data starts at the root), or null if it is. Reads every rank's
     * schedule.
     */
    static String broadcastFrom(IntFunction<Schedule> schedules, int root, int size) {
        boolean[] seen = new boolean[size];
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        seen[root] = true;
        todo.add(root);
        int reached = 1;
        while (!todo.isEmpty()) {
            int r = todo.poll();
            Schedule s = schedules.apply(r);
            for (int i = 0; i < s.steps(); i++) {
                if (s.kind(i) == Schedule.REDUCE && s.length(i) > 0) {
                    return "rank " + r + " reduces";
                }
                if (s.kind(i) == Schedule.RECV && rootOf(schedules, s.peer(i), size, s.name()) != root) {
                    return "rank " + r + " gets data from rank " + s.peer(i) + ", which does not start at rank " + root;
                }
                if (s.kind(i) == Schedule.SEND && !seen[s.peer(i)]) {
                    seen[s.peer(i)] = true;
                    reached++;
                    todo.add(s.peer(i));
                }
            }
        }
        return reached == size ? null : "its sends reach " + reached + " of " + size + " ranks";
    }
}

package io.tutti.coll;

import io.tutti.coll.schedule.Schedule;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The barrier property as a graph question: rank r may leave once all its steps have completed, so
 * r leaves after q entered exactly when some step of r happens after some step of q. Happens-before
 * is the schedules' dependencies plus one edge per message, from a send to the receive it pairs
 * with (same source, destination and tag, in step order), and between every two ranks' k-th SLOTS
 * steps (an exchange through shared memory completes after every rank has published).
 */
final class BarrierOrder {
    private BarrierOrder() {
    }

    static boolean everyExitAfterEveryEntry(Schedule[] s) {
        int n = s.length;
        Map<String, List<int[]>> sends = new HashMap<>();
        Map<String, List<int[]>> recvs = new HashMap<>();
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < s[r].steps(); i++) {
                if (s[r].kind(i) == Schedule.SEND) {
                    sends.computeIfAbsent(r + ">" + s[r].peer(i) + "#" + s[r].tag(i), k -> new ArrayList<>())
                            .add(new int[] {r, i});
                } else if (s[r].kind(i) == Schedule.RECV) {
                    recvs.computeIfAbsent(s[r].peer(i) + ">" + r + "#" + s[r].tag(i), k -> new ArrayList<>())
                            .add(new int[] {r, i});
                }
            }
        }
        Map<Long, List<long[]>> edges = new HashMap<>();
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < s[r].steps(); i++) {
                for (int d : s[r].dependencies(i)) {
                    edges.computeIfAbsent(key(r, d), k -> new ArrayList<>()).add(new long[] {r, i});
                }
            }
        }
        for (Map.Entry<String, List<int[]>> e : sends.entrySet()) {
            List<int[]> rv = recvs.get(e.getKey());
            for (int k = 0; k < e.getValue().size(); k++) {
                int[] snd = e.getValue().get(k);
                int[] rcv = rv.get(k);
                edges.computeIfAbsent(key(snd[0], snd[1]), x -> new ArrayList<>()).add(new long[] {rcv[0], rcv[1]});
            }
        }
        // the k-th SLOTS step of every rank completes only after every rank posted its k-th
        Map<Integer, List<int[]>> slots = new HashMap<>();
        for (int r = 0; r < n; r++) {
            int k = 0;
            for (int i = 0; i < s[r].steps(); i++) {
                if (s[r].kind(i) == Schedule.SLOTS) {
                    slots.computeIfAbsent(k++, x -> new ArrayList<>()).add(new int[] {r, i});
                }
            }
        }
        for (List<int[]> group : slots.values()) {
            for (int[] a : group) {
                for (int[] b : group) {
                    if (a[0] != b[0]) {
                        edges.computeIfAbsent(key(a[0], a[1]), x -> new ArrayList<>()).add(new long[] {b[0], b[1]});
                    }
                }
            }
        }
        for (int q = 0; q < n; q++) {
            boolean[] reached = new boolean[n];
            ArrayDeque<long[]> todo = new ArrayDeque<>();
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (int i = 0; i < s[q].steps(); i++) {
                todo.add(new long[] {q, i});
                seen.add(key(q, i));
            }
            while (!todo.isEmpty()) {
                long[] x = todo.poll();
                reached[(int) x[0]] = true;
                for (long[] y : edges.getOrDefault(key((int) x[0], (int) x[1]), List.of())) {
                    if (seen.add(key((int) y[0], (int) y[1]))) {
                        todo.add(y);
                    }
                }
            }
            for (int r = 0; r < n; r++) {
                if (r != q && !reached[r]) {
                    return false;
                }
            }
        }
        return true;
    }

    private static long key(int rank, int step) {
        return ((long) rank << 32) | step;
    }
}

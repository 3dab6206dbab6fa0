package io.tutti.monitor;

import io.tutti.Metrics;
import io.tutti.metrics.Counters;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hand-made counters of small jobs, for the tests of what the monitor makes of them. */
final class Snapshots {
    static final long NOW = 1_800_000_000_000L;
    static final long STARTED = NOW - 60_000;

    private Snapshots() {
    }

    /**
     * Rank {@code rank} of {@code size}: to each peer p it sent {@code 10 * rank + p} messages of 100
     * bytes each over {@code transport}, and received {@code 10 * p + rank}; one rail when on the
     * network, in {@code railState} with 7 retransmissions; allreduce called 3 times (one each in the
     * 1 µs, 2 µs and 1 ms buckets), the first by recursive doubling (the 1 ms one), the other two by the
     * ring; offload runs 4 and fired puts {@code 8 + rank}, in-network packets sent 6 and retransmits
     * {@code rank}.
     */
    static Metrics rank(int rank, int size, String transport, String railState, Metrics.Blocked blocked,
                        List<Metrics.ErrorCount> errors) {
        List<Metrics.Peer> peers = new ArrayList<>();
        long ms = 0, bs = 0, mr = 0, br = 0;
        for (int p = 0; p < size; p++) {
            long sent = p == rank ? 0 : 10L * rank + p;
            long recv = p == rank ? 0 : 10L * p + rank;
            peers.add(new Metrics.Peer(p, transport, new Metrics.Traffic(sent, sent * 100, recv, recv * 100),
                    p == rank ? 0 : NOW - 1000 * (p + 1)));
            ms += sent;
            bs += sent * 100;
            mr += recv;
            br += recv * 100;
        }
        Metrics.Traffic total = new Metrics.Traffic(ms, bs, mr, br);
        Metrics.Traffic none = new Metrics.Traffic(0, 0, 0, 0);
        boolean net = transport.equals("net");
        long[] h = new long[38];
        h[10] = 1; // [1024, 2048) ns
        h[11] = 1;
        h[20] = 1; // about 1 ms
        List<Metrics.Rail> rails = net ? List.of(new Metrics.Rail(0, "10.0.0." + rank, railState, 50, 5000, 40, 7, 300))
                : List.of();
        long[] ring = new long[38];
        ring[10] = 1;
        ring[11] = 1;
        long[] doubling = new long[38];
        doubling[20] = 1;
        List<Metrics.Algorithm> algorithms = List.of(new Metrics.Algorithm("recursive-doubling", 1, doubling),
                new Metrics.Algorithm("ring", 2, ring));
        Map<String, Long> offload = new LinkedHashMap<>();
        Counters.OFFLOAD.forEach(n -> offload.put(n, 0L));
        offload.put("runs", 4L);
        offload.put("fired-put", 8L + rank);
        Map<String, Long> inNetwork = new LinkedHashMap<>();
        Counters.IN_NETWORK.forEach(n -> inNetwork.put(n, 0L));
        inNetwork.put("packets-sent", 6L);
        inNetwork.put("retransmits", (long) rank);
        return new Metrics("job1", rank, size, 1000 + rank, STARTED, true, net ? none : total, net ? total : none, 0,
                peers, List.of(new Metrics.Collective("allreduce", 3, h, algorithms)), rails,
                new Metrics.NetTotals(net ? 2 : 0, 0, 1, 0, 0, net ? 25_000 : 0), errors, blocked, offload, inNetwork);
    }

    /** A running job of {@code size} ranks over {@code transport}, each in {@code liveness[rank]}. */
    static JobSnapshot job(int size, String transport, Liveness... liveness) {
        List<Rank> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(new Rank(rank(r, size, transport, "free", null, List.of()),
                    liveness.length > r ? liveness[r] : Liveness.RUNNING));
        }
        return new JobSnapshot("job1", NOW, true, ranks, List.of(), Map.of(), null);
    }
}

package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.reduce.OffloadAlu;
import io.tutti.offload.OffloadPlans;
import io.tutti.offload.OffloadProgram;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** NIC-offload mode: the offload engine's own programs on modelled NICs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NicModelTest {
    private static final SimParams NO_GAP = SimParams.defaults().with(Map.of("g", "0", "G", "0"));

    @Test
    void aButterflyBarrierTakesOneTriggerLatencyAndIntakePerRound() {
        for (int k = 1; k <= 6; k++) {
            int n = 1 << k;
            OffloadProgram[] p = OffloadPlans.programs(OffloadPlans.Coll.BARRIER, n, 0, 0, null, null);
            SimResult r = Simulation.run(new NicModel(p, null, NO_GAP), new LogGPNetwork(NO_GAP.L()), null);
            long round = NO_GAP.nicTrigger() + NO_GAP.L() + NO_GAP.nicProcess();
            assertEquals(k * round, r.completionNs(), "N = " + n);
            assertEquals((long) n * k, r.messages(), "one counter add per rank and round");
        }
    }

    /** Posting the program and seeing the completion value add their fixed costs once per rank. */
    @Test
    void postingAndCompletionAddOnce() {
        SimParams p = NO_GAP.with(Map.of("nic_post", "700", "nic_complete", "300"));
        OffloadProgram[] prog = OffloadPlans.programs(OffloadPlans.Coll.BARRIER, 8, 0, 0, null, null);
        SimResult r = Simulation.run(new NicModel(prog, null, p), new LogGPNetwork(p.L()), null);
        assertEquals(700 + 3 * (p.nicTrigger() + p.L() + p.nicProcess()) + 300, r.completionNs());
    }

    @Test
    void everyOffloadedCollectiveCompletesAndAllreduceSumsForAnyRankCount() {
        Random random = new Random(7);
        for (int n = 1; n <= 33; n++) {
            for (OffloadPlans.Coll coll : OffloadPlans.Coll.values()) {
                boolean reduces = coll == OffloadPlans.Coll.REDUCE || coll == OffloadPlans.Coll.ALLREDUCE;
                long bytes = coll == OffloadPlans.Coll.BARRIER ? 0 : 8L * (1 + random.nextInt(12));
                OffloadProgram[] p = OffloadPlans.programs(coll, n, bytes, 0, reduces ? OffloadAlu.Op.ADD : null,
                        reduces ? OffloadAlu.Type.INT64 : null);
                NicModel m = new NicModel(p, null, SimParams.defaults());
                long[] expected = new long[(int) (bytes / 8)];
                if (coll == OffloadPlans.Coll.ALLREDUCE) {
                    for (int r = 0; r < n; r++) {
                        MemorySegment in = m.memory(r, OffloadProgram.SEND_BUFFER);
                        for (int i = 0; i < expected.length; i++) {
                            long v = random.nextInt(1000);
                            in.setAtIndex(ValueLayout.JAVA_LONG, i, v);
                            expected[i] += v;
                        }
                    }
                }
                SimResult res = Simulation.run(m, new LogGPNetwork(SimParams.defaults().L()), null);
                assertEquals(n, res.finishNs().length);
                if (coll == OffloadPlans.Coll.ALLREDUCE) {
                    for (int r = 0; r < n; r++) {
                        MemorySegment out = m.memory(r, OffloadProgram.RECV_BUFFER);
                        for (int i = 0; i < expected.length; i++) {
                            assertEquals(expected[i], out.getAtIndex(ValueLayout.JAVA_LONG, i),
                                    "allreduce N = " + n + ", rank " + r + ", element " + i);
                        }
                    }
                }
            }
        }
    }

    /**
     * With noisy hosts each rank's program is posted at its own time, and a packet that reaches a NIC
     * before its host has posted waits there: two ranks of a barrier finish at
     * max(the peer's post + trigger + L, own post) + intake + own completion.
     */
    @Test
    void aNoisyPostHoldsPacketsUntilTheProgramIsThere() {
        SimParams p = NO_GAP.with(Map.of("nic_post", "20000", "nic_complete", "3000", "host_noise", "1"));
        OffloadProgram[] prog = OffloadPlans.programs(OffloadPlans.Coll.BARRIER, 2, 0, 0, null, null);
        int checked = 0;
        for (int seed = 1; seed <= 20; seed++) {
            SimParams q = p.with(Map.of("noise_seed", Integer.toString(seed)));
            SimResult r = Simulation.run(new NicModel(prog, null, q), new LogGPNetwork(q.L()), null);
            long[] post = new long[2];
            for (int k = 0; k < 2; k++) {
                post[k] = q.noisy(q.nicPost(), k, 0, SimParams.NOISE_POST);
            }
            for (int k = 0; k < 2; k++) {
                long intake = Math.max(post[1 - k] + q.nicTrigger() + q.L(), post[k]);
                assertEquals(intake + q.nicProcess() + q.noisy(q.nicComplete(), k, 0, SimParams.NOISE_COMPLETE),
                        r.finishNs()[k], "seed " + seed + ", rank " + k);
            }
            if (Math.abs(post[0] - post[1]) > q.nicTrigger() + q.L()) {
                checked++;
            }
        }
        assertTrue(checked > 5, "some seeds post one rank well before the other: " + checked);
    }

    @Test
    void aNoisyAllreduceStillSums() {
        SimParams p = SimParams.defaults().with(Map.of("nic_post", "20000", "host_noise", "1"));
        for (int n = 2; n <= 17; n++) {
            OffloadProgram[] prog = OffloadPlans.programs(OffloadPlans.Coll.ALLREDUCE, n, 8, 0, OffloadAlu.Op.ADD,
                    OffloadAlu.Type.INT64);
            NicModel m = new NicModel(prog, null, p.with(Map.of("noise_seed", Integer.toString(n))));
            for (int r = 0; r < n; r++) {
                m.memory(r, OffloadProgram.SEND_BUFFER).setAtIndex(ValueLayout.JAVA_LONG, 0, r + 1);
            }
            Simulation.run(m, new LogGPNetwork(p.L()), null);
            for (int r = 0; r < n; r++) {
                assertEquals((long) n * (n + 1) / 2, m.memory(r, OffloadProgram.RECV_BUFFER)
                        .getAtIndex(ValueLayout.JAVA_LONG, 0), "N = " + n + ", rank " + r);
            }
        }
    }
}

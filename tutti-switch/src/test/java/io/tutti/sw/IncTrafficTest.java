package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.Tutti;
import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.ReduceOp;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import io.tutti.Datatype;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Host traffic of an allreduce, counted: through the switches each leader sends and receives
 * one data packet per allreduce of up to 256 bytes (counted by the switches), where recursive
 * doubling among the same leaders sends ⌈log2 N⌉ messages per rank (counted in its schedule).
 */
@Timeout(120)
class IncTrafficTest {
    private final IncAllreduceTest fabric = new IncAllreduceTest();

    @AfterEach
    void stop() throws InterruptedException {
        fabric.stop();
    }

    @Test
    void eachLeaderSendsAndReceivesOnePacketPerSmallAllreduce() throws Exception {
        SwitchServer spine = fabric.start(SwitchConfig.of(SwitchConfig.Role.SPINE, 9,
                List.of(IncAllreduceTest.loopback()), List.of()));
        InetSocketAddress up = spine.port(0);
        SwitchServer[] tor = new SwitchServer[2];
        InetSocketAddress[] tors = new InetSocketAddress[2];
        for (int i = 0; i < 2; i++) {
            tor[i] = fabric.start(SwitchConfig.of(SwitchConfig.Role.TOR, i + 1, List.of(IncAllreduceTest.loopback()),
                    List.of(up)));
            tors[i] = tor[i].port(0);
        }
        int calls = 50;
        IncAllreduceTest.job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                double[] a = new double[32]; // 256 B: one packet
                double[] b = new double[32];
                for (int k = 0; k < calls; k++) {
                    a[0] = rank + k;
                    t.world().allreduce(a, b, 32, Datatype.DOUBLE, ReduceOp.SUM);
                    assertEquals(28 + 8.0 * k, b[0]);
                }
            }
        }, (rank, env) -> {
            IncAllreduceTest.incEnv(tors).accept(rank, env);
            // no retransmission on a slow machine: this counts the protocol's packets, not the timer's
            env.put(io.tutti.Config.envName(IncConfig.RETRY), "10000");
        });
        for (SwitchServer s : tor) {
            // two leaders under each ToR
            assertEquals(2L * calls, s.logic().counters().fromChildren, "one contribution per leader and call");
            assertEquals(2L * calls, s.logic().counters().toChildren, "one result per leader and call");
            assertEquals(0, s.logic().counters().duplicates);
        }
        assertEquals(2L * calls, spine.logic().counters().fromChildren, "one packet per ToR and call");
        System.out.printf("inc, 4 leaders, %d allreduces of 256 B: per leader and call %.2f packets sent, %.2f"
                        + " received; per ToR and call %.2f packets up%n", calls,
                tor[0].logic().counters().fromChildren / 2.0 / calls, tor[0].logic().counters().toChildren / 2.0 / calls,
                spine.logic().counters().fromChildren / 2.0 / calls);
    }

    @Test
    void recursiveDoublingSendsLog2NMessagesPerRank() {
        Selector algorithms = new Selector(Map.of());
        for (int n : new int[] {4, 8, 16}) {
            CollectiveCall call = new CollectiveCall(CollectiveCall.Kind.ALLREDUCE, 256, 8, 0, false, true, null, null,
                    null, null, false);
            for (int rank = 0; rank < n; rank++) {
                Schedule s = algorithms.build(call, rank, n, Topology.flat(n, false), "recursive-doubling");
                int sends = 0;
                int recvs = 0;
                for (int i = 0; i < s.steps(); i++) {
                    sends += s.kind(i) == Schedule.SEND ? 1 : 0;
                    recvs += s.kind(i) == Schedule.RECV ? 1 : 0;
                }
                int log2 = 32 - Integer.numberOfLeadingZeros(n - 1);
                assertEquals(log2, sends, "rank " + rank + " of " + n);
                assertEquals(log2, recvs, "rank " + rank + " of " + n);
            }
            System.out.printf("recursive-doubling, %d ranks, 256 B: %d messages sent and %d received per rank%n", n,
                    32 - Integer.numberOfLeadingZeros(n - 1), 32 - Integer.numberOfLeadingZeros(n - 1));
        }
    }
}

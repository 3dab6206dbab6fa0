package io.tutti.offload;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.reduce.OffloadAlu;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The offload settings and the schemes they choose for a communicator's barrier and allreduce. */
class OffloadConfigTest {
    @Test
    void settingsByPropertyOrEnvironment() {
        assertEquals(OffloadConfig.defaults(), OffloadConfig.from(Config.defaults()));
        Properties props = new Properties();
        props.setProperty("tutti.offload.barrier", "butterfly");
        OffloadConfig c = OffloadConfig.from(Config.from(Map.of("TUTTI_OFFLOAD_ALLREDUCE", "nic-tree",
                "TUTTI_OFFLOAD_BARRIER", "linear"), props));
        assertEquals(new OffloadConfig("nic-tree", "butterfly"), c);
        String e = assertThrows(TuttiException.InvalidArgument.class,
                () -> OffloadConfig.from(Config.defaults().with("tutti.offload.allreduce", "tree"))).getMessage();
        assertEquals("TUTTI_OFFLOAD_ALLREDUCE (or tutti.offload.allreduce) must be auto, recursive-doubling, nic-tree,"
                + " linear; got 'tree'", e);
        e = assertThrows(TuttiException.InvalidArgument.class,
                () -> OffloadConfig.from(Config.defaults().with("TUTTI_OFFLOAD_BARRIER", "Linear"))).getMessage();
        assertEquals("TUTTI_OFFLOAD_BARRIER (or tutti.offload.barrier) must be auto, butterfly, linear; got 'Linear'",
                e);
    }

    @Test
    void autoTakesOneRoundOnOneNodeWhenOneCounterHoldsTheArrivals() {
        OffloadConfig auto = OffloadConfig.defaults();
        for (int n : new int[] {1, 2, 3, 5, 8, 64, 65}) {
            for (boolean shared : new boolean[] {false, true}) {
                boolean oneRound = shared && n - 1 <= OffloadCompiler.MAX_BUCKETS;
                for (int r = 0; r < n; r += Math.max(1, n / 3)) {
                    OffloadProgram b = barrier(auto, n, r, shared);
                    assertEquals(oneRound ? "barrier/linear" : "barrier/butterfly", b.name(), n + " " + shared);
                    OffloadProgram a = allreduce(auto, n, r, shared);
                    assertEquals(oneRound ? "allreduce/linear" : "allreduce/recursive-doubling", a.name());
                    assertEquals("2^n", a.scheme());
                }
            }
        }
    }

    @Test
    void aSchemeSetIsTaken() {
        for (boolean shared : new boolean[] {false, true}) {
            assertEquals("allreduce/nic-tree", allreduce(new OffloadConfig("nic-tree", "auto"), 4, 1, shared).name());
            assertEquals("nic-reduction-tree", allreduce(new OffloadConfig("nic-tree", "auto"), 4, 1, shared).scheme());
            assertEquals("allreduce/linear", allreduce(new OffloadConfig("linear", "auto"), 4, 1, shared).name());
            assertEquals("allreduce/recursive-doubling",
                    allreduce(new OffloadConfig("recursive-doubling", "auto"), 4, 1, shared).name());
            assertEquals("barrier/butterfly", barrier(new OffloadConfig("auto", "butterfly"), 4, 1, shared).name());
            assertEquals("barrier/linear", barrier(new OffloadConfig("auto", "linear"), 4, 1, shared).name());
        }
        // the same programs as the plain plan and the compiler give
        OffloadProgram p = allreduce(new OffloadConfig("nic-tree", "auto"), 6, 2, true);
        assertEquals(OffloadPlans.program(OffloadPlans.Coll.ALLREDUCE, 6, 2, 48, 0, OffloadAlu.Op.ADD,
                OffloadAlu.Type.FLOAT64).dump(), p.dump());
        assertEquals(OffloadPlans.program(OffloadPlans.Coll.BCAST, 6, 2, 48, 3, null, null).dump(),
                OffloadPlans.compile(OffloadPlans.Coll.BCAST, OffloadConfig.defaults(), 6, 2, 48, 3, null, null, true)
                        .dump());
        assertThrows(TuttiException.InvalidArgument.class, () -> OffloadPlans.compile(OffloadPlans.Coll.BARRIER,
                OffloadConfig.defaults(), 4, 4, 0, 0, null, null, true));
    }

    private static OffloadProgram barrier(OffloadConfig c, int n, int rank, boolean shared) {
        return OffloadPlans.compile(OffloadPlans.Coll.BARRIER, c, n, rank, 0, 0, null, null, shared);
    }

    private static OffloadProgram allreduce(OffloadConfig c, int n, int rank, boolean shared) {
        return OffloadPlans.compile(OffloadPlans.Coll.ALLREDUCE, c, n, rank, 48, 0, OffloadAlu.Op.ADD,
                OffloadAlu.Type.FLOAT64, shared);
    }
}

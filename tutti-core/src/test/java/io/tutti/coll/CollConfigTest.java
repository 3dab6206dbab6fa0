package io.tutti.coll;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Topology;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The collectives' settings: property and environment names, defaults, priority and errors. */
class CollConfigTest {
    @Test
    void defaults() {
        CollConfig c = CollConfig.from(Config.defaults());
        assertEquals(CollConfig.defaults(), c);
        assertEquals(64 * 1024, c.segment());
        assertEquals(4, c.kary());
        assertFalse(c.incSockets());
        assertTrue(c.algorithms().isEmpty());
    }

    @Test
    void propertiesAndEnvironmentNameTheSameSettings() {
        Properties props = new Properties();
        props.setProperty("tutti.coll.segment", "4096");
        props.setProperty("tutti.coll.reducescatter", "pairwise");
        Config config = Config.from(Map.of("TUTTI_COLL_SEGMENT", "1024", "TUTTI_COLL_KARY", "3", "TUTTI_INC_MODE",
                "socket", "TUTTI_COLL_ALLREDUCE", " ring "), props);
        CollConfig c = CollConfig.from(config);
        assertEquals(4096, c.segment(), "a system property over the environment");
        assertEquals(3, c.kary());
        assertTrue(c.incSockets());
        assertEquals("ring", c.algorithm(Kind.ALLREDUCE));
        assertEquals("pairwise", c.algorithm(Kind.REDUCE_SCATTER));
        assertNull(c.algorithm(Kind.BCAST));
        assertEquals("TUTTI_COLL_REDUCESCATTER", Config.envName(CollConfig.property(Kind.REDUCE_SCATTER)));
        assertEquals(Selector.variable(Kind.ALLREDUCE), Config.envName(CollConfig.property(Kind.ALLREDUCE)));

        Selector s = new Selector(CollConfig.from(Config.defaults().with("tutti.coll.allreduce", "linear")));
        CollectiveCall call = CollectiveCall.allreduce(8, 8, false, true);
        assertEquals("linear", s.choose(call, 4, Topology.flat(4, false), null));
        assertEquals("ring", s.choose(call, 4, Topology.flat(4, false), "ring"));
    }

    @Test
    void badValuesSayWhatToDo() {
        assertEquals("TUTTI_COLL_SEGMENT must be a positive whole number, got '0'", message("tutti.coll.segment", "0"));
        assertEquals("TUTTI_COLL_KARY must be at least 2, got 1", message("tutti.coll.kary", "1"));
        assertEquals("TUTTI_COLL_KARY must be a positive whole number, got 'x'", message("tutti.coll.kary", "x"));
        assertEquals("TUTTI_INC_MODE must be node or socket, got 'rack'", message("tutti.inc.mode", "rack"));
        assertTrue(message("tutti.coll.bcast", "fast").startsWith("TUTTI_COLL_BCAST=fast: 'fast' is not an algorithm"
                + " for bcast; choose one of binomial, kary"));
        assertThrows(TuttiException.InvalidArgument.class, () -> new CollConfig(0, 4, "node", Map.of(), 0, 0, false));
    }

    private static String message(String property, String value) {
        return assertThrows(TuttiException.InvalidArgument.class,
                () -> CollConfig.from(Config.defaults().with(property, value))).getMessage();
    }
}

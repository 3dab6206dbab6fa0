package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

class OffloadCommandTest {
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    @Timeout(60)
    void planPrintsTheResourceTableAndTheSeedsColumns() {
        Result r = run("offload", "plan", "--coll", "barrier", "--n", "8", "--rank", "0", "--dump");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*counters\\s+1\\s+9\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*deferred-work entries\\s+5\\s+6\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*rounds\\s+3\\s+3\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*Th\\s+Ot\\s+Iv/Cl/Cr\\s+Pq\\s+Ci.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\s4\\s+REMOTE_CNTR_ADD\\s+Iv 2\\s+2\\s+C0\\s+SIG\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\s7\\s+CNTR_ADD\\s+Cl -7\\s+-\\s+C0\\s+FIN.*"), r.out());
    }

    @Test
    @Timeout(60)
    void planWorksForAnyNAndRefusesWithAReason() {
        for (String coll : new String[] {"barrier", "allgather", "bcast", "reduce", "allreduce"}) {
            Result r = run("offload", "plan", "--coll", coll, "--n", "6");
            assertEquals(0, r.code(), coll + ": " + r.err());
            assertTrue(r.out().contains("counters"), r.out());
        }
        Result big = run("offload", "plan", "--coll", "allgather", "--n", "1000000");
        assertTrue(big.out().matches("(?s).*counters\\s+1\\s+60\\n.*"), big.out());
        assertTrue(big.out().matches("(?s).*table 6, the paper's formula\\s+1 \\(R = 42\\)\\s+63 = 21 x 3\\n.*"),
                big.out());
        assertTrue(big.out().matches("(?s).*maximum over \\d+ of 1000000 ranks.*\\n\\s+counters\\s+1\\s+60\\n.*"),
                big.out());
        assertTrue(big.out().contains("why they differ"), big.out());
        Result t3 = run("offload", "plan", "--coll", "trinaryx3", "--n", "64");
        assertEquals(0, t3.code(), t3.err());
        assertTrue(t3.out().matches("(?s).*maximum over all 64 ranks:\\n\\s+counters\\s+4\\s+9\\n.*"), t3.out());
        assertTrue(t3.out().matches("(?s).*5\\.1\\.1 \\(one segment\\)\\s+3\\s+9 = 6 receive \\+ 3 send\\n.*"), t3.out());
        Result bad = run("offload", "plan", "--coll", "allreduce", "--n", "4", "--bytes", "12");
        assertEquals(Launcher.EXIT_USAGE, bad.code());
        assertTrue(bad.err().contains("not a positive multiple"), bad.err());
        assertEquals(Launcher.EXIT_USAGE, run("offload", "plan", "--coll", "barrier", "--n", "0").code());
    }
}

package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimCommandTest {
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 2];
        all[0] = "sim";
        all[1] = "run";
        System.arraycopy(args, 0, all, 2, args.length);
        int code = cl.execute(all);
        return new Run(code, out.toString(), err.toString());
    }

    /** One JSON object per row, and the LogGP options reach the model (binomial bcast: log2 P steps of o + L + o). */
    @Test
    void jsonRowsWithLogGPOptions() {
        Run r = run("--coll", "bcast", "--algorithm", "binomial", "--nodes", "4,2^3", "--sizes", "1", "--json",
                "--L", "1000", "--o", "100", "--g", "50", "--G", "0", "--O", "0", "--no-progress");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(2, lines.size(), r.out());
        for (String key : List.of("\"coll\":\"bcast\"", "\"algorithm\":\"binomial\"", "\"mode\":\"host\"",
                "\"size\":1")) {
            assertTrue(lines.get(0).contains(key), lines.get(0));
        }
        assertTrue(lines.get(0).contains("\"nodes\":4,") && lines.get(0).contains("\"completion_ns\":2400,"),
                lines.get(0));
        assertTrue(lines.get(1).contains("\"nodes\":8,") && lines.get(1).contains("\"completion_ns\":3600,"),
                lines.get(1));
    }

    @Test
    void csvAndPlot(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("r.csv");
        Path png = dir.resolve("r.png");
        Run r = run("--coll", "allreduce", "--algorithm", "ring", "--network", "packet", "--topology", "fattree:k=2",
                "--nodes", "8", "--sizes", "64,4k", "--dtype", "double", "--csv", csv.toString(), "--plot",
                png.toString(), "--no-progress");
        assertEquals(0, r.code(), r.err());
        List<String> rows = Files.readAllLines(csv);
        assertEquals(3, rows.size());
        assertTrue(rows.get(0).startsWith("coll,algorithm,mode,network,topology,nodes,ppn,ranks,size,completion_ns"));
        assertTrue(Files.size(png) > 1000);
    }

    @Test
    void unavailableModesAndBadInputAreUsageErrors() {
        Run nic = run("--coll", "alltoall", "--mode", "nic", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, nic.code());
        assertTrue(nic.err().contains("has no offloaded program"), nic.err());
        Run sw = run("--coll", "allreduce", "--mode", "switch", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, sw.code());
        assertTrue(sw.err().contains("not available yet"), sw.err());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--nodes", "four").code());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--algorithm", "ring", "--nodes", "4").code());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--network", "packet", "--topology", "thesis",
                "--nodes", "65").code());
    }
}

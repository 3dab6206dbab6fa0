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
        Run sw = run("--coll", "bcast", "--mode", "switch", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, sw.code());
        assertTrue(sw.err().contains("allreduce only"), sw.err());
        Run leaders = run("--coll", "allreduce", "--mode", "switch", "--algorithm", "ring", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, leaders.code());
        assertTrue(leaders.err().contains("node or socket"), leaders.err());
        Run tree = run("--coll", "allreduce", "--mode", "switch", "--topology", "fattree:k=2", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, tree.code());
        assertTrue(tree.err().contains("leafspine"), tree.err());
        Run inc = run("--coll", "allreduce", "--algorithm", "inc", "--nodes", "4");
        assertEquals(Launcher.EXIT_USAGE, inc.code());
        assertTrue(inc.err().contains("--mode switch"), inc.err());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--nodes", "four").code());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--algorithm", "ring", "--nodes", "4").code());
        assertEquals(Launcher.EXIT_USAGE, run("--coll", "bcast", "--network", "packet", "--topology", "bcl3",
                "--nodes", "65").code());
    }

    /** Every mode answers the same options with the same JSON row fields. */
    @Test
    void allThreeModesGiveJsonRows() {
        for (String mode : List.of("host", "nic", "switch")) {
            Run r = run("--coll", "allreduce", "--mode", mode, "--network", "packet", "--topology",
                    "leafspine:hosts=2,spines=1", "--nodes", "4", "--ppn", "2", "--sizes", "64", "--dtype", "int",
                    "--json", "--no-progress");
            assertEquals(0, r.code(), mode + ": " + r.err());
            String row = r.out().strip();
            for (String key : List.of("\"coll\":\"allreduce\"", "\"mode\":\"" + mode + "\"", "\"nodes\":4,",
                    "\"size\":64,", "\"algorithm\":", "\"completion_ns\":")) {
                assertTrue(row.contains(key), mode + ": " + row);
            }
        }
        Run socket = run("--coll", "allreduce", "--mode", "switch", "--algorithm", "socket", "--topology",
                "leafspine:hosts=3,spines=2", "--nodes", "9", "--ppn", "8", "--sizes", "256", "--dtype", "int",
                "--json", "--no-progress");
        assertEquals(0, socket.code(), socket.err());
        assertTrue(socket.out().contains("\"algorithm\":\"socket\""), socket.out());
    }

    private static Run experiment(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "experiment";
        System.arraycopy(args, 0, all, 1, args.length);
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] cmd = new String[all.length + 1];
        cmd[0] = "sim";
        System.arraycopy(all, 0, cmd, 1, all.length);
        return new Run(cl.execute(cmd), out.toString(), err.toString());
    }

    /** The experiments print the papers' tables from the shipped calibrations; a wrong name is a usage error. */
    @Test
    void experimentsPrintTheSeedsTables() {
        Path docs = Path.of("..", "docs", "sim");
        Run nic = experiment("nic-reduce", "--calibration", docs.resolve("nic-reduce.cal").toString(),
                "--no-progress");
        assertEquals(0, nic.code(), nic.err());
        for (String s : List.of("Table 1: message size 16 B", "Table 5: message size 48 B", "26.174", "15.286",
                "speed-up grows with node count")) {
            assertTrue(nic.out().contains(s), s + " in\n" + nic.out());
        }
        Path outDir = Path.of("target", "sim-experiment-out");
        Run inc = experiment("inc-allreduce", "--calibration", docs.resolve("inc-allreduce.cal").toString(),
                "--json", "--no-progress", "--out", outDir.toString());
        assertEquals(0, inc.code(), inc.err());
        for (String ext : List.of("csv", "json", "png", "svg")) {
            Path f = outDir.resolve("inc-allreduce." + ext);
            assertTrue(Files.isRegularFile(f) && inc.err().contains("wrote " + f), f + " " + inc.err());
        }
        assertEquals(3 * 7 * 3 * 3, inc.out().lines().count());
        assertTrue(inc.out().contains("\"published_us\":53.730"), "table 6, 256 B, host PPN 64");
        Run fit = experiment("nic-reduce", "--calibration", docs.resolve("nic-reduce.cal").toString(), "--fit",
                "--json", "--no-progress");
        assertEquals(0, fit.code(), fit.err());
        assertTrue(fit.err().contains("fit: o_s, o_r = 2893") && fit.err().contains("fit: nic_process = 2066"),
                fit.err());
        assertEquals(50, fit.out().lines().count());
        Run bad = experiment("nic-allgather", "--no-progress");
        assertEquals(Launcher.EXIT_USAGE, bad.code());
        assertTrue(bad.err().contains("nic-reduce, inc-allreduce") && bad.err().contains("mnc-rails"), bad.err());
        // a [BCL-3] experiment through the same options: the fit on table 5.3's G, one JSON object per cell, files
        Run dual = experiment("bcl3-dual-nic", "--calibration", docs.resolve("bcl3.cal").toString(), "--fit", "--json",
                "--no-progress", "--out", outDir.toString());
        assertEquals(0, dual.code(), dual.err());
        assertTrue(dual.err().contains("fit: packet_gap = "), dual.err());
        assertEquals(3, dual.out().lines().count(), dual.out());
        assertTrue(dual.out().contains("\"published\":251.880") && dual.out().contains("\"unit\":\"MB/s\""), dual.out());
        for (String ext : List.of("csv", "json", "png", "svg")) {
            assertTrue(Files.isRegularFile(outDir.resolve("bcl3-dual-nic." + ext)), ext);
        }
        Run missing = experiment("nic-reduce", "--calibration", "no/such.cal", "--no-progress");
        assertEquals(Launcher.EXIT_USAGE, missing.code());
        assertTrue(missing.err().contains("not found"), missing.err());
    }
}

package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Drained hosts: {@code tutti host} keeps the list, and a placement from hostfiles and host lists leaves them out. */
@Timeout(60)
class DrainListTest {
    @TempDir
    Path dir;

    /** Runs {@code tutti host ARGS} on the list in {@code dir}: exit code, then out and err. */
    private String[] host(String... args) {
        CommandLine cl = Main.commandLine();
        HostCommand cmd = cl.getSubcommands().get("host").getCommand();
        cmd.list = new DrainList(dir.resolve("drained-hosts"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "host";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = cl.execute(all);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void drainListAndUndrainKeepTheFile() throws Exception {
        assertTrue(host("list")[1].startsWith("no drained hosts"));
        assertEquals("0", host("drain", "node3")[0]);
        assertTrue(host("drain", "NODE3")[1].contains("was drained already"));
        assertEquals("0", host("drain", "node5")[0]);
        String list = host("list")[1];
        assertTrue(list.startsWith("node3  # drained ") && list.contains("\nnode5  # drained "), list);
        assertTrue(Files.readString(dir.resolve("drained-hosts")).startsWith("# hosts 'tutti run' leaves out"));
        assertTrue(host("undrain", "node3")[1].startsWith("undrained node3"));
        assertTrue(host("undrain", "node3")[1].contains("was not drained"));
        assertEquals(Map.of("node5", new DrainList(dir.resolve("drained-hosts")).read().get("node5")),
                new DrainList(dir.resolve("drained-hosts")).read());
    }

    @Test
    void badActionsAndHostsAreUsageErrors() {
        assertEquals("2", host("drain")[0]);
        assertTrue(host("drain")[2].contains("name the host"));
        assertEquals("2", host("list", "node1")[0]);
        assertEquals("2", host("remove", "node1")[0]);
        assertTrue(host("remove", "node1")[2].contains("unknown action 'remove'"));
        assertEquals("2", host("drain", "#x")[0]);
    }

    @Test
    void theFileIsNamedByTheVariableElseTheConfigDirectory() {
        assertEquals(Path.of("/x/list"), DrainList.standard(Map.of(DrainList.VARIABLE, "/x/list")).file());
        assertEquals(Path.of("/cfg/tutti/drained-hosts"), DrainList.standard(Map.of("XDG_CONFIG_HOME", "/cfg")).file());
        assertTrue(DrainList.standard(Map.of()).file().endsWith(Path.of(".config", "tutti", "drained-hosts")));
    }

    private PlacementOptions options(String... args) {
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args);
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        run.placement.drainList = new DrainList(dir.resolve("drained-hosts"));
        return run.placement;
    }

    @Test
    void aPlacementLeavesOutDrainedHostsAndSaysSo() throws Exception {
        Path hostfile = dir.resolve("hosts");
        Files.writeString(hostfile, "a slots=2\nb slots=2\nc slots=2\n");
        new DrainList(dir.resolve("drained-hosts")).drain("B");
        PlacementOptions o = options("run", "--hostfile", hostfile.toString(), "Main");
        Placement p = o.placement(null);
        assertEquals(List.of("a", "c"), p.hosts().stream().map(Hosts.Host::name).toList());
        assertEquals("leaving out drained host b (tutti host list; tutti host undrain HOST brings one back)",
                o.skippedNotice());
        PlacementOptions list = options("run", "--host", "a:1,b:1", "Main");
        assertEquals(List.of("a"), list.placement(null).hosts().stream().map(Hosts.Host::name).toList());
        PlacementOptions none = options("run", "--host", "a:1", "Main");
        none.placement(null);
        assertNull(none.skippedNotice());
    }

    @Test
    void aPlacementWithEveryHostDrainedIsAnError() throws Exception {
        DrainList drained = new DrainList(dir.resolve("drained-hosts"));
        drained.drain("a");
        drained.drain("b");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> options("run", "--host", "a:1,b:1", "Main").placement(null));
        assertEquals("every host named is drained (a, b; tutti host list): 'tutti host undrain HOST' brings one back",
                e.getMessage());
        assertFalse(drained.drained("c"));
    }
}

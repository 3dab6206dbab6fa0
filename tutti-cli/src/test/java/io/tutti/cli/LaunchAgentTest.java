package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --hostfile}, {@code --host} and {@code --launch-agent} from the command line to the ranks.
 * The launch agent is a shell script standing in for ssh: one that runs the command here as a
 * remote shell would, one that cannot connect (exit 255) and one whose host has no java (127).
 */
@Timeout(120)
class LaunchAgentTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** An executable script {@code name} with {@code body} after the #! line. */
    private Path script(String name, String body) throws IOException {
        Path p = Files.writeString(dir.resolve(name), "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    /** The placement options as {@code tutti run} would parse them, then the placement for -n {@code ranks}. */
    private static Placement placement(Integer ranks, String... options) {
        List<String> args = new java.util.ArrayList<>(List.of("run"));
        if (ranks != null) {
            args.addAll(List.of("-n", ranks.toString()));
        }
        args.addAll(List.of(options));
        args.add("Main");
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args.toArray(String[]::new));
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        return run.placement.placement(ranks);
    }

    private static String problem(Integer ranks, String... options) {
        try {
            placement(ranks, options);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("no error for " + List.of(options));
    }

    private int run(String... args) {
        PrintStream saved = System.err;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new java.io.PrintWriter(err, true));
            return cl.execute(args);
        } finally {
            System.setErr(saved);
        }
    }

    private int launch(int ranks, Placement where) {
        return launch(ranks, where, false);
    }

    /** {@link LauncherTest.Program} with {@code args}, its ranks as threads of one JVM per host with {@code threads}. */
    private int launch(int ranks, Placement where, boolean threads, String... args) {
        Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "tutti run");
        return launcher.run(Launcher.Options.of(ranks, LauncherTest.Program.class.getName(), args).withClasspath("")
                .withTimeout(Duration.ofSeconds(60)).withTagOutput(true).withPlacement(where).withThreads(threads)
                .withVerbose(true));
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theOptionsBecomeOnePlacement() throws IOException {
        Path hosts = Files.writeString(dir.resolve("hosts"), "# two nodes\nn0 slots=4\nn1 slots=2 max_slots=3\n");
        Placement p = placement(null, "--hostfile", hosts.toString());
        assertEquals(6, p.slots());
        assertEquals("ssh", p.launchAgent());
        assertEquals(List.of("n0", "n0", "n0", "n0", "n1"), List.of(0, 1, 2, 3, 4).stream()
                .map(r -> p.layout(5).host(r)).toList());
        assertEquals(2, placement(null, "-H", "a,b").slots());
        Placement agent = placement(8, "--host", "a:4,b:4", "--launch-agent", "ssh -p 2222");
        assertEquals("ssh -p 2222", agent.launchAgent());
        Placement prefixed = placement(8, "--host", "a:4,b:4", "--exec-prefix", "ip netns exec {host}");
        assertEquals(null, prefixed.launchAgent());
        assertEquals(7, placement(7, "--host", "a:2,b:2", "--oversubscribe").counts(7)[0]
                + placement(7, "--host", "a:2,b:2", "--oversubscribe").counts(7)[1]);
        assertEquals(null, placement(4, "--hosts", "a,b").launchAgent(), "--hosts starts ranks as it always did");
    }

    @Test
    void badPlacementsSayWhatToDo() {
        assertEquals("-n 9 is more than the 8 slots of the hosts (a:4, b:4): give -n 8 or less, more slots, or"
                + " --oversubscribe to run more ranks than slots", problem(9, "--host", "a:4,b:4"));
        assertEquals("give the hosts one way: --hostfile FILE, --host a:4,b:4 or --hosts a,b --ppn 4",
                problem(2, "--host", "a", "--hosts", "b"));
        assertEquals("--launch-agent and --exec-prefix both say how ranks start: give one",
                problem(2, "--host", "a:2", "--launch-agent", "rsh", "--exec-prefix", "ssh {host}"));
        assertTrue(problem(2, "--hosts", "a,b", "--launch-agent", "rsh").startsWith("--launch-agent starts ranks on"
                + " the hosts of --hostfile or --host"));
        assertTrue(problem(2, "--host", "a:2", "--ppn", "2").startsWith("--ppn goes with --hosts"));
        assertEquals("--ppn must be at least 1, got 0", problem(2, "--hosts", "a", "--ppn", "0"));
        assertTrue(problem(null, "--hosts", "a,b").startsWith("--hosts without --ppn spreads the -n ranks evenly"));
        assertTrue(problem(3, "--hostfile", dir.resolve("absent").toString()).endsWith("there is no such file"));
    }

    @Test
    void tuttiRunRefusesWhatDoesNotFitBeforeStartingAnything() {
        assertEquals(Launcher.EXIT_USAGE, run("run", "-n", "5", "--host", "a:2,b:2", "Main"));
        assertTrue(errors().contains("tutti run: -n 5 is more than the 4 slots of the hosts (a:2, b:2): give -n 4"
                + " or less, more slots, or --oversubscribe"), errors());
        assertEquals(Launcher.EXIT_USAGE, run("run", "-n", "2", "--threads", "--on-failure", "continue", "Main"));
        assertTrue(errors().contains("threads of this one JVM die together: leave out --threads, or give hosts"),
                errors());
        assertEquals(Launcher.EXIT_USAGE, run("run", "Main"));
        assertTrue(errors().contains("tutti run: give the number of ranks with -n N"), errors());
        assertEquals(Launcher.EXIT_USAGE, run("run", "-n", "2", "--threads", "--jvm-opt=-Xmx1g", "Main"));
        assertTrue(errors().contains("--jvm-opt -Xmx1g is for rank JVMs, and with --threads on this host the ranks are"
                + " threads of this JVM"), errors());
        assertEquals(Launcher.EXIT_USAGE, run("bench", "latency", "--threads", "--jvm-opt=-Xmx1g"));
        assertTrue(errors().contains("give JVM options through JAVA_TOOL_OPTIONS"), errors());
        assertEquals(Launcher.EXIT_USAGE, run("bench", "latency", "-n", "3", "--host", "a:2"));
        assertTrue(errors().contains("tutti bench: -n 3 is more than the 2 slots"), errors());
    }

    @Test
    void ranksOnOtherHostsStartThroughTheAgentAndOnThisOneDirectly() throws IOException {
        // A remote shell here: drops the host, runs the rest as ssh's remote side would (one line, parsed anew).
        Path log = dir.resolve("agent.log");
        Path agent = script("agent", "echo \"$1\" >> '" + log + "'\nshift\nexec /bin/sh -c \"$*\"");
        Placement far = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("faraway", 2, 0)),
                false, null, agent.toString(), java.util.Map.of());
        assertEquals(0, launch(3, far), errors());
        String text = out.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("[" + r + "] rank " + r + " of 3\n"), text);
        }
        assertEquals(List.of("faraway", "faraway"), Files.readAllLines(log), "ranks 1 and 2 through the agent only");
    }

    /**
     * With --threads and hosts, each host's ranks are threads of one JVM there: one start through the
     * agent for the two ranks of the far host, one JVM here for the other, each line tagged by its rank.
     */
    @Test
    void withThreadsEachHostRunsItsRanksInOneJvm() throws IOException {
        Path log = dir.resolve("agent.log");
        Path agent = script("agent", "echo \"$1\" >> '" + log + "'\nshift\nexec /bin/sh -c \"$*\"");
        Placement far = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("faraway", 2, 0)),
                false, null, agent.toString(), java.util.Map.of());
        assertEquals(0, launch(3, far, true), errors());
        String text = out.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("[" + r + "] rank " + r + " of 3\n"), text);
        }
        assertEquals(List.of("faraway"), Files.readAllLines(log), "one JVM for ranks 1 and 2, through the agent");
        assertTrue(errors().contains("tutti run: rank 0 is pid "), errors());
        assertTrue(errors().contains("tutti run: ranks 1-2 (threads of one JVM) are pid "), errors());
        assertFalse(errors().contains("tutti run: rank 0 is pid " + ProcessHandle.current().pid() + " "),
                "rank 0 is a JVM of its own, not the launcher's");
    }

    /**
     * A rank thread that throws ends its host's JVM: that JVM names the rank, the launcher names the
     * host's ranks and their code, and the job ends with it.
     */
    @Test
    void aRankThreadThatThrowsIsNamedAndEndsTheJob() throws IOException {
        Path agent = script("agent", "shift\nexec /bin/sh -c \"$*\"");
        Placement far = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("faraway", 2, 0)),
                false, null, agent.toString(), java.util.Map.of());
        assertEquals(1, launch(3, far, true, "fail"), errors());
        String text = errors();
        assertTrue(text.contains("tutti run: rank 1 failed: java.lang.IllegalStateException: rank 1 was told to fail"),
                text);
        assertTrue(text.contains("tutti run: ranks 1-2 (threads of one JVM) on host faraway (through '" + agent
                + "') exited with code 1"), text);
    }

    /**
     * A source program across hosts with --threads: its classes travel to the far host's JVM once,
     * and each rank thread there defines them anew, so each has statics of its own.
     */
    @Test
    void aSourceProgramsRankThreadsOnAFarHostHaveStaticsOfTheirOwn() throws IOException {
        Path src = Files.writeString(dir.resolve("Count.java"), """
                import io.tutti.Tutti;

                public class Count {
                    static int started;

                    public static void main(String[] args) {
                        try (Tutti tutti = Tutti.init(args)) {
                            started++;
                            tutti.world().barrier();
                            System.out.println("rank " + tutti.world().rank() + " started " + started);
                        }
                    }
                }
                """);
        Path agent = script("agent", "shift\nexec /bin/sh -c \"$*\"");
        Placement far = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("faraway", 2, 0)),
                false, null, agent.toString(), java.util.Map.of());
        Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "tutti run");
        assertEquals(0, launcher.run(Launcher.Options.of(3, src.toString()).withClasspath("").withTagOutput(true)
                .withTimeout(Duration.ofSeconds(60)).withPlacement(far).withThreads(true)), errors());
        String text = out.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("[" + r + "] rank " + r + " started 1\n"), text);
        }
    }

    @Test
    void anUnreachableHostIsNamedOnceWithTheAgentsLastWords() throws IOException {
        Path agent = script("agent", "echo 'debug1: trying' >&2\necho \"ssh: connect to host $1 port 22: Connection"
                + " refused\" >&2\nexit 255");
        Placement p = new Placement(List.of(new Hosts.Host("node7", 2, 0)), false, null, agent.toString(),
                java.util.Map.of());
        assertEquals(255, launch(2, p), errors());
        String text = errors();
        assertTrue(text.matches("(?s).*tutti run: cannot reach host node7 through '" + agent + "' to start rank [01]:"
                + " ssh: connect to host node7 port 22: Connection refused.*"), text);
        assertEquals(1, text.split("cannot reach host", -1).length - 1, text);
        assertFalse(text.contains("Exception") || text.contains("\tat "), text);
    }

    @Test
    void aHostWithoutTheJdkIsNamedWithThePathToInstall() throws IOException {
        Path agent = script("agent", "echo \"env: '/nowhere/bin/java': No such file or directory\" >&2\nexit 127");
        Placement p = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("node8", 1, 0)), false,
                null, agent.toString(), java.util.Map.of());
        assertEquals(127, launch(2, p), errors());
        String text = errors();
        String home = io.tutti.os.Platform.JAVA_HOME;
        assertTrue(text.contains("tutti run: host node8 has no JDK 25 at " + home + " (rank 1 could not start there"
                + " through '" + agent + "'): install one there (the same path)"), text);
        assertEquals(1, text.split("has no JDK 25", -1).length - 1, text);
    }
}

package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A Slurm allocation as {@code tutti run} reads it from the environment: nodes and their tasks as
 * slots, the srun each rank starts through, and the errors that say what to do. {@code srun} and
 * {@code scontrol} are stand-in scripts on a PATH of the test's own; the real ones run in SlurmIT.
 */
@Timeout(120)
class SlurmAllocationTest {
    @TempDir
    Path dir;

    /** An executable script {@code name} in the test's PATH directory, with {@code body} after the #! line. */
    private Path script(String name, String body) throws IOException {
        Path p = Files.writeString(dir.resolve(name), "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    /** The environment of a job step in Slurm job 7 on {@code nodes} with {@code tasks} per node. */
    private Map<String, String> job(String nodes, String tasks) throws IOException {
        script("srun", "exit 99");
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_JOB_ID", "7");
        env.put("SLURM_JOB_NODELIST", nodes);
        env.put("SLURM_TASKS_PER_NODE", tasks);
        env.put("PATH", "/nowhere:" + dir);
        return env;
    }

    private static String problem(Map<String, String> env) {
        return assertThrows(IllegalArgumentException.class, () -> SlurmAllocation.find(env,
                list -> List.of("n0", "n1", "n2"))).getMessage();
    }

    @Test
    void outsideSlurmThereIsNoAllocation() {
        assertNull(SlurmAllocation.find(Map.of("PATH", "/usr/bin")));
        assertNull(SlurmAllocation.find(Map.of("SLURM_JOB_ID", " ")));
    }

    @Test
    void theNodesGetTheirTasksAsSlotsAndEachRankAStepOfItsOwn() throws IOException {
        Map<String, String> env = job("n[0-3]", "2(x3),1");
        SlurmAllocation a = SlurmAllocation.find(env, list -> {
            assertEquals("n[0-3]", list);
            return List.of("n0", "n1", "n2", "n3");
        });
        assertEquals("[n0:2, n1:2, n2:2, n3:1]", a.hosts().toString());
        assertEquals("7", a.jobId());
        assertEquals(dir.resolve("srun") + " --nodes=1 --ntasks=1 --nodelist={host} --overlap --mpi=none --quiet"
                + " --export=ALL", a.template());
        assertNull(a.here(), "none of n0-n3 is this host");
        env.put("SLURMD_NODENAME", "n2");
        assertEquals("n2", SlurmAllocation.find(env, list -> List.of("n0", "n1", "n2", "n3")).here());
        // a list without brackets is its own expansion; the CPUs stand in for missing task counts
        env.remove("SLURM_TASKS_PER_NODE");
        env.put("SLURM_JOB_CPUS_PER_NODE", "4,8");
        env.put("SLURM_JOB_NODELIST", "a,b");
        assertEquals("[a:4, b:8]", SlurmAllocation.find(env, list -> {
            throw new AssertionError("expanded " + list);
        }).hosts().toString());
    }

    @Test
    void scontrolWritesOutTheNodeList() throws IOException {
        Map<String, String> env = job("n[0-2]", "1(x3)");
        script("scontrol", "[ \"$1 $2 $3\" = 'show hostnames n[0-2]' ] || exit 3\necho n0; echo n1; echo n2");
        assertEquals("[n0:1, n1:1, n2:1]", SlurmAllocation.find(env).hosts().toString());
        script("scontrol", "echo 'scontrol: error: bad list' >&2; exit 1");
        String failed = assertThrows(IllegalArgumentException.class, () -> SlurmAllocation.find(env)).getMessage();
        assertEquals("writing out Slurm's node list n[0-2] takes scontrol, which failed (exit code 1): name the"
                + " hosts with --hostfile or --host", failed);
        Files.delete(dir.resolve("scontrol"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlurmAllocation.find(env)).getMessage()
                .contains("takes scontrol, which is not on the PATH"));
    }

    @Test
    void anAllocationThatCannotBeReadSaysWhatToDo() throws IOException {
        Map<String, String> env = job("n[0-2]", "2(x2)");
        assertEquals("Slurm job 7 has 3 nodes (n[0-2]) but tasks for 2 (SLURM_TASKS_PER_NODE=2(x2)): name the"
                + " hosts and their slots with --hostfile or --host", problem(env));
        env.put("SLURM_TASKS_PER_NODE", "2(x3");
        assertEquals("Slurm job 7: SLURM_TASKS_PER_NODE '2(x3' is not a list of per-node counts such as 2(x3),1:"
                + " name the hosts and their slots with --hostfile or --host", problem(env));
        env.remove("SLURM_TASKS_PER_NODE");
        assertTrue(problem(env).startsWith("Slurm job 7 gives no tasks per node"), problem(env));
        env.remove("SLURM_JOB_NODELIST");
        assertTrue(problem(env).startsWith("Slurm job 7 (SLURM_JOB_ID) names no nodes"), problem(env));
        env.put("PATH", "/nowhere");
        assertEquals("inside Slurm job 7, but srun, which starts the ranks on its nodes, is not on the PATH: add"
                + " Slurm's commands to the PATH, or name the hosts with --hostfile or --host", problem(env));
    }

    @Test
    void srunGetsTheCommandsWordsAsTheyAreAndTheSecretOnStandardInput() throws IOException {
        SlurmAllocation a = SlurmAllocation.find(job("n[0-1]", "2(x2)"), list -> List.of("n0", "n1"));
        Placement p = new Placement(a.hosts(), false, a.template(), null, Map.of());
        List<String> cmd = List.of("java", "-cp", "lib/*", "Main");
        List<String> full = p.command("n1", cmd, Map.of("TUTTI_RANK", "2"));
        assertEquals(List.of(dir.resolve("srun").toString(), "--nodes=1", "--ntasks=1", "--nodelist=n1", "--overlap",
                "--mpi=none", "--quiet", "--export=ALL", "java", "-cp", "lib/*", "Main"), full);
        assertEquals("srun", p.remoteShell("n1"), "a remote start: the secret comes on standard input");
        assertEquals(List.of("n0", "n0", "n1", "n1"), List.of(0, 1, 2, 3).stream().map(r -> p.layout(4).host(r))
                .toList());
    }

    /** {@code tutti run} with these arguments in {@code env}; what it printed on stderr goes to {@code err}. */
    private static int run(Map<String, String> env, ByteArrayOutputStream err, String... args) {
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args);
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        run.environment = env;
        PrintStream saved = System.err;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            return run.call();
        } finally {
            System.setErr(saved);
        }
    }

    @Test
    void moreRanksThanTheAllocationsSlotsIsTheHostfilesErrorUnlessOversubscribed() throws IOException {
        Map<String, String> env = job("a,b", "2(x2)");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(Launcher.EXIT_USAGE, run(env, err, "run", "-n", "8", "Main"));
        assertEquals("tutti run: Slurm job 7: -n 8 is more than the 4 slots of the hosts (a:2, b:2): give -n 4 or"
                + " less, more slots, or --oversubscribe to run more ranks than slots\n", err.toString(
                StandardCharsets.UTF_8));
        PlacementOptions given = new PlacementOptions();
        given.oversubscribe = true;
        assertEquals(8, given.placement(8, SlurmAllocation.find(env)).layout(8).counts()[0]
                + given.placement(8, SlurmAllocation.find(env)).layout(8).counts()[1]);
    }

    @Test
    void hostsOrALauncherOnTheCommandLineWinOverTheAllocation() throws IOException {
        SlurmAllocation a = SlurmAllocation.find(job("a,b", "2(x2)"));
        PlacementOptions options = new PlacementOptions();
        options.hostList = List.of("c:3");
        assertTrue(options.choosesHosts());
        Placement p = options.placement(3, a);
        assertEquals("[c:3]", p.hosts().toString());
        assertEquals("ssh", p.launchAgent());
        options = new PlacementOptions();
        options.execPrefix = "ip netns exec {host}";
        assertTrue(options.choosesHosts());
        assertEquals(List.of(), options.placement(2, a).hosts());
        assertFalse(new PlacementOptions().choosesHosts());
    }

    /**
     * Through a stand-in srun that runs the command here as the real one runs it on a node (the
     * words as they are, the environment and standard input passed on), ranks get the job secret
     * on standard input and meet at tutti run's rendezvous.
     */
    @Test
    void ranksStartedThroughSrunJoinTheLaunchersRendezvous() throws IOException {
        assertEquals(List.of("--nodelist=localhost 1 none", "--nodelist=localhost 1 none"), throughSrun(false),
                "both ranks through srun, the secret not in their environment");
    }

    /** With --threads, one srun per node starts the JVM that runs that node's ranks as threads. */
    @Test
    void withThreadsOneSrunStartsANodesRanks() throws IOException {
        assertEquals(List.of("--nodelist=localhost 1 none"), throughSrun(true), "one JVM for both ranks");
    }

    /** Runs two ranks on an allocation of one node through a stand-in srun; the nodes and secrets srun saw. */
    private List<String> throughSrun(boolean threads) throws IOException {
        Path log = dir.resolve("srun.log");
        script("srun", "for a; do case \"$a\" in --nodelist=*) echo \"$a $TUTTI_SECRET_STDIN ${TUTTI_SECRET:-none}\""
                + " >> '" + log + "';; esac; done\nwhile :; do case \"$1\" in --*) shift;; *) break;; esac; done\n"
                + "exec \"$@\"");
        Map<String, String> env = new HashMap<>(Map.of("SLURM_JOB_ID", "7", "SLURM_JOB_NODELIST", "localhost",
                "SLURM_TASKS_PER_NODE", "2", "PATH", dir.toString()));
        Placement p = new PlacementOptions().placement(2, SlurmAllocation.find(env));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "tutti run");
        int code = launcher.run(Launcher.Options.of(2, LauncherTest.Program.class.getName()).withClasspath("")
                .withTimeout(Duration.ofSeconds(60)).withTagOutput(true).withPlacement(p).withThreads(threads));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("[0] rank 0 of 2\n") && text.contains("[1] rank 1 of 2\n"), text);
        return Files.readAllLines(log);
    }
}

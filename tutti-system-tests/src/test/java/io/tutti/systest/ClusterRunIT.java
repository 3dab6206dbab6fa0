package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tutti run --hostfile} over ssh on hosts that share nothing but the network and the root file
 * system ({@link Cluster}): the launcher on the first host, ranks started through each host's sshd,
 * shared memory between the ranks of a host and the rails between hosts, no file left in any host's
 * /dev/shm.
 */
@Timeout(300)
class ClusterRunIT {
    @BeforeEach
    void available() {
        Cluster.assumeAvailable();
    }

    @Test
    void fourHostsOfTwoRanksOverSsh() throws Exception {
        try (Cluster c = Cluster.start(4)) {
            List<String> cmd = runOver(c, "200s", "io.tutti.systest.EveryCollective");
            Cluster.Result r = c.exec(0, Duration.ofSeconds(240), cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            // 8 ranks: each shares memory with the other rank of its host and reaches six over the rails
            assertEquals(8, r.stdout().lines().filter(l -> l.endsWith("(6 over the network): every collective ok"))
                    .count(), r::toString);
            // the ranks of each other host started as sessions of one ssh connection to it
            String hosts = List.of(c.host(1), c.host(2), c.host(3)).toString();
            assertTrue(r.stderr().contains("one ssh connection per host for " + hosts + " of " + hosts), r::toString);
            assertNoJobDirectories(c, 4);
        }
    }

    /**
     * Spawned processes start on the hosts of the job's ranks, as its ranks did (over ssh, the secret
     * on standard input), and meet their parents there: over shared memory on one host and the
     * rails across; every spawned job's directory goes on every host.
     */
    @Test
    void ranksOnTwoHostsSpawnFourThatLandOnBoth() throws Exception {
        try (Cluster c = Cluster.start(2)) {
            List<String> cmd = runOver(c, "200s", "io.tutti.systest.Spawner", "4");
            Cluster.Result r = c.exec(0, Duration.ofSeconds(240), cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            assertEquals(4, r.stdout().lines().filter(l -> l.matches("parent \\d of 4: spawned 4, ok")).count(),
                    r::toString);
            assertEquals(4, r.stdout().lines().filter(l -> l.matches("child \\d of 4 with 4 parents: ok")).count(),
                    r::toString);
            assertTrue(r.stderr().contains("spawned job "), r::toString);
            // two on each host: spawned process k goes where the job's rank k runs
            for (String host : c.hosts()) {
                assertEquals(2, r.stdout().lines().filter(l -> l.matches("child \\d runs on " + host + " with .*"))
                        .count(), r::toString);
            }
            assertNoJobDirectories(c, 2);
        }
    }

    /**
     * {@code tutti status} on the launcher's host shows the ranks of the other hosts too: they send
     * their counters to the launcher every second, and the counts there are the ranks' own.
     */
    @Test
    void theLaunchersHostSeesTheCountersOfEveryHostsRanks() throws Exception {
        try (Cluster c = Cluster.start(2)) {
            Path dir = Files.createDirectories(c.dir().resolve("marks"));
            int rounds = 3;
            List<String> run = runOver(c, "150s", "io.tutti.systest.Counted", dir.toString(), Integer.toString(rounds));
            run.add(1, "TUTTI_RAILS=eth0,eth0");   // two rails, so that one can be taken down
            List<String> cmd = c.command(0, run.toArray(String[]::new));
            Path err = c.dir().resolve("launcher.err");
            Process launcher = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).start();
            try {
                for (int r = 0; r < 4; r++) {
                    Path done = dir.resolve("rank-" + r + ".done");
                    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                    while (!Files.exists(done)) {
                        assertTrue(System.nanoTime() < deadline && launcher.isAlive(), () -> read(err));
                        Thread.sleep(50);
                    }
                }
                String id = new Launch.Result(0, "", read(err), Duration.ZERO).jobId();
                // each rank sent one message a round to each other rank, and one big one: as the ranks
                // counted them, once the copies of the other host's ranks have caught up (every second)
                long expected = (long) rounds * 3 + 1;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                String json;
                while (true) {
                    List<String> status = new ArrayList<>(Launch.tutti("status", id, "--json"));
                    Cluster.Result r = c.exec(0, status.toArray(String[]::new));
                    json = r.stdout();
                    com.fasterxml.jackson.databind.JsonNode ranks = new com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(json.isBlank() ? "{}" : json).path("ranks");
                    boolean all = ranks.size() == 4;
                    for (com.fasterxml.jackson.databind.JsonNode rank : ranks) {
                        all &= rank.get("shm").get("messagesSent").asLong() + rank.get("net").get("messagesSent")
                                .asLong() == expected;
                    }
                    if (all || System.nanoTime() > deadline) {
                        break;
                    }
                    Thread.sleep(300);
                }
                String seen = json;
                assertTrue(seen.contains("\"rank\":3") || seen.contains("\"rank\" : 3"), () -> seen + "\n" + read(err));
                com.fasterxml.jackson.databind.JsonNode ranks = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(seen).path("ranks");
                assertEquals(4, ranks.size(), seen);
                for (com.fasterxml.jackson.databind.JsonNode rank : ranks) {
                    assertEquals(expected, rank.get("shm").get("messagesSent").asLong()
                            + rank.get("net").get("messagesSent").asLong(), rank::toString);
                }
                // and the other host's ranks reach two of their peers over the rails, as they counted
                assertTrue(ranks.get(3).get("net").get("messagesSent").asLong() > 0, seen);
                // their own directory is on their host: the launcher's host holds only copies of them
                assertTrue(c.exec(0, "test", "-e", "/dev/shm/tutti-" + id + "/rank-3.pid").exitCode() != 0,
                        "rank 3 is not on the launcher's host");

                // rail commands for it travel through the launcher: rail 1 of rank 3 down from here
                for (String action : List.of("down", "up")) {
                    Cluster.Result rail = c.exec(0, Launch.tutti("rail", id, action, "1", "--rank", "3")
                            .toArray(String[]::new));
                    assertEquals(0, rail.exitCode(), rail::toString);
                    String said = action.equals("down") ? "out of service" : "in service";
                    assertTrue(rail.stdout().matches("(?s)rank 3: rail 1 \\(.*\\) " + said + "\\R"), rail::toString);
                    // the rank's counters, as its next copies bring them, show the rail's new state
                    String want = action.equals("down") ? "down \\(admin\\)" : "free|busy";
                    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    String state;
                    do {
                        Thread.sleep(200);
                        Cluster.Result st = c.exec(0, Launch.tutti("status", id, "--json").toArray(String[]::new));
                        state = new com.fasterxml.jackson.databind.ObjectMapper().readTree(st.stdout()).path("ranks")
                                .path(3).path("rails").path(1).path("state").asText();
                    } while (!state.matches(want) && System.nanoTime() < until);
                    assertTrue(state.matches(want), action + ": rank 3's rail 1 is " + state);
                }
            } finally {
                Files.writeString(dir.resolve("go"), "");
            }
            try {
                assertTrue(launcher.waitFor(90, java.util.concurrent.TimeUnit.SECONDS), () -> read(err));
                assertEquals(0, launcher.exitValue(), () -> read(err));
            } finally {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
            }
            assertNoJobDirectories(c, 2);
        }
    }

    /**
     * {@code tutti run --hostfile Tally.java}: the program is compiled on the launcher's host, into its
     * private /dev/shm, and its classes (two files, a nested class) reach the ranks of the other hosts
     * through their ssh connection.
     */
    @Test
    void aSourceFileRunsOnHostsThatCannotSeeItsClasses() throws Exception {
        try (Cluster c = Cluster.start(2)) {
            Path src = Files.createDirectories(c.dir().resolve("src"));
            Files.writeString(src.resolve("Tally.java"), """
                    import io.tutti.Tutti;

                    public class Tally {
                        record Line(int rank, long sum) { }

                        public static void main(String[] args) throws Exception {
                            try (Tutti tutti = Tutti.init(args)) {
                                long[] v = {TallyPart.of(tutti.world().rank())};
                                tutti.world().allreduce(v, io.tutti.ReduceOp.SUM);
                                System.out.println(new Line(tutti.world().rank(), v[0]) + " on "
                                        + java.net.InetAddress.getLocalHost().getHostName());
                            }
                        }
                    }
                    """);
            Files.writeString(src.resolve("TallyPart.java"), """
                    class TallyPart {
                        static long of(int rank) {
                            return 10L * (rank + 1);
                        }
                    }
                    """);
            List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_JVM_OPTS=-Xmx128m -XX:TieredStopAtLevel=1"));
            cmd.addAll(Launch.tutti("run", "--hostfile", hostfile(c).toString(), "--launch-agent", "ssh -F "
                    + c.sshConfig(), "--timeout", "200s", src.resolve("Tally.java").toString()));
            Cluster.Result r = c.exec(0, Duration.ofSeconds(240), cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            for (int rank = 0; rank < 4; rank++) {
                // 10 + 20 + 30 + 40
                assertTrue(r.stdout().contains("Line[rank=" + rank + ", sum=100] on " + c.host(rank / 2)), r::toString);
            }
            assertFalse(Files.exists(src.resolve("Tally.class")), "tutti run leaves no classes beside the source");
            assertNoJobDirectories(c, 2);
        }
    }

    /** A hostfile of every host of {@code c}, two slots each, in the cluster's shared directory. */
    static Path hostfile(Cluster c) throws java.io.IOException {
        Path hostfile = c.dir().resolve("hostfile");
        StringBuilder lines = new StringBuilder("# the test cluster\n");
        for (String h : c.hosts()) {
            lines.append(h).append(" slots=2\n");
        }
        return Files.writeString(hostfile, lines);
    }

    /** {@code tutti run --hostfile} of {@code program} on host 0, over ssh, as a command line for that host. */
    private static List<String> runOver(Cluster c, String timeout, String... program) throws java.io.IOException {
        return runWith(c, List.of("--hostfile", hostfile(c).toString()), timeout, program);
    }

    /** {@code tutti run OPTIONS} of {@code program} on host 0, over ssh, as a command line for that host. */
    static List<String> runWith(Cluster c, List<String> options, String timeout, String... program) {
        List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_JVM_OPTS=-Xmx128m -XX:TieredStopAtLevel=1"));
        List<String> run = new ArrayList<>(List.of("run"));
        run.addAll(options);
        run.addAll(List.of("--launch-agent", "ssh -F " + c.sshConfig(), "--timeout", timeout, "--verbose", "--cp",
                Launch.testClasses()));
        cmd.addAll(Launch.tutti(run.toArray(String[]::new)));
        cmd.addAll(List.of(program));
        return cmd;
    }

    /** Waits for {@code rank-R.ready} of ranks 0 to n - 1 in {@code dir}; false after {@code limit}. */
    static boolean ready(Path dir, int n, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        for (int r = 0; r < n; r++) {
            while (!Files.exists(dir.resolve("rank-" + r + ".ready"))) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(50);
            }
        }
        return true;
    }

    /** A host whose sshd is down: the launcher names it and its rank within ssh's connect timeout. */
    @Test
    void aHostWhoseSshdIsDownIsNamedWithinTheConnectTimeout() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            c.stopSshd(2);
            Cluster.Result r = c.exec(0, Duration.ofSeconds(120), runOver(c, "100s", "io.tutti.systest.Hello")
                    .toArray(String[]::new));
            assertEquals(255, r.exitCode(), r::toString);
            assertTrue(r.stderr().contains("cannot reach host " + c.host(2) + " through 'ssh"), r::toString);
            assertEquals(1, r.stderr().lines().filter(l -> l.contains("cannot reach host")).count(), r::toString);
            // ssh gives up after its ConnectTimeout; the slack is for a loaded machine
            assertTrue(r.elapsed().compareTo(Cluster.CONNECT_TIMEOUT.plusSeconds(40)) < 0, r::toString);
            assertNoJobDirectories(c, 3);
        }
    }

    /**
     * A rank on another host is killed: every survivor gets the error naming it, and the launcher
     * exits non-zero naming the rank and its host.
     */
    @Test
    void aRankKilledOnAnotherHostIsNamedToEverySurvivorAndByTheLauncher() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            Path dir = Files.createDirectories(c.dir().resolve("marks"));
            List<String> cmd = c.command(0, runOver(c, "100s", "io.tutti.systest.AwaitDeadPeer", dir.toString(), "5")
                    .toArray(String[]::new));
            Path out = c.dir().resolve("launcher.out");
            Path err = c.dir().resolve("launcher.err");
            Process launcher = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try {
                assertTrue(ready(dir, 6, Duration.ofSeconds(120)), () -> "the ranks did not get ready:\n" + read(err));
                Thread.sleep(300); // the others are blocked in their receive by now, or about to be
                String pid = Files.readString(dir.resolve("rank-5.pid")).strip();
                assertEquals(0, c.exec(2, "kill", "-9", pid).exitCode());
                assertTrue(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), () -> read(err));
                assertTrue(launcher.exitValue() != 0, () -> read(err));
                String said = read(err);
                assertTrue(said.contains("rank 5 on host " + c.host(2) + " (through 'ssh"), said);
                assertFalse(said.contains("cannot reach"), said);
                String printed = read(out);
                for (int rank = 0; rank < 5; rank++) {
                    assertTrue(printed.contains("rank " + rank + " caught at "), "rank " + rank + ":\n" + printed
                            + "\n" + said);
                }
                assertTrue(printed.lines().filter(l -> l.contains(" caught at ")).allMatch(l -> l.contains("rank 5")),
                        printed);
            } finally {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
            }
            assertNoJobDirectories(c, 3);
        }
    }

    /** The launcher is killed: the ranks on every host stop by themselves and leave no files behind. */
    @Test
    void theLauncherKilledEndsTheRanksOnEveryHost() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            Path dir = Files.createDirectories(c.dir().resolve("marks"));
            List<String> cmd = c.command(0, runOver(c, "100s", "io.tutti.systest.AwaitDeadPeer", dir.toString(), "5")
                    .toArray(String[]::new));
            Path err = c.dir().resolve("launcher.err");
            Process launcher = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).start();
            try {
                assertTrue(ready(dir, 6, Duration.ofSeconds(120)), () -> "the ranks did not get ready:\n" + read(err));
                ProcessHandle java = launcher.descendants().filter(p -> p.info().command().map(x -> x.endsWith("/java"))
                        .orElse(false)).findFirst().orElseThrow();
                java.destroyForcibly();
                // the ranks see the launcher's connection close at once; 30 s is slack for a loaded machine
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                for (int h = 0; h < 3; h++) {
                    while (!c.exec(h, "sh", "-c", "pgrep -f 'systest[.]AwaitDeadPeer' || true").stdout().isBlank()) {
                        assertTrue(System.nanoTime() < deadline, "ranks still run on host " + c.host(h));
                        Thread.sleep(200);
                    }
                }
            } finally {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
            }
            // the killed launcher's own directory on host 0 is the next job's to sweep; the others are gone
            for (int h = 1; h < 3; h++) {
                Cluster.Result left = c.exec(h, "sh", "-c", "ls -d /dev/shm/tutti-* 2>/dev/null || true");
                assertTrue(left.stdout().isBlank(), "host " + c.host(h) + " keeps " + left.stdout());
            }
        }
    }

    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /**
     * No host keeps a job directory once its ranks have ended. A rank that was still starting when
     * its launcher gave up ends on its own (its rendezvous is gone) and removes its directory then:
     * seconds on a quiet machine, more on a loaded one, so each host gets up to 30 s.
     */
    static void assertNoJobDirectories(Cluster c, int hosts) throws Exception {
        for (int h = 0; h < hosts; h++) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            Cluster.Result left;
            while (true) {
                left = c.exec(h, "sh", "-c", "ls -d /dev/shm/tutti-* 2>/dev/null || true");
                if (left.stdout().isBlank() || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(200);
            }
            String kept = left.stdout();
            Cluster.Result ps = left.stdout().isBlank() ? left : c.exec(h, "ps", "-eo", "pid,etimes,args");
            String host = c.host(h);
            assertTrue(kept.isBlank(), () -> "host " + host + " keeps " + kept + "\n" + ps.stdout());
        }
    }
}

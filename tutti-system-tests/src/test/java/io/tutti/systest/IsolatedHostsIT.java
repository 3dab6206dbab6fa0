package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tutti run} across hosts that share nothing but a network ({@link IsolatedHosts}: own
 * /dev/shm, own PIDs), reached through an ssh-like remote shell: the launcher, on the first host's
 * network, is the rendezvous; the ranks of the other two hosts meet through it, share memory inside
 * a host and use the rails between hosts; a process without the secret is refused; when the
 * launcher is killed, every rank ends within 5 s and no host keeps a job directory; a rank whose
 * connection drops while its remote shell lives on is reported lost.
 */
@Timeout(240)
class IsolatedHostsIT {
    private static final Pattern RENDEZVOUS = Pattern.compile("rendezvous at \\S*(tcp:[0-9.]+:\\d+)");
    private static final Pattern JOB = Pattern.compile("job ([0-9a-f]+): ");

    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    /** Starts {@code tutti run} on host 0's network with the ranks on hosts 1 and 2 (two each). */
    private Launch.Running start(IsolatedHosts hosts, String... program) throws IOException {
        return startThrough(hosts, hosts.shell(), program);
    }

    private Launch.Running startThrough(IsolatedHosts hosts, String shell, String... program) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", hosts.hosts().getFirst(),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-cp", Launch.lib().toAbsolutePath() + "/*", "io.tutti.cli.Main",
                "run", "--verbose", "-n", "4", "--hosts", hosts.hosts().get(1) + "," + hosts.hosts().get(2), "--ppn",
                "2", "--exec-prefix", shell + " {host}", "--rendezvous-address", "10.100.0.1", "--rails", "r0",
                "--timeout", "150s", "--cp", Launch.testClasses()));
        cmd.addAll(List.of(program));
        Path out = Files.createTempFile(work, "stdout", ".txt");
        Path err = Files.createTempFile(work, "stderr", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        // Hosts with PIDs of their own share /tmp here, where JVMs of equal pid would fight over hsperfdata.
        pb.environment().put("TUTTI_JVM_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1 -XX:-UsePerfData");
        return new Launch.Running(pb.start(), out, err, System.nanoTime());
    }

    private static String await(Launch.Running job, Pattern p, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = p.matcher(Files.readString(job.stderr()));
            if (m.find()) {
                return m.group(1);
            }
            if (!job.process().isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        fail("the launcher did not print " + p + "\n--- stderr:\n" + Files.readString(job.stderr()));
        return null;
    }

    private void awaitReady(Launch.Running job) throws Exception {
        for (int rank = 0; rank < 4; rank++) {
            Launch.awaitFile(job, work.resolve("rank-" + rank + ".ready"), Duration.ofSeconds(120));
        }
    }

    @Test
    void ranksMeetThroughTheLauncherShareMemoryInsideAHostAndRefuseAProcessWithoutTheSecret() throws Exception {
        try (IsolatedHosts hosts = IsolatedHosts.create(3, work)) {
            Launch.Running job = start(hosts, "io.tutti.systest.ClusterJob", work.toString(), "wait");
            String address = await(job, RENDEZVOUS, Duration.ofSeconds(60));
            String jobId = await(job, JOB, Duration.ofSeconds(60));
            awaitReady(job);
            // the rank's command line, which anyone on its host can read, holds no secret
            String ps = hosts.run(1, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '");
            assertTrue(ps.contains("TUTTI_SECRET_STDIN=1") && !ps.contains("TUTTI_SECRET="), ps);
            // a process on host 2 that knows the job id and the address, but not the secret
            String foreign = hosts.run(2, Path.of(System.getProperty("java.home"), "bin", "java") + " -cp "
                    + Launch.testClasses() + ":" + Launch.lib().toAbsolutePath() + "/* io.tutti.systest.ForeignRank "
                    + address + " " + jobId);
            assertTrue(foreign.startsWith("refused: ") && foreign.contains("did not prove it holds the job secret"),
                    foreign);
            Files.writeString(work.resolve("go"), "");
            Launch.Result r = job.await(Duration.ofSeconds(150));
            assertExit(0, r);
            assertTrue(r.stderr().contains("refused a rendezvous connection: a client for rank 0 did not prove it"
                    + " holds the job secret"), r::toString);
            // two ranks per host share memory; each reaches the other host's two over the rails
            assertEquals(4, r.stdout().lines().filter(l -> l.endsWith(
                    ": 2 on its node, 2 over the network: exchange and allreduce ok")).count(), r::toString);
            for (int h = 1; h <= 2; h++) {
                assertEquals(List.of(), hosts.jobDirectories(h), "host " + h + " kept a job directory");
            }
            r.assertNoJobDirectory();
        }
    }

    @Test
    void killingTheLauncherEndsEveryRemoteRankWithinFiveSecondsAndLeavesNoJobDirectory() throws Exception {
        try (IsolatedHosts hosts = IsolatedHosts.create(3, work)) {
            Launch.Running job = start(hosts, "io.tutti.systest.ClusterJob", work.toString(), "wait");
            String jobId = await(job, JOB, Duration.ofSeconds(60));
            awaitReady(job);
            List<ProcessHandle> all = job.process().descendants().toList();
            List<ProcessHandle> ranks = all.stream().filter(p -> p.info().command()
                    .map(c -> c.endsWith("/java")).orElse(false)).toList();
            assertEquals(4, ranks.size(), ranks::toString);
            for (int h = 1; h <= 2; h++) {
                assertEquals(List.of("tutti-" + jobId), hosts.jobDirectories(h), "host " + h);
            }
            long killed = System.nanoTime();
            job.process().destroyForcibly();
            job.process().waitFor(10, TimeUnit.SECONDS);
            for (ProcessHandle p : ranks) {
                try {
                    p.onExit().get(killed + TimeUnit.SECONDS.toNanos(5) - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    fail("rank process " + p.pid() + " still runs 5 s after its launcher was killed\n--- stderr:\n"
                            + Files.readString(job.stderr()));
                }
            }
            // the ranks' own words: the launcher that relayed their standard error is dead
            String stderr = hosts.rankErrors();
            assertEquals(4, stderr.lines().filter(l -> l.contains("stops: its launcher has died")).count(), stderr);
            for (int h = 1; h <= 2; h++) {
                assertEquals(List.of(), hosts.jobDirectories(h), "host " + h + " kept a job directory");
            }
            // the killed launcher could not remove its own directory; the next job on its host does,
            // once the remote shells it started are gone as well
            for (ProcessHandle p : all) {
                p.onExit().get(20, TimeUnit.SECONDS);
            }
            Path own = ShmFiles.defaultRoot().resolve("tutti-" + jobId);
            Launch.Result next = Launch.run(work, Duration.ofSeconds(60), "run", "--threads", "-n", "1", "--cp",
                    Launch.testClasses(), "io.tutti.systest.Hello");
            assertExit(0, next);
            assertFalse(Files.exists(own), own + " was not swept by the next job");
        }
    }

    @Test
    void aRankWhoseConnectionDropsWhileItsRemoteShellLivesOnIsReportedLostOnce() throws Exception {
        try (IsolatedHosts hosts = IsolatedHosts.create(3, work)) {
            Launch.Running job = startThrough(hosts, hosts.lingeringShell(), "io.tutti.systest.ClusterJob",
                    work.toString(), "wait");
            awaitReady(job);
            ProcessHandle rank2 = job.process().descendants().filter(p -> p.info().command()
                    .map(c -> c.endsWith("/java")).orElse(false)).filter(p -> {
                        try {
                            return Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"))
                                    .contains("\0TUTTI_RANK=2\0");
                        } catch (IOException e) {
                            return false;
                        }
                    }).findFirst().orElseThrow();
            rank2.destroyForcibly();
            Launch.Result r = job.await(Duration.ofSeconds(60));
            assertExit(1, r);
            assertEquals(1, r.stderr().lines().filter(l -> l.contains("rank 2 on " + hosts.hosts().get(2)
                    + " lost its connection to the launcher without saying goodbye")).count(), r::toString);
        }
    }
}

package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The test cluster's hosts share nothing but the network and the root file system: each has its own
 * hostname, /dev/shm, /tmp, /run and PID space, reaches the others over the bridge, and runs an sshd
 * that the others log in to; closing the cluster leaves no namespace, process or file behind.
 */
@Timeout(120)
class ClusterIT {
    @BeforeEach
    void available() {
        Cluster.assumeAvailable();
    }

    @Test
    void eachHostHasItsOwnHostnameFilesAndPidSpace() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            Set<String> bootIds = new HashSet<>();
            for (int h = 0; h < 3; h++) {
                assertEquals(c.host(h), ok(c.exec(h, "hostname")).strip());
                // pid 1 there is the holder, seen from outside under its own pid
                assertTrue(ok(c.exec(h, "cat", "/proc/1/cmdline")).contains("tutti-host-" + c.host(h)));
                String nsPid = "NSpid:\\s+" + c.holderPid(h) + "\\s+1";
                assertTrue(Files.readString(Path.of("/proc/" + c.holderPid(h) + "/status")).lines()
                        .anyMatch(l -> l.matches(nsPid)), "the holder is not pid 1 on " + c.host(h));
                bootIds.add(ok(c.exec(h, "cat", "/proc/sys/kernel/random/boot_id")).strip());
                assertEquals(c.host(0), ok(c.exec(h, "getent", "hosts", c.host(0))).split("\\s+")[1]);
            }
            assertEquals(3, bootIds.size(), "boot ids: " + bootIds);
            // the JDK running this test is on every host, at the same path
            String java = ProcessHandle.current().info().command().orElseThrow();
            assertTrue(c.exec(2, java, "-version").stderr().contains("version \"" + Runtime.version().feature()));
            String mark = "tutti-mark-" + c.host(0);
            ok(c.exec(0, "sh", "-c", "touch /dev/shm/" + mark + " /tmp/" + mark + " /run/" + mark));
            // a process left running on host 0, with an argument no other process has
            ok(c.exec(0, "sh", "-c", "sleep 3600.125 </dev/null >/dev/null 2>&1 &"));
            String processes = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done";
            assertTrue(ok(c.exec(0, "sh", "-c", processes)).contains("sleep 3600.125"));
            assertEquals(0, c.exec(0, "sh", "-c", "test -e /dev/shm/" + mark + " && test -e /tmp/" + mark).exitCode());
            for (int h = 1; h < 3; h++) {
                for (String d : List.of("/dev/shm/", "/tmp/", "/run/")) {
                    assertNotEquals(0, c.exec(h, "test", "-e", d + mark).exitCode(),
                            d + mark + " seen on " + c.host(h));
                }
                String there = ok(c.exec(h, "sh", "-c", processes));
                assertFalse(there.contains("sleep 3600.125"), "host 0's process seen on " + c.host(h) + ":\n" + there);
                assertFalse(there.contains("tutti-host-" + c.host(0)), "host 0's holder seen on " + c.host(h));
            }
            for (String d : List.of("/dev/shm/", "/tmp/")) {
                assertFalse(Files.exists(Path.of(d + mark)), d + mark + " seen outside the cluster");
            }
        }
    }

    @Test
    void sshReachesEveryOtherHostAndFailsWithinTheConnectTimeout() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            String cfg = c.sshConfig().toString();
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++) {
                    if (a != b) {
                        assertEquals(c.host(b), ok(c.exec(a, "ssh", "-F", cfg, c.host(b), "hostname")).strip());
                    }
                }
            }
            // sshd listens on its host's address only
            assertEquals(255, c.exec(0, "ssh", "-F", cfg, "127.0.0.1", "true").exitCode());
            c.stopSshd(2);
            Cluster.Result r = c.exec(0, "ssh", "-F", cfg, c.host(2), "hostname");
            assertEquals(255, r.exitCode(), r::toString);
            // refused at once; the connect timeout bounds it even on a loaded machine (10 s of slack)
            assertTrue(r.elapsed().compareTo(Cluster.CONNECT_TIMEOUT.plusSeconds(10)) < 0, r::toString);
            assertEquals(c.host(1), ok(c.exec(0, "ssh", "-F", cfg, c.host(1), "hostname")).strip());
            c.startSshd(2);
            assertEquals(c.host(2), ok(c.exec(0, "ssh", "-F", cfg, c.host(2), "hostname")).strip());
            // a host whose cable is cut answers nothing: the connect timeout ends the attempt
            c.cable(1, false);
            r = c.exec(0, "ssh", "-F", cfg, c.host(1), "hostname");
            assertEquals(255, r.exitCode(), r::toString);
            assertTrue(r.elapsed().compareTo(Cluster.CONNECT_TIMEOUT.plusSeconds(10)) < 0, r::toString);
            c.cable(1, true);
            assertEquals(c.host(1), ok(c.exec(0, "ssh", "-F", cfg, c.host(1), "hostname")).strip());
        }
    }

    @Test
    void hostsReachEachOtherOverTheBridgeAndCloseLeavesNothing() throws Exception {
        Cluster c = Cluster.start(4);
        String sw = c.switchNamespace();
        Path dir = c.dir();
        List<Long> pids = new ArrayList<>();
        List<String> pidNamespaces = new ArrayList<>();
        try {
            for (int a = 0; a < 4; a++) {
                for (int b = 0; b < 4; b++) {
                    // the sshd of b greets a connection from a
                    String greet = "exec 3<>/dev/tcp/" + Cluster.address(b) + "/22 && head -c 7 <&3";
                    assertEquals("SSH-2.0", ok(c.exec(a, "bash", "-c", greet)),
                            "from " + c.host(a) + " to " + c.host(b));
                }
            }
            String outside = ok(Cluster.run(List.of("ip", "-o", "addr"), Duration.ofSeconds(20)));
            assertFalse(outside.contains("10.210.0."), "a cluster address outside the cluster:\n" + outside);
            ok(c.exec(1, "sh", "-c", "sleep 3600.25 </dev/null >/dev/null 2>&1 &"));
            for (int h = 0; h < 4; h++) {
                pidNamespaces.add(Files.readSymbolicLink(Path.of("/proc/" + c.holderPid(h) + "/ns/pid")).toString());
            }
            pids.addAll(Cluster.processesIn(pidNamespaces).stream().map(ProcessHandle::pid).toList());
            // each host: the holder, its sleep and sshd; host 1 also the sleep left running
            assertTrue(pids.size() >= 13, "processes in the hosts: " + pids);
            assertTrue(Files.isDirectory(dir));
            assertTrue(ok(Cluster.run(List.of("ip", "netns", "list"), Duration.ofSeconds(20))).contains(sw));
        } catch (Throwable t) {
            try {
                c.close();
            } catch (RuntimeException again) {
                t.addSuppressed(again);
            }
            throw t;
        }
        c.close();
        c.close(); // a second close does nothing, and does not fail
        List<String> netns = ok(Cluster.run(List.of("ip", "netns", "list"), Duration.ofSeconds(20))).lines()
                .map(l -> l.split(" ")[0]).toList();
        assertFalse(netns.contains(sw), sw + " is left: " + netns);
        assertFalse(Files.exists(dir), dir + " is left");
        List<ProcessHandle> alive = Cluster.processesIn(pidNamespaces);
        assertTrue(alive.isEmpty(), "processes left in the hosts: " + alive);
        for (long pid : pids) {
            assertTrue(ProcessHandle.of(pid).isEmpty() || !Cluster.inAny(pid, pidNamespaces),
                    "process " + pid + " is left");
        }
    }

    @Test
    void aFailedStartLeavesNothing() throws Exception {
        Set<String> before = leftovers();
        IOException e = assertThrows(IOException.class, () -> Cluster.start(2, List.of("NoSuchOption yes")));
        assertTrue(e.getMessage().contains("sshd"), e::getMessage);
        assertEquals(before, leftovers());
    }

    /** The switch namespaces and cluster directories there are now (to compare around a failed start). */
    private static Set<String> leftovers() throws Exception {
        Set<String> found = new HashSet<>(ok(Cluster.run(List.of("ip", "netns", "list"), Duration.ofSeconds(20)))
                .lines().map(l -> l.split(" ")[0]).filter(n -> n.startsWith("tcsw")).toList());
        try (Stream<Path> files = Files.list(Path.of("/var/tmp"))) {
            files.map(Path::toString).filter(f -> f.contains("tutti-cluster-")).forEach(found::add);
        }
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(p -> p.info().commandLine().orElse("").contains("tutti-host-"))
                    .forEach(p -> found.add("pid " + p.pid()));
        }
        return found;
    }

    private static String ok(Cluster.Result r) {
        assertEquals(0, r.exitCode(), r::toString);
        return r.stdout();
    }
}

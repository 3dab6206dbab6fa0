package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Output tagging, jars, argument pass-through, clear usage errors, and the clean-up of stale jobs. */
@Timeout(60)
class CommandLineIT {
    @TempDir
    Path work;

    @Test
    void taggedOutputPrefixesEveryLineWithTheRank() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "2", "--tag-output",
                "--timeout", "30s", "--cp", Launch.testClasses(), "io.tutti.systest.Hello", "--foo", "bar");
        assertExit(0, r);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.stdout().contains("[" + rank + "] hello from rank " + rank + " of 2, args [--foo, bar],"
                    + " secret ok\n"), r::toString);
            assertTrue(r.stdout().contains("[" + rank + "] partial line of rank " + rank + "\n"), r::toString);
            assertTrue(r.stderr().contains("[" + rank + "] note from rank " + rank + "\n"), r::toString);
        }
        assertTrue(r.stdout().lines().allMatch(l -> l.startsWith("[0] ") || l.startsWith("[1] ")), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void taggedOutputWorksForThreadsToo() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "3", "--threads",
                "--tag-output", "--timeout", "30s", "--cp", Launch.testClasses(), "io.tutti.systest.Hello", "-x");
        assertExit(0, r);
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.stdout().contains("[" + rank + "] hello from rank " + rank + " of 3, args [-x], secret ok\n"),
                    r::toString);
        }
        r.assertNoJobDirectory();
    }

    /** As mpirun's --stdin: rank 0 by default, the rank named, every rank, or none; the others see end of input. */
    @Test
    void standardInputGoesToTheRanksStdinNames() throws Exception {
        Path input = Files.writeString(work.resolve("input.txt"), "to the ranks\n");
        for (String which : List.of("default", "2", "all", "none")) {
            List<String> args = new java.util.ArrayList<>(List.of("run", "-n", "3", "--timeout", "30s"));
            if (!which.equals("default")) {
                args.addAll(List.of("--stdin", which));
            }
            args.addAll(List.of("--cp", Launch.testClasses(), "io.tutti.systest.ReadInput"));
            Launch.Result r = Launch.start(work, java.util.Map.of(), input, args.toArray(String[]::new))
                    .await(Duration.ofSeconds(40));
            assertExit(0, r);
            for (int rank = 0; rank < 3; rank++) {
                boolean reads = which.equals("all") || which.equals(Integer.toString(rank))
                        || which.equals("default") && rank == 0;
                String line = "rank " + rank + " read '" + (reads ? "to the ranks" : "") + "'";
                assertTrue(r.stdout().contains(line), "--stdin " + which + ": " + line + " in " + r.stdout());
            }
        }
        for (List<String> bad : List.of(List.of("--stdin", "3"), List.of("--stdin", "-1"), List.of("--stdin", "some"),
                List.of("--threads", "--stdin", "1"))) {
            List<String> args = new java.util.ArrayList<>(List.of("run", "-n", "3"));
            args.addAll(bad);
            args.addAll(List.of("--cp", Launch.testClasses(), "io.tutti.systest.ReadInput"));
            Launch.Result r = Launch.run(work, Duration.ofSeconds(20), args.toArray(String[]::new));
            assertExit(2, r);
            assertTrue(r.stderr().contains("--stdin"), bad + ": " + r.stderr());
            assertFalse(r.stderr().contains("\tat "), bad + ": " + r.stderr());
        }
    }

    @Test
    void aJarRunsByItsMainClass() throws Exception {
        Path jar = jar("app.jar", "io.tutti.systest.Hello");
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "-n", "2", "--timeout", "30s",
                "--cp", "", jar.toString(), "--from-jar");
        assertExit(0, r);
        assertTrue(r.stdout().contains("hello from rank 1 of 2, args [--from-jar], secret ok"), r::toString);
    }

    @Test
    void usageErrorsSayWhatToDo() throws Exception {
        Path noMain = jar("nomain.jar", null);
        record Case(List<String> args, String message) {
        }
        for (Case c : List.of(
                new Case(List.of("run", "io.tutti.systest.Hello"), "give the number of ranks with -n N"),
                new Case(List.of("run", "-n", "0", "io.tutti.systest.Hello"), "give the number of ranks with -n N, N >= 1"),
                new Case(List.of("run", "-n", "2"), "give the main class (or a jar) to run"),
                new Case(List.of("run", "-n", "2", "--cp", Launch.testClasses(), "io.tutti.systest.NoSuchClass"),
                        "the main class io.tutti.systest.NoSuchClass was not found on the class path"),
                new Case(List.of("run", "-n", "2", noMain.toString()), "has no Main-Class in its manifest"),
                new Case(List.of("run", "-n", "2", "--timeout", "soon", "X"), "'soon' is not a duration"),
                new Case(List.of("bench", "latency", "-n", "1"), "need at least 2 ranks"))) {
            Launch.Result r = Launch.run(work, Duration.ofSeconds(20), c.args().toArray(String[]::new));
            assertExit(2, r);
            assertTrue(r.stderr().contains(c.message()), () -> c.args() + " should say '" + c.message() + "'\n" + r);
        }
    }

    /**
     * A setting every rank would refuse is said once, by the launcher, naming it, before any rank
     * starts; one only a rank can judge (a rail that does not exist) is said as the network's
     * error, not the shared memory's.
     */
    @Test
    void badSettingsAreReportedOnceAndAsWhatTheyAre() throws Exception {
        Launch.Result r = Launch.run(work, java.util.Map.of("TUTTI_NET_TIMEOUT_MS", "-1"), Duration.ofSeconds(20),
                "run", "-n", "4", "--cp", Launch.testClasses(), "io.tutti.systest.Hello");
        assertExit(2, r);
        assertEquals(1, r.stderr().lines().filter(l -> l.contains("TUTTI_NET_TIMEOUT_MS must be a positive number"))
                .count(), r::toString);
        assertFalse(r.stderr().contains("\tat "), r::toString);
        Launch.Result rail = Launch.run(work, java.util.Map.of("TUTTI_TRANSPORT", "net", "TUTTI_RAILS",
                "tutti-no-such-if"), Duration.ofSeconds(60), "run", "-n", "2", "--timeout", "50s", "--cp",
                Launch.testClasses(), "io.tutti.systest.Hello");
        assertTrue(rail.stderr().contains("tutti-no-such-if") && !rail.stderr().contains("shared memory"),
                rail::toString);
    }

    @Test
    void versionNamesTuttiAndJava() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(20), "--version");
        assertExit(0, r);
        assertTrue(r.stdout().startsWith("tutti 0.1.0-SNAPSHOT\njava 25"), r::toString);
    }

    @Test
    void staleJobDirectoriesAreRemovedAndLiveOnesKept() throws Exception {
        Path root = ShmFiles.defaultRoot();
        String tag = UUID.randomUUID().toString().substring(0, 8);
        Path stale = ShmFiles.createJobDirectory(root.resolve("tutti-systest-stale-" + tag));
        Path live = ShmFiles.createJobDirectory(root.resolve("tutti-systest-live-" + tag));
        Path unowned = ShmFiles.createJobDirectory(root.resolve("tutti-systest-young-" + tag));
        Path old = ShmFiles.createJobDirectory(root.resolve("tutti-systest-old-" + tag));
        try {
            Files.writeString(stale.resolve("launcher.pid"), Long.toString(deadPid()));
            Files.writeString(live.resolve("launcher.pid"), Long.toString(ProcessHandle.current().pid()));
            Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
            Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "1", "--threads",
                    "--cp", Launch.testClasses(), "io.tutti.systest.Hello");
            assertExit(0, r);
            assertFalse(Files.exists(stale), "a job whose launcher is dead was kept\n" + r);
            assertFalse(Files.exists(old), "an hour-old directory without a launcher was kept\n" + r);
            assertTrue(Files.exists(live), "a job whose launcher is alive was removed\n" + r);
            assertTrue(Files.exists(unowned), "a new directory without launcher.pid (a job starting) was removed\n" + r);
            assertTrue(r.stderr().contains("removed the stale job directory " + stale), r::toString);
        } finally {
            for (Path p : List.of(stale, live, unowned, old)) {
                ShmFiles.deleteTree(p);
            }
        }
    }

    /** The pid of a process that has just ended: nothing else can have it yet. */
    private static long deadPid() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    /** A jar of the rank programs, with {@code mainClass} in its manifest when not null. */
    private Path jar(String name, String mainClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (mainClass != null) {
            manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        }
        Path jar = work.resolve(name);
        Path classes = Path.of(Launch.testClasses());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             var files = Files.walk(classes.resolve("io/tutti/systest"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return jar;
    }
}

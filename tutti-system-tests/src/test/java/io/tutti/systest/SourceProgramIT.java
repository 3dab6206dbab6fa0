package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tutti.bootstrap.ShmFiles;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program compiled without hunting for a JDK, through the assembly: {@code tutti run Ring.java},
 * {@code tutti javac}, and the {@code java} line that docs/guide/running.md gives for other launchers.
 */
@Timeout(120)
class SourceProgramIT {
    /** The README's program. */
    static final String RING = """
            import io.tutti.Communicator;
            import io.tutti.Status;
            import io.tutti.Tutti;

            public class Ring {
                public static void main(String[] args) {
                    try (Tutti tutti = Tutti.init(args)) {          // MPI_Init ... MPI_Finalize (close)
                        Communicator world = tutti.world();
                        int rank = world.rank(), size = world.size();
                        int[] token = {0};
                        if (rank == 0) {
                            world.send(token, 0, 1, 1 % size, 0);
                            Status s = world.recv(token, 0, 1, size - 1, 0);
                            System.out.println("token came back from rank " + s.source() + ": " + token[0]);
                        } else {
                            world.recv(token, 0, 1, rank - 1, 0);
                            token[0] += rank;
                            world.send(token, 0, 1, (rank + 1) % size, 0);
                        }
                    }
                }
            }
            """;

    @TempDir
    Path work;

    @Test
    void aSourceFileRunsAsProcessesAndAsThreads() throws Exception {
        Path ring = Files.writeString(work.resolve("Ring.java"), RING);
        Launch.Result r = Launch.run(work, Duration.ofSeconds(60), "run", "--verbose", "-n", "3", "--timeout", "50s",
                ring.toString());
        assertExit(0, r);
        assertTrue(r.stdout().contains("token came back from rank 2: 3\n"), r::toString);
        assertFalse(r.stderr().contains("WARNING"), r::toString);
        r.assertNoJobDirectory();
        r = Launch.run(work, Duration.ofSeconds(60), "run", "--verbose", "-n", "4", "--threads", "--timeout", "50s",
                ring.toString());
        assertExit(0, r);
        assertTrue(r.stdout().contains("token came back from rank 3: 6\n"), r::toString);
        r.assertNoJobDirectory();
        assertFalse(Files.exists(work.resolve("Ring.class")), "tutti run leaves no classes beside the source");
    }

    @Test
    void sourceFileMistakesSayWhatToDo() throws Exception {
        Path bad = Files.writeString(work.resolve("Bad.java"), "public class Bad { void main() { int x = \"s\"; } }\n");
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "-n", "2", bad.toString());
        assertExit(1, r);
        assertTrue(r.stderr().contains("Bad.java:1: error: incompatible types: String cannot be converted to int"),
                r::toString);
        assertTrue(r.stderr().contains("tutti run: Bad.java did not compile: fix the errors above and run again"),
                r::toString);
        r = Launch.run(work, Duration.ofSeconds(40), "run", "-n", "2", work.resolve("Nope.java").toString());
        assertExit(2, r);
        assertTrue(r.stderr().contains("Nope.java does not exist; check the path"), r::toString);
    }

    @Test
    void tuttiJavacCompilesForTuttiRun() throws Exception {
        Path ring = Files.writeString(work.resolve("Ring.java"), RING);
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "javac", ring.toString());
        assertExit(0, r);
        assertTrue(Files.isRegularFile(work.resolve("Ring.class")), r::toString);
        r = Launch.run(work, Duration.ofSeconds(40), "run", "-n", "2", "--timeout", "30s", "--cp", work.toString(),
                "Ring");
        assertExit(0, r);
        assertTrue(r.stdout().contains("token came back from rank 1: 1\n"), r::toString);

        Path classes = work.resolve("classes");
        r = Launch.run(work, Duration.ofSeconds(40), "javac", "-d", classes.toString(), ring.toString());
        assertExit(0, r);
        assertTrue(Files.isRegularFile(classes.resolve("Ring.class")), r::toString);

        Path bad = Files.writeString(work.resolve("Bad.java"), "class Bad { int x = \"s\"; }\n");
        r = Launch.run(work, Duration.ofSeconds(40), "javac", bad.toString());
        assertExit(1, r);
        assertTrue(r.stderr().contains("Bad.java:1: error: incompatible types"), r::toString);
    }

    @Test
    void versionNamesTheJavaAndTheJars() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(20), "--version");
        assertExit(0, r);
        assertTrue(r.stdout().contains("\njars " + Launch.lib().toRealPath() + "\n")
                || r.stdout().contains("\njars " + Launch.lib().toAbsolutePath().normalize() + "\n"), r::toString);
    }

    /** The line of docs/guide/running.md under Open MPI's mpirun, where it is installed. */
    @Test
    void theForeignLauncherLineRunsQuietlyUnderMpirun() throws Exception {
        Path mpirun = onPath("mpirun");
        assumeTrue(mpirun != null, "Open MPI's mpirun is not installed");
        Files.writeString(work.resolve("Ring.java"), RING);
        assertExit(0, Launch.run(work, Duration.ofSeconds(40), "javac", work.resolve("Ring.java").toString()));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = Launch.lib().toAbsolutePath() + File.separator + "*" + File.pathSeparator + work;
        Set<Path> before = ompiJobDirectories();
        try {
            String[] quiet = run(mpirun, java, "--enable-native-access=ALL-UNNAMED", "-cp", cp, "Ring");
            assertTrue(quiet[0].contains("token came back from rank 1: 1\n"), quiet[0] + quiet[1]);
            assertFalse(quiet[1].contains("WARNING"), quiet[1]);
            String[] noisy = run(mpirun, java, "-cp", cp, "Ring");
            assertTrue(noisy[0].contains("token came back from rank 1: 1\n"), noisy[0] + noisy[1]);
            assertTrue(noisy[1].contains("WARNING: Use --enable-native-access=ALL-UNNAMED to avoid a warning"),
                    noisy[1]);
        } finally {
            // Tutti leaves an empty job directory per foreign job; remove the ones these runs made.
            for (Path dir : ompiJobDirectories()) {
                if (!before.contains(dir)) {
                    ShmFiles.deleteTree(dir);
                }
            }
        }
    }

    /** {@code mpirun -np 2 COMMAND}, whose ranks meet through PMIx: its stdout and stderr. */
    private String[] run(Path mpirun, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(mpirun.toString(), "--oversubscribe", "-np", "2"));
        cmd.addAll(List.of(command));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("TUTTI_KVS_DIR");
        // Open MPI refuses root without these (containers, CI).
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        p.waitFor(5, TimeUnit.SECONDS);
        String[] result = {Files.readString(out), Files.readString(err)};
        assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + "\n" + result[0] + result[1]);
        return result;
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static Set<Path> ompiJobDirectories() throws IOException {
        Set<Path> dirs = new HashSet<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(ShmFiles.defaultRoot(), "tutti-ompi-*")) {
            s.forEach(dirs::add);
        }
        return dirs;
    }
}

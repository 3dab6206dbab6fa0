package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Open MPI tools of the distribution (tutti-dist/src/bin): tutti-mpijavac compiles the Jacobi
 * sample (an Open MPI Java program) from its source, and tutti-mpirun, and mpirun under its short
 * name, run it as Open MPI users type it; the answer does not depend on the number of ranks. The
 * options: -x, java options, notes for --map-by, errors for what it cannot run.
 */
@Timeout(400)
class MpiToolsIT {
    private static final Path BIN = Path.of("..", "tutti-dist", "src", "bin").toAbsolutePath().normalize();
    private static final Path JACOBI = Path.of("..", "tutti-samples", "src", "main", "java", "io", "tutti",
            "samples", "mpi", "Jacobi.java").toAbsolutePath().normalize();
    private static final Pattern SUM = Pattern.compile("sweeps: last change (\\S+), sum (\\S+)");

    @TempDir
    Path work;
    private Path tutti;

    /** The tutti command the tools call (TUTTI): this JDK's java with the assembly's jars. */
    @BeforeEach
    void tuttiCommand() throws IOException {
        tutti = work.resolve("tutti");
        Files.writeString(tutti, "#!/bin/sh\nexec '" + String.join("' '", Launch.tutti()) + "' \"$@\"\n");
        Files.setPosixFilePermissions(tutti, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Out(int code, String stdout, String stderr) {
    }

    private Out tool(Path script, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(script.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().put("TUTTI", tutti.toString());
        pb.environment().put("TUTTI_JVM_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
        pb.environment().remove("CLASSPATH");
        Process p = pb.start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not end within 150 s");
        }
        return new Out(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void theJacobiSampleCompilesAndRunsThroughTheTools() throws Exception {
        Out javac = tool(BIN.resolve("tutti-mpijavac"), "-d", "classes", JACOBI.toString());
        assertEquals(0, javac.code(), javac::toString);
        String[] sums = new String[3];
        // 1 and 4 ranks as processes, and 4 as threads of one JVM
        String[][] how = {{"-np", "1"}, {"-np", "4"}, {"--threads", "-np", "4"}};
        for (int i = 0; i < how.length; i++) {
            List<String> args = new ArrayList<>(List.of(how[i]));
            args.addAll(List.of("--timeout", "120", "--map-by", "core", "java", "-cp", "classes",
                    "io.tutti.samples.mpi.Jacobi", "48", "100"));
            Out run = tool(BIN.resolve("tutti-mpirun"), args.toArray(String[]::new));
            assertEquals(0, run.code(), run::toString);
            Matcher m = SUM.matcher(run.stdout());
            assertTrue(m.find(), run::toString);
            sums[i] = m.group(1) + " " + m.group(2);
        }
        assertEquals(sums[0], sums[1], "the same answer on 1 and 4 ranks");
        assertEquals(sums[1], sums[2], "the same answer on 4 ranks as threads");
    }

    @Test
    void mpirunPassesJavaOptionsAndVariables() throws Exception {
        Out run = tool(BIN.resolve("mpi").resolve("mpirun"), "-n", "2", "-x", "MPI_TOOLS_X=from-x", "--tag-output",
                "--map-by", "node", "java", "-Dmpi.tools.d=from-d", "-cp", Launch.testClasses(),
                "io.tutti.systest.mpi.MpiTools", "a", "b");
        assertEquals(0, run.code(), run::toString);
        for (int r = 0; r < 2; r++) {
            assertTrue(run.stdout().contains("rank " + r + " of 2: tools ok x=from-x d=from-d args=a,b"),
                    run::toString);
        }
        assertTrue(run.stdout().contains("[0] "), "--tag-output: " + run);
        assertTrue(run.stderr().contains("mpirun: note: --map-by node does not apply here"), run::toString);
    }

    @Test
    void whatMpirunCannotRunIsABadRequest() throws Exception {
        Out unknown = tool(BIN.resolve("tutti-mpiexec"), "--no-such-option", "java", "X");
        assertEquals(2, unknown.code(), unknown::toString);
        assertTrue(unknown.stderr().contains("unknown option --no-such-option"), unknown::toString);
        Out notJava = tool(BIN.resolve("tutti-mpirun"), "-np", "2", "./a.out");
        assertEquals(2, notJava.code(), notJava::toString);
        assertTrue(notJava.stderr().contains("'./a.out' is not java"), notJava::toString);
        Out showme = tool(BIN.resolve("mpi").resolve("mpijavac"), "--showme", "Ring.java");
        assertEquals(0, showme.code(), showme::toString);
        assertTrue(showme.stdout().endsWith("javac Ring.java\n"), showme::toString);
    }
}

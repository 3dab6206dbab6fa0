package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tutti javac}: javac with the Tutti jars on the class path, everything else javac's. */
class JavacCommandTest {
    @TempDir
    Path work;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int tutti(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void compilesNextToTheSourceWithoutDashD() throws IOException {
        Path ring = Files.writeString(work.resolve("Ring.java"), SourceProgramTest.RING);
        assertEquals(0, tutti("javac", ring.toString()), err::toString);
        assertTrue(Files.isRegularFile(work.resolve("Ring.class")), "javac puts the class next to the source");
        assertEquals("", err.toString());
    }

    @Test
    void compilesIntoTheDirectoryOfDashDAndKeepsTheClassPathGiven() throws IOException {
        Path lib = Files.createDirectories(work.resolve("lib"));
        Files.writeString(work.resolve("Util.java"), "public class Util { public static int twice(int x) {"
                + " return 2 * x; } }\n");
        assertEquals(0, tutti("javac", "-d", lib.toString(), work.resolve("Util.java").toString()), err::toString);
        Path app = Files.writeString(work.resolve("App.java"), """
                import io.tutti.Tutti;
                public class App {
                    public static void main(String[] args) {
                        try (Tutti t = Tutti.init(args)) {
                            System.out.println(Util.twice(t.world().size()));
                        }
                    }
                }
                """);
        Path classes = work.resolve("classes");
        assertEquals(0, tutti("javac", "-d", classes.toString(), "-cp", lib.toString(), app.toString()), err::toString);
        assertTrue(Files.isRegularFile(classes.resolve("App.class")), "javac -d puts the class there");
        assertFalse(Files.exists(work.resolve("App.class")));
    }

    @Test
    void theExitCodeAndMessagesAreJavacs() throws IOException {
        Path bad = Files.writeString(work.resolve("Bad.java"), "public class Bad { int x = \"text\"; }\n");
        assertEquals(1, tutti("javac", bad.toString()));
        assertTrue(err.toString().contains("Bad.java:1: error: incompatible types: String cannot be converted to int"),
                err::toString);
        err.getBuffer().setLength(0);
        assertEquals(2, tutti("javac", "--no-such-option", bad.toString()));
        assertTrue(err.toString().contains("--no-such-option"), err::toString);
        err.getBuffer().setLength(0);
        assertEquals(2, tutti("javac"));
        assertTrue(err.toString().contains("tutti javac: give the source files to compile, e.g. tutti javac Ring.java"),
                err::toString);
    }

    @Test
    void helpIsOursAndJavacsIsAnArgumentAway() {
        assertEquals(0, tutti("javac", "--help"));
        assertTrue(out.toString().replaceAll("\\s+", " ").contains("with the Tutti jars on the class path"),
                out::toString);
        out.getBuffer().setLength(0);
        assertEquals(0, tutti("javac", "-help"));
        assertTrue(out.toString().contains("Usage: javac <options> <source files>"), out::toString);
    }

    @Test
    void theTuttiJarsGoAfterTheClassPathGivenOrJavacsDefault() throws IOException {
        String sep = File.pathSeparator;
        assertEquals(List.of("-cp", "." + sep + "T", "A.java"),
                JavacCommand.withClassPath(List.of("A.java"), "T", null));
        assertEquals(List.of("-cp", "env" + sep + "T", "A.java"),
                JavacCommand.withClassPath(List.of("A.java"), "T", "env"));
        assertEquals(List.of("-d", "out", "-classpath", "a" + sep + "b" + sep + "T", "A.java"),
                JavacCommand.withClassPath(List.of("-d", "out", "-classpath", "a" + sep + "b", "A.java"), "T", "env"));
        assertEquals(List.of("--class-path=a" + sep + "T", "A.java"),
                JavacCommand.withClassPath(List.of("--class-path=a", "A.java"), "T", null));
        Path argfile = Files.writeString(work.resolve("args"), "-d out\n-cp \"lib/x.jar\"\nA.java\n");
        Launcher.UsageException e = assertThrows(Launcher.UsageException.class,
                () -> JavacCommand.withClassPath(List.of("@" + argfile), "T", null));
        assertTrue(e.getMessage().contains("give -cp on the command line"), e.getMessage());
        Path plain = Files.writeString(work.resolve("plain"), "-d out A.java\n");
        assertEquals(List.of("-cp", "." + sep + "T", "@" + plain), JavacCommand.withClassPath(List.of("@" + plain),
                "T", null));
    }
}

package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ShmFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code tutti run FILE.java}: compiled once as the source launcher would, run as processes and as threads. */
@Timeout(90)
class SourceProgramTest {
    /** The README's ring, with its arguments printed too. */
    static final String RING = """
            import io.tutti.Communicator;
            import io.tutti.Status;
            import io.tutti.Tutti;

            public class Ring {
                public static void main(String[] args) {
                    try (Tutti tutti = Tutti.init(args)) {
                        Communicator world = tutti.world();
                        int rank = world.rank(), size = world.size();
                        int[] token = {0};
                        if (rank == 0) {
                            world.send(token, 0, 1, 1 % size, 0);
                            Status s = world.recv(token, 0, 1, size - 1, 0);
                            System.out.println("token came back from rank " + s.source() + ": " + token[0]
                                    + " " + String.join(",", args));
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

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), "tutti run");

    private Launcher.Options source(int n, Path file, String... args) {
        return Launcher.Options.of(n, file.toString(), args).withClasspath("").withTimeout(Duration.ofSeconds(60))
                .withTagOutput(true).withVerbose(true);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aSourceFileRunsAsProcesses() throws IOException {
        Path ring = write("Ring.java", RING);
        assertEquals(0, launcher.run(source(3, ring, "x", "y")), this::stderr);
        assertTrue(stdout().contains("[0] token came back from rank 2: 3 x,y\n"), stdout());
        assertCompiledIntoTheJobDirectoryAndRemoved("Ring");
        assertFalse(Files.exists(work.resolve("Ring.class")), "the classes belong in the job directory");
    }

    @Test
    void aSourceFileRunsAsThreads() throws IOException {
        Path ring = write("Ring.java", RING);
        assertEquals(0, launcher.run(source(4, ring, "z").withThreads(true)), this::stderr);
        assertTrue(stdout().contains("[0] token came back from rank 3: 6 z\n"), stdout());
        assertCompiledIntoTheJobDirectoryAndRemoved("Ring");
    }

    @Test
    void theOtherFilesOfItsPackageAreCompiledToo() throws IOException {
        Files.createDirectories(work.resolve("com/example"));
        Path app = write("com/example/App.java", """
                package com.example;
                public class App {
                    public static void main(String[] args) {
                        System.out.println("twice 21 is " + Util.twice(21));
                    }
                }
                """);
        write("com/example/Util.java", """
                package com.example;
                class Util {
                    static int twice(int x) {
                        return 2 * x;
                    }
                }
                """);
        assertEquals(0, launcher.run(source(2, app).withThreads(true)), this::stderr);
        assertTrue(stdout().contains("[1] twice 21 is 42\n"), stdout());
        assertCompiledIntoTheJobDirectoryAndRemoved("com.example.App");
    }

    @Test
    void theMainClassIsTheSourceLaunchersChoice() throws IOException {
        // The first class has no main method: the class named after the file is run, as java Two.java does.
        Path two = write("Two.java", """
                record Message(String text) {
                }

                public class Two {
                    public static void main(String[] args) {
                        System.out.println(new Message("two"));
                    }
                }
                """);
        assertEquals(0, launcher.run(source(1, two).withThreads(true)), this::stderr);
        assertTrue(stdout().contains("[0] Message[text=two]\n"), stdout());
        // A compact source file: an implicit class named after the file, with an instance main method.
        out.reset();
        Path compact = write("Hello.java", """
                void main() {
                    IO.println("compact and " + getClass().getSimpleName());
                }
                """);
        assertEquals(0, launcher.run(source(2, compact)), this::stderr);
        assertTrue(stdout().contains("[1] compact and Hello\n"), stdout());
    }

    @Test
    void aCompileErrorShowsTheCompilersMessageOnce() throws IOException {
        Path bad = write("Bad.java", """
                public class Bad {
                    public static void main(String[] args) {
                        int x = "text";
                    }
                }
                """);
        assertEquals(Launcher.EXIT_FAILURE, launcher.run(source(3, bad)));
        String text = stderr();
        assertTrue(text.contains("Bad.java:3: error: incompatible types: String cannot be converted to int"), text);
        assertEquals(1, text.split("error: incompatible types", -1).length - 1,
                "the error once, not per rank: " + text);
        assertTrue(text.contains("tutti run: Bad.java did not compile: fix the errors above and run again"), text);
        assertFalse(text.contains("\tat "), "no stack trace: " + text);
        assertFalse(text.contains("rank 0 is pid"), "no rank started: " + text);
        assertNoJobDirectoryLeft();
    }

    @Test
    void theOtherMistakesSayWhatToDo() throws IOException {
        record Case(String file, String content, String message) {
        }
        Files.createDirectories(work.resolve("misplaced"));
        for (Case c : new Case[] {
            new Case("NoMain.java", "class First { }\nclass NoMain { void run() { } }\n",
                    "NoMain.java has no main method where Java's source launcher looks for one (its first class,"
                            + " First, or a class NoMain): give one of them public static void main(String[] args),"
                            + " or void main()"),
            new Case("Empty.java", "// nothing here\n", "Empty.java declares no class"),
            new Case("misplaced/Pkg.java", "package com.example;\npublic class Pkg { void main() { } }\n",
                    "Pkg.java is in package com.example, so it must lie in a directory com/example"),
        }) {
            err.reset();
            Path file = write(c.file(), c.content());
            assertEquals(Launcher.EXIT_USAGE, launcher.run(source(2, file)), c.file() + ": " + stderr());
            assertTrue(stderr().contains("tutti run: " + c.message()), c.file() + ": " + stderr());
            assertFalse(stderr().contains("\tat "), "no stack trace: " + stderr());
        }
        err.reset();
        assertEquals(Launcher.EXIT_USAGE, launcher.run(source(2, work.resolve("Missing.java"))));
        assertTrue(stderr().contains("tutti run: the source file " + work.resolve("Missing.java") + " does not exist;"
                + " check the path"), stderr());
        assertNoJobDirectoryLeft();
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(work.resolve(name), content);
    }

    private static final Pattern COMPILED = Pattern.compile("compiled (\\S+) into (\\S+); main class (\\S+)");

    /** The launcher said where it compiled to and which class it ran; that directory is gone with the job. */
    private void assertCompiledIntoTheJobDirectoryAndRemoved(String mainClass) {
        Matcher m = COMPILED.matcher(stderr());
        assertTrue(m.find(), stderr());
        Path classes = Path.of(m.group(2));
        assertEquals(mainClass, m.group(3));
        assertTrue(classes.startsWith(ShmFiles.defaultRoot()) && classes.getParent().getFileName().toString()
                .startsWith("tutti-"), "compiled into the job directory: " + classes);
        assertFalse(Files.exists(classes.getParent()), "the job directory " + classes.getParent()
                + " was left behind");
    }

    private void assertNoJobDirectoryLeft() {
        Matcher m = Pattern.compile("job ([0-9a-f]+): ").matcher(stderr());
        while (m.find()) {
            Path dir = ShmFiles.defaultRoot().resolve("tutti-" + m.group(1));
            assertFalse(Files.exists(dir), "the launcher left " + dir + " behind");
        }
    }
}

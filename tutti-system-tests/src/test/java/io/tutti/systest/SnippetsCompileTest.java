package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of the README and of docs/guide compiles against the library as it is: a
 * {@code ```java} block as a whole compilation unit, a {@code ```java fragment} block as the body of
 * {@link #FRAGMENT_HEAD}'s method (the convention docs/guide/README.md states). A failure names the
 * file, the line of the block and the compiler's message.
 */
class SnippetsCompileTest {
    /** What a fragment is compiled in; it ends where the fragment's statements begin. */
    static final String FRAGMENT_HEAD = """
            import io.tutti.*;
            import java.lang.foreign.*;
            import java.nio.*;
            import java.util.*;

            class Fragment {
                static void fragment(Tutti tutti, Communicator world) throws Exception {
            """;
    static final String FRAGMENT_TAIL = """
                }
            }
            """;
    private static final Pattern FENCE = Pattern.compile("^( *)(`{3,}|~{3,})\\s*(.*)$");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record)\\s+(\\w+)");

    @TempDir
    Path out;

    /** A Java block of a Markdown file: its kind ({@code java} or {@code java fragment}), first line (1-based) and text. */
    record Snippet(Path file, int line, String kind, String text) {
        String where() {
            return file + ":" + line;
        }
    }

    @Test
    void everyJavaSnippetOfTheReadmeAndTheGuideCompiles() throws IOException {
        Path root = repositoryRoot();
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> guide = Files.list(root.resolve("docs/guide"))) {
            guide.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (Path f : files) {
            snippets.addAll(javaBlocks(root.relativize(f), Files.readString(f, StandardCharsets.UTF_8)));
        }
        assertFalse(snippets.isEmpty(), "no ```java block found in " + files);
        List<String> failures = compileAll(snippets);
        assertTrue(failures.isEmpty(), failures.size() + " snippet error(s):\n" + String.join("\n", failures));
    }

    /** The check itself: a broken block of either kind is reported at its file and line, a sound one is not. */
    @Test
    void aBrokenSnippetIsReportedWithItsFileAndLine() {
        String md = """
                # Title

                ```java fragment
                double[] x = {1, 2};
                world.allreduce(x, ReduceOp.SUM);
                ```

                ```java fragment
                int[] a = new int[4];
                world.allreduce(a, new double[4], ReduceOp.SUM);
                ```

                ```java
                import io.tutti.Tutti;

                public class Broken {
                    void run() { Tutti.init(new String[0]).nothing(); }
                }
                ```

                ```sh
                not java
                ```
                """;
        List<Snippet> blocks = javaBlocks(Path.of("doc.md"), md);
        assertEquals(List.of(3, 8, 13), blocks.stream().map(Snippet::line).toList());
        List<String> failures = compileAll(blocks);
        assertEquals(2, failures.size(), String.join("\n", failures));
        assertTrue(failures.get(0).startsWith("doc.md:10: "), failures.get(0));
        assertTrue(failures.get(0).contains("allreduce"), failures.get(0));
        assertTrue(failures.get(1).startsWith("doc.md:17: "), failures.get(1));
        assertTrue(failures.get(1).contains("nothing"), failures.get(1));
    }

    /** The fenced blocks whose info string is {@code java} or {@code java fragment}; another {@code java} kind is an error. */
    static List<Snippet> javaBlocks(Path file, String markdown) {
        List<Snippet> blocks = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher open = FENCE.matcher(lines[i]);
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            String fence = open.group(2);
            String info = open.group(3).trim();
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            for (; j < lines.length; j++) {
                Matcher close = FENCE.matcher(lines[j]);
                if (close.matches() && close.group(3).isEmpty() && close.group(2).charAt(0) == fence.charAt(0)
                        && close.group(2).length() >= fence.length()) {
                    break;
                }
                String line = lines[j].startsWith(indent) ? lines[j].substring(indent.length()) : lines[j].strip();
                text.append(line).append('\n');
            }
            String[] words = info.split("\\s+");
            if (words[0].equals("java")) {
                String kind = String.join(" ", words);
                if (!kind.equals("java") && !kind.equals("java fragment")) {
                    throw new AssertionError(file + ":" + (i + 1) + ": a Java block is ```java (a compilation unit) or"
                            + " ```java fragment (statements), not ```" + kind);
                }
                blocks.add(new Snippet(file, i + 1, kind, text.toString()));
            }
            i = j;
        }
        return blocks;
    }

    /** Compiles each snippet on its own against this test's class path; one line per error. */
    List<String> compileAll(List<Snippet> snippets) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "this test needs a JDK, not a JRE");
        List<String> failures = new ArrayList<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
            int n = 0;
            for (Snippet s : snippets) {
                failures.addAll(compile(javac, files, s, out.resolve("s" + n++)));
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return failures;
    }

    private static List<String> compile(JavaCompiler javac, StandardJavaFileManager files, Snippet s, Path classes)
            throws IOException {
        boolean fragment = s.kind().equals("java fragment");
        String source = fragment ? FRAGMENT_HEAD + s.text() + FRAGMENT_TAIL : s.text();
        // line 1 of the source is the line after the opening fence; a fragment's starts after the head
        long firstLine = s.line() + 1 - (fragment ? FRAGMENT_HEAD.lines().count() : 0);
        String name = fragment ? "Fragment" : publicTypeOf(source);
        Files.createDirectories(classes);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("-d", classes.toString(), "-proc:none", "-implicit:none",
                "-classpath", System.getProperty("java.class.path"));
        JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        javac.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
        List<String> failures = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                long line = d.getLineNumber() == Diagnostic.NOPOS ? s.line() : firstLine + d.getLineNumber() - 1;
                failures.add(s.file() + ":" + line + ": " + firstLines(d.getMessage(Locale.ROOT), 3)
                        + " (the ```" + s.kind() + " block at line " + s.line() + ")");
            }
        }
        return failures;
    }

    /** The start of a message (javac lists every candidate of an overloaded call after the first line). */
    static String firstLines(String message, int n) {
        List<String> lines = message.lines().toList();
        return String.join(" | ", lines.subList(0, Math.min(n, lines.size()))) + (lines.size() > n ? " ..." : "");
    }

    /** The file name javac wants for a unit: its public type's, else any. */
    static String publicTypeOf(String source) {
        Matcher m = PUBLIC_TYPE.matcher(source);
        return m.find() ? m.group(1) : "Snippet";
    }

    /** The checkout: the nearest directory above the working directory with README.md and docs/guide. */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs/guide"))) {
                return p;
            }
        }
        throw new AssertionError("no README.md with docs/guide above " + Path.of("").toAbsolutePath()
                + File.separator);
    }
}

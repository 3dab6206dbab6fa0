package io.tutti.cli;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import io.tutti.os.Platform;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.Writer;
import java.io.UncheckedIOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * A program given as a {@code .java} file, compiled once by the launcher the way Java's source
 * launcher compiles it (JEP 330, with JDK 22's multi-file programs, JEP 458): against the user's
 * class path and the Tutti jars, with the other classes it uses found in {@code .java} files of the
 * same source tree (the file's directory, or the directory its package lies in). The main class is
 * the source launcher's: the file's first top-level class when it has a main method, else the class
 * named after the file. Compiling in the launcher rather than in every rank shows a compile error
 * once, costs one compilation instead of N, and runs threads and processes alike. Not supported:
 * modular source programs ({@code module-info.java}) and classes reached only by reflection.
 */
final class SourceProgram {
    /** The source launcher's compiler options (jdk.compiler's RelevantJavacOptions), but {@code -implicit}. */
    private static final List<String> LAUNCHER_OPTIONS = List.of("-proc:none", "-Xprefer:source", "-Xdiags:verbose",
            "-Xlint:deprecation", "-Xlint:unchecked", "-Xlint:-options");

    private SourceProgram() {
    }

    /** Checks that {@code file} is a source file there is, before any job is set up. */
    static Path check(String file) {
        Path source = Path.of(file);
        if (!Files.isRegularFile(source)) {
            throw new Launcher.UsageException("the source file " + source.toAbsolutePath().normalize() + " does not"
                    + " exist; check the path (it is relative to the current directory, " + Path.of("").toAbsolutePath()
                    + ")");
        }
        if (!Files.isReadable(source)) {
            throw new Launcher.UsageException("the source file " + source + " cannot be read; check its permissions");
        }
        return source;
    }

    /**
     * Compiles {@code source} (and the sources it uses) into {@code classes} and returns the job's
     * target. The compiler's warnings and errors go to {@code err} as javac prints them.
     *
     * @throws Launcher.UsageException when it does not compile (exit code 1, as javac's) or has no main class
     */
    static JobTarget compile(Path source, String classpath, Path classes, PrintStream err) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new Launcher.UsageException("running a .java file needs a JDK, and " + Platform.JAVA_HOME
                    + " has no compiler: run tutti with a JDK 25 (set JAVA_HOME to it), or compile the program"
                    + " elsewhere and give its class name");
        }
        StringWriter messages = new StringWriter();
        String name = source.getFileName().toString();
        List<String> firstClasses;
        boolean ok;
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
            Files.createDirectories(classes);
            // Parsed alone first, quietly, for the package and the classes; the compilation reports the errors.
            JavacTask task = (JavacTask) javac.getTask(Writer.nullWriter(), files, d -> { }, List.of(), null,
                    files.getJavaFileObjects(source));
            CompilationUnitTree unit = task.parse().iterator().next();
            String pkg = unit.getPackage() == null ? "" : unit.getPackage().getPackageName().toString();
            firstClasses = topLevelClasses(unit, pkg);
            Path root = sourceRoot(source.toAbsolutePath().normalize(), pkg);
            List<String> options = new ArrayList<>(List.of("-d", classes.toString(),
                    "--class-path", join(classpath, Platform.CLASS_PATH), "--source-path", root.toString()));
            options.addAll(LAUNCHER_OPTIONS);
            task = (JavacTask) javac.getTask(messages, files, null, options, null, files.getJavaFileObjects(source));
            ok = task.call();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot compile " + source, e);
        }
        err.print(messages);
        err.flush();
        if (!ok) {
            throw new Launcher.UsageException(name + " did not compile: fix the errors above and run again",
                    Launcher.EXIT_FAILURE);
        }
        if (firstClasses.isEmpty()) {
            throw new Launcher.UsageException(name + " declares no class: give it a class with a main method, or"
                    + " a method void main() of its own");
        }
        return new JobTarget(mainClass(source, firstClasses, classpath, classes), classes, null);
    }

    /**
     * The classes compiled into {@code classes} as a jar in memory, for ranks on hosts that do not
     * see this host's files ({@link io.tutti.bootstrap.RankMain} defines them from it).
     */
    static byte[] jar(Path classes) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(bytes);
             java.util.stream.Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                jar.putNextEntry(new java.util.jar.JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, jar);
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    /** The source launcher's choice: the first class if it has a main method, else the one named after the file. */
    private static String mainClass(Path source, List<String> declared, String classpath, Path classes) {
        String name = source.getFileName().toString();
        String first = declared.getFirst();
        String pkg = first.contains(".") ? first.substring(0, first.lastIndexOf('.') + 1) : "";
        String named = pkg + name.substring(0, name.length() - ".java".length());
        try (URLClassLoader loader = new URLClassLoader(JobTarget.urls(classpath, classes),
                SourceProgram.class.getClassLoader())) {
            for (String candidate : first.equals(named) || !declared.contains(named) ? List.of(first)
                    : List.of(first, named)) {
                if (JobTarget.findMain(Class.forName(candidate, false, loader)) != null) {
                    return candidate;
                }
            }
        } catch (ClassNotFoundException | LinkageError | IOException e) {
            throw new Launcher.UsageException("cannot load the classes compiled from " + name + ": " + e);
        }
        throw new Launcher.UsageException(name + " has no main method where Java's source launcher looks for one (its"
                + " first class, " + simple(first) + (named.equals(first) ? "" : ", or a class " + simple(named))
                + "): give " + (named.equals(first) ? "it" : "one of them") + " public static void main(String[] args),"
                + " or void main()");
    }

    private static List<String> topLevelClasses(CompilationUnitTree unit, String pkg) {
        List<String> names = new ArrayList<>();
        for (Tree t : unit.getTypeDecls()) {
            if (t instanceof ClassTree c) {
                names.add(pkg.isEmpty() ? c.getSimpleName().toString() : pkg + "." + c.getSimpleName());
            }
        }
        return names;
    }

    /** The directory the package tree starts in, as the source launcher finds it. */
    static Path sourceRoot(Path source, String pkg) {
        Path dir = source.getParent();
        if (pkg.isEmpty()) {
            return dir;
        }
        Path packageDirs = Path.of(pkg.replace('.', File.separatorChar));
        if (!dir.endsWith(packageDirs)) {
            throw new Launcher.UsageException(source.getFileName() + " is in package " + pkg + ", so it must lie in a"
                    + " directory " + packageDirs + " (as for Java's source launcher): move it there, or remove"
                    + " its package line");
        }
        Path root = dir;
        for (int i = 0; i < packageDirs.getNameCount(); i++) {
            root = root.getParent();
        }
        return root == null ? dir.getRoot() : root;
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : a + File.pathSeparator + b;
    }

    private static String simple(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}

package io.tutti.cli;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The program a job runs: its main class and where it came from, found and checked before any rank
 * starts, and called as the {@code java} launcher would call it. A source file is checked here and
 * compiled into the job's directory once the job has one ({@link SourceProgram}).
 *
 * @param mainClass the fully qualified name of the class whose main method each rank runs; null for a
 *                  source file not yet compiled
 * @param classes   the jar whose manifest named it, or the directory it was compiled into; first on the
 *                  class path; null for a class given by name
 * @param source    the {@code .java} file to compile before the ranks start, or null
 */
record JobTarget(String mainClass, Path classes, Path source) {
    /** Checks the request and finds the main class, so that a mistake fails before any rank starts. */
    static JobTarget resolve(Launcher.Options o) throws IOException {
        if (o.ranks() < 1) {
            throw new Launcher.UsageException("give the number of ranks with -n N, N >= 1 (got " + o.ranks()
                    + "), e.g. tutti run -n 4 --cp build/classes com.example.Main");
        }
        String t = o.target();
        if (t == null || t.isBlank()) {
            throw new Launcher.UsageException("give the main class (or a jar) to run after the options,"
                    + " e.g. tutti run -n 4 --cp build/classes com.example.Main");
        }
        JobTarget target;
        if (t.endsWith(".jar")) {
            Path jar = Path.of(t);
            if (!Files.isRegularFile(jar)) {
                throw new Launcher.UsageException("the jar " + jar.toAbsolutePath() + " does not exist; check the path");
            }
            String main;
            try (JarFile jf = new JarFile(jar.toFile())) {
                Manifest m = jf.getManifest();
                main = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            }
            if (main == null || main.isBlank()) {
                throw new Launcher.UsageException(t + " has no Main-Class in its manifest: put the jar on the class path and"
                        + " name the class, e.g. tutti run -n " + o.ranks() + " --cp " + t + " com.example.Main");
            }
            target = new JobTarget(main.trim(), jar.toAbsolutePath(), null);
        } else if (t.endsWith(".java")) {
            return new JobTarget(null, null, SourceProgram.check(t));
        } else if (t.endsWith(".class") || t.contains("/") || t.contains(File.separator)) {
            throw new Launcher.UsageException("'" + t + "' looks like a file: give the fully qualified class name"
                    + " (e.g. com.example.Main) and the directory or jar holding it with --cp");
        } else {
            target = new JobTarget(t, null, null);
        }
        try (URLClassLoader loader = new URLClassLoader(urls(o.classpath(), target.classes()),
                JobTarget.class.getClassLoader())) {
            if (loader.getResource(target.mainClass().replace('.', '/') + ".class") == null) {
                String searched = (o.classpath().isEmpty() ? "" : "--cp " + o.classpath() + ", ")
                        + (target.classes() == null ? "" : target.classes() + ", ") + "the Tutti jars";
                throw new Launcher.UsageException("the main class " + target.mainClass() + " was not found on the class path ("
                        + searched + "): give the directory or jar that holds it with --cp, and check the package"
                        + " name");
            }
        }
        return target;
    }

    /**
     * The user's class path as URLs, after {@code first} (the target's jar or classes, or null), with
     * {@code dir/*} expanded to the jars in it as {@code java} does.
     */
    static URL[] urls(String classpath, Path first) {
        List<URL> urls = new ArrayList<>();
        try {
            if (first != null) {
                urls.add(first.toUri().toURL());
            }
            for (String entry : classpath.split(File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                if (entry.equals("*") || entry.endsWith(File.separator + "*")) {
                    Path dir = Path.of(entry.substring(0, entry.length() - 1).isEmpty() ? "."
                            : entry.substring(0, entry.length() - 1));
                    try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.{jar,JAR}")) {
                        for (Path p : jars) {
                            urls.add(p.toUri().toURL());
                        }
                    } catch (IOException e) {
                        // a wildcard over a missing directory adds nothing, as for java -cp
                    }
                } else {
                    urls.add(Path.of(entry).toAbsolutePath().toUri().toURL());
                }
            }
        } catch (MalformedURLException e) {
            throw new Launcher.UsageException("bad class path entry in '" + classpath + "': " + e.getMessage());
        }
        return urls.toArray(URL[]::new);
    }

    /**
     * Calls the program's entry point as the {@code java} launcher would: {@code static main(String[])},
     * else {@code static main()}, else the instance forms of Java 25's instance main methods.
     */
    static void invokeMain(Class<?> cls, String[] args) throws Throwable {
        Method m = findMain(cls);
        if (m == null) {
            throw new Launcher.UsageException("the class " + cls.getName() + " has no main method: give it"
                    + " public static void main(String[] args)");
        }
        m.setAccessible(true);
        Object self = null;
        if (!Modifier.isStatic(m.getModifiers())) {
            var ctor = cls.getDeclaredConstructor();
            ctor.setAccessible(true);
            self = ctor.newInstance();
        }
        try {
            if (m.getParameterCount() == 1) {
                m.invoke(self, (Object) args);
            } else {
                m.invoke(self);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The method the {@code java} launcher would call, or null when there is none. */
    static Method findMain(Class<?> cls) {
        // The java launcher's order of preference (JEP 512).
        for (boolean wantStatic : new boolean[] {true, false}) {
            for (boolean wantArgs : new boolean[] {true, false}) {
                for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
                    for (Method m : c.getDeclaredMethods()) {
                        boolean args = m.getParameterCount() == 1 && m.getParameterTypes()[0] == String[].class;
                        if (m.getName().equals("main") && m.getReturnType() == void.class
                                && !Modifier.isPrivate(m.getModifiers())
                                && Modifier.isStatic(m.getModifiers()) == wantStatic
                                && (wantArgs ? args : m.getParameterCount() == 0)) {
                            return m;
                        }
                    }
                }
            }
        }
        return null;
    }
}

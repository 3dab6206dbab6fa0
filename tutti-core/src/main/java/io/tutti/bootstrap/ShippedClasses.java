package io.tutti.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;

/**
 * The classes of a program that {@code tutti run} compiled from a source file on its own host, sent
 * to a rank on another host as a jar on the rank's standard input, right after the job secret
 * ({@link LaunchEnvironment#CLASSES_STDIN} gives its length). They are defined from memory, so a
 * rank leaves no file behind on its host, and only classes are carried: what {@code tutti run
 * FILE.java} compiles.
 */
public final class ShippedClasses extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, byte[]> classes;

    private ShippedClasses(Map<String, byte[]> classes, ClassLoader parent) {
        super("tutti-shipped-classes", parent);
        this.classes = classes;
    }

    /** Reads the jar of {@code length} bytes that follows the secret on standard input. */
    static ClassLoader fromStdin(long length, ClassLoader parent) {
        return perRankFromStdin(length).apply(parent);
    }

    /**
     * Reads that jar once for ranks that are threads of one JVM: each call of the result defines the
     * classes anew under the parent given, so each rank has its own statics, as a rank JVM would.
     */
    public static java.util.function.UnaryOperator<ClassLoader> perRankFromStdin(long length) {
        Map<String, byte[]> classes = classes(new FileInputStream(FileDescriptor.in), length);
        return parent -> new ShippedClasses(classes, parent);
    }

    static ClassLoader read(InputStream in, long length, ClassLoader parent) {
        return new ShippedClasses(classes(in, length), parent);
    }

    private static Map<String, byte[]> classes(InputStream in, long length) {
        if (length < 0 || length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(LaunchEnvironment.CLASSES_STDIN + " must be a jar's length in bytes, not "
                    + length);
        }
        Map<String, byte[]> classes = new HashMap<>();
        try {
            byte[] jar = in.readNBytes((int) length);
            if (jar.length != length) {
                throw new IllegalStateException("the program's classes were expected on standard input ("
                        + length + " bytes), but the input ended after " + jar.length + "; start ranks with tutti run");
            }
            try (JarInputStream entries = new JarInputStream(new ByteArrayInputStream(jar))) {
                for (JarEntry e; (e = entries.getNextJarEntry()) != null; ) {
                    if (!e.isDirectory() && e.getName().endsWith(".class")) {
                        String name = e.getName().substring(0, e.getName().length() - ".class".length()).replace('/', '.');
                        classes.put(name, entries.readAllBytes());
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the program's classes from standard input: " + e.getMessage(), e);
        }
        return Map.copyOf(classes);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        byte[] b = classes.get(name);
        if (b == null) {
            throw new ClassNotFoundException(name);
        }
        return defineClass(name, b, 0, b.length);
    }
}

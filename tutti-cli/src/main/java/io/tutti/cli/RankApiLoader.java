package io.tutti.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;

/**
 * The class loader of one rank thread's own copy of package {@code mpi} (Open MPI's Java bindings over
 * Tutti, module tutti-mpi), between the launcher's loader and the rank's program: it defines the
 * package's classes itself from the bytes its parent would load, so each rank has its own
 * {@code MPI.COMM_WORLD} and the rest of the API's per-process state, as a rank JVM would. So too a
 * sample's package: the samples are on the launcher's class path, where the rank's own loader would
 * find them first. Every other class, {@code io.tutti} included, is its parent's, shared by the JVM's
 * ranks (one engine machinery, one launcher). Without tutti-mpi on the parent's class path it
 * defines none of {@code mpi}, and a copy on the program's class path is the rank loader's own.
 */
final class RankApiLoader extends ClassLoader {
    /** The package each rank gets its own copy of (its classes only, not subpackages). */
    static final String PACKAGE = "mpi";

    static {
        registerAsParallelCapable();
    }

    /** Tutti's samples, on the launcher's class path: a sample's package is defined anew for each rank too. */
    static final String SAMPLES = "io.tutti.samples";

    /** The program's package when it is a sample's, else null. */
    private final String programPackage;
    /** The code source of the classes defined here, made at the first; null until then. */
    private volatile ProtectionDomain domain;

    /** For rank {@code name}, whose program's entry point is {@code mainClass}. */
    RankApiLoader(String name, ClassLoader parent, String mainClass) {
        super(name, parent);
        int dot = mainClass.lastIndexOf('.');
        String pkg = dot < 0 ? "" : mainClass.substring(0, dot);
        this.programPackage = pkg.equals(SAMPLES) || pkg.startsWith(SAMPLES + ".") ? pkg : null;
    }

    /** Whether {@code className} is of a package this loader defines itself. */
    boolean own(String className) {
        return inPackage(className, PACKAGE) || programPackage != null && inPackage(className, programPackage);
    }

    private static boolean inPackage(String className, String pkg) {
        return className.startsWith(pkg) && className.length() > pkg.length() + 1
                && className.charAt(pkg.length()) == '.' && className.indexOf('.', pkg.length() + 1) < 0;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!own(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = findClass(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    /** Defines {@code name} from its parent's class file (ClassNotFoundException when it has none: the rank's loader looks next). */
    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String path = name.replace('.', '/') + ".class";
        URL url = getParent().getResource(path);
        if (url == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes;
        try (InputStream in = url.openStream()) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name + ": its class file " + url + " could not be read", e);
        }
        return defineClass(name, bytes, 0, bytes.length, domain(url, path));
    }

    /** The jar or directory {@code url} (of class file {@code path}) lies in, as the classes' code source. */
    private ProtectionDomain domain(URL url, String path) {
        ProtectionDomain d = domain;
        if (d == null) {
            String s = url.toString();
            String base = s.startsWith("jar:") && s.contains("!/") ? s.substring("jar:".length(), s.indexOf("!/"))
                    : s.endsWith(path) ? s.substring(0, s.length() - path.length()) : s;
            URL where;
            try {
                where = URI.create(base).toURL();
            } catch (MalformedURLException | IllegalArgumentException e) {
                where = url;
            }
            domain = d = new ProtectionDomain(new CodeSource(where, (Certificate[]) null), null, this, null);
        }
        return d;
    }
}

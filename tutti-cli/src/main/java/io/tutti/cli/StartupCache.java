package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.StartupTraining;
import io.tutti.os.Platform;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The rank JVMs' start-up cache: a JDK AOT cache (JEP 483/515) of the classes and method profiles
 * that Tutti's start-up loads, made once per build of the Tutti jars and JDK by a training run
 * ({@link StartupTraining}) and given to every rank JVM. It roughly halved a rank's CPU time to its
 * first barrier (docs/perf/launch.md, "Start-up, round two"). The Tutti jars lead the rank's class
 * path, where the JVM requires the cached entries; a cache that is missing on a host, stale or
 * corrupt is ignored by the JVM, silently. Only jars can be cached: with Tutti's classes in
 * directories (a development build) there is no cache. The launcher's own cache
 * ({@link #prepareLauncher}) is made beside it and given to the launcher by the {@code tutti} scripts.
 *
 * @param dir where caches are kept; "off" disables them
 */
record StartupCache(String dir) {
    public static final String DIR = "tutti.aot.cache.dir";
    /** Empty: {@code $XDG_CACHE_HOME/tutti}, else {@code ~/.cache/tutti}, one file per build. */
    public static final String DIR_DEFAULT = "";
    /**
     * Caches kept per directory, the newest: each is about 19 MB, and every rebuild of the jars makes
     * a new one, while a few installations (a checkout, an unpacked archive) may be in use at once.
     */
    static final int KEEP = 4;
    /** A training run takes 2-4 s on a loaded 2-core machine; far beyond that, something is wrong. */
    private static final long TRAINING_SECONDS = 120;
    private static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC");

    static StartupCache fromEnvironment() {
        return new StartupCache(LaunchEnvironment.settings().text(DIR, DIR_DEFAULT));
    }

    /** The JVM flags every rank JVM and the training run share (the cache records some of them). */
    static List<String> jvmFlags() {
        return JVM_FLAGS;
    }

    /** Tutti's own jars on the launcher's class path, which lead a rank's class path; empty when any is not a jar. */
    static List<String> tuttiJars() {
        List<String> jars = new ArrayList<>();
        for (String e : Platform.CLASS_PATH.split(File.pathSeparator)) {
            String name = Path.of(e).getFileName() == null ? "" : Path.of(e).getFileName().toString();
            if (name.startsWith("tutti-") || e.contains("tutti-core") || e.contains("tutti-net")) {
                if (!name.endsWith(".jar") || !Files.isRegularFile(Path.of(e))) {
                    return List.of();
                }
                jars.add(e);
            }
        }
        return jars;
    }

    /** The cache file of this build, or null when caching is off or impossible. */
    Path file() {
        List<String> jars = tuttiJars();
        if (dir.equalsIgnoreCase("off") || jars.isEmpty()) {
            return null;
        }
        return base().resolve("aot-" + key(jars) + ".aot");
    }

    /** Where the caches are kept: the setting, else {@code $XDG_CACHE_HOME/tutti}, else {@code ~/.cache/tutti}. */
    private Path base() {
        if (!dir.isBlank()) {
            return Path.of(dir);
        }
        String xdg = LaunchEnvironment.current().get("XDG_CACHE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg, "tutti") : Path.of(Platform.USER_HOME, ".cache", "tutti");
    }

    /**
     * The launcher's own cache, or null when caching is off or the launcher's class path is not the
     * jars of one directory (as the {@code tutti} scripts give it). Its name comes from that
     * directory alone, {@code launcher-}(the first 16 hex digits of the SHA-256 of its real path){@code
     * .aot}, so that the scripts find it before any Java runs; the build it was made from is written
     * beside it ({@code .key}), and a cache of another build is made again.
     */
    Path launcherFile() {
        if (dir.equalsIgnoreCase("off")) {
            return null;
        }
        Path lib = null;
        for (String e : Platform.CLASS_PATH.split(File.pathSeparator)) {
            Path p = Path.of(e).toAbsolutePath();
            if (!e.endsWith(".jar") || !Files.isRegularFile(p) || (lib != null && !lib.equals(p.getParent()))) {
                return null;
            }
            lib = p.getParent();
        }
        try {
            // the loop ran at least once (splitting never gives nothing), so lib is set
            return base().resolve("launcher-" + sha256(lib.toRealPath().toString()).substring(0, 16) + ".aot");
        } catch (IOException e) {
            return null;
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * What identifies a build: the JDK, the shared flags, and each jar's real path (however the class
     * path spells it: the JVM takes a cache made under another spelling), size and modification time.
     */
    private static String key(List<String> jars) {
        try {
            StringBuilder b = new StringBuilder(Platform.JAVA_HOME).append('\n')
                    .append(Platform.VM_VERSION).append('\n').append(JVM_FLAGS).append('\n');
            for (String j : jars) {
                Path p = Path.of(j);
                b.append(p.toRealPath()).append(' ').append(Files.size(p)).append(' ')
                        .append(Files.getLastModifiedTime(p).toMillis()).append('\n');
            }
            return sha256(b.toString()).substring(0, 16);
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Removes all but the {@code keep} newest rank caches in {@code dir}; a cache another job still reads stays readable. */
    static void prune(Path dir, int keep) {
        prune(dir, "aot-", keep);
    }

    /**
     * Removes all but the {@code keep} newest caches named {@code prefix}(hex){@code .aot} in {@code
     * dir}, with the {@code .key} of each removed one.
     */
    static void prune(Path dir, String prefix, int keep) {
        try (var files = Files.list(dir)) {
            List<Path> caches = new ArrayList<>(files
                    .filter(f -> f.getFileName().toString().matches(prefix + "[0-9a-f]+\\.aot")).toList());
            caches.sort(java.util.Comparator.comparing((Path f) -> {
                try {
                    return Files.getLastModifiedTime(f).toMillis();
                } catch (IOException e) {
                    return 0L;
                }
            }).reversed());
            for (Path old : caches.subList(Math.min(keep, caches.size()), caches.size())) {
                Files.deleteIfExists(old);
                Files.deleteIfExists(keyOf(old));
            }
        } catch (IOException e) {
            // an old cache left is harmless: the JVM reads only its own build's
        }
    }

    /**
     * The cache of this build, trained now if missing (once; later jobs reuse it), or null when there
     * is none: caching off, no jars, or a training that failed ({@code say} hears why).
     */
    Path prepare(Consumer<String> say) {
        Path file = file();
        if (file == null || Files.isRegularFile(file)) {
            return file;
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(Platform.JAVA_HOME, "bin", "java").toString()));
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(List.of("-XX:AOTCacheOutput=" + temporary(file), "-Xlog:aot=off,cds=off", "-cp",
                String.join(File.pathSeparator, tuttiJars()), StartupTraining.class.getName()));
        if (!train(file, cmd, "start-up cache", say)) {
            return null;
        }
        prune(file.getParent(), KEEP);
        return file;
    }

    /**
     * Makes the launcher's cache ({@link #launcherFile}) if it is missing or of another build, by a
     * two-rank job of {@link StartupTraining} through this launcher, on this class path and without
     * caches of its own. The scripts give it to every later launcher: it took a tenth off a two-rank
     * job's wall and CPU time (docs/perf/launch.md, "The launcher's own cache").
     */
    void prepareLauncher(Consumer<String> say) {
        Path file = launcherFile();
        if (file == null) {
            return;
        }
        Path keyFile = keyOf(file);
        String build = key(List.of(Platform.CLASS_PATH.split(File.pathSeparator)));
        try {
            if (Files.isRegularFile(file) && Files.isRegularFile(keyFile) && Files.readString(keyFile).equals(build)) {
                return;
            }
        } catch (IOException e) {
            // unreadable: made again
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(Platform.JAVA_HOME, "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:AOTCacheOutput=" + temporary(file), "-Xlog:aot=off,cds=off",
                "-cp", Platform.CLASS_PATH, Main.class.getName(), "run", "-n", "2", "--timeout", TRAINING_SECONDS + "s",
                StartupTraining.class.getName()));
        if (train(file, cmd, "launcher's start-up cache", say)) {
            try {
                Files.writeString(keyFile, build);
            } catch (IOException e) {
                say.accept("the launcher's start-up cache was made, but " + keyFile + " could not be written: "
                        + e.getMessage());
            }
            // one per installation, of which a few may be in use (a checkout, an unpacked archive)
            prune(file.getParent(), "launcher-", KEEP);
        }
    }

    /** The file beside a launcher's cache that names the build it was made from. */
    private static Path keyOf(Path cache) {
        return cache.resolveSibling(cache.getFileName().toString().replace(".aot", ".key"));
    }

    private static Path temporary(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
    }

    /**
     * Runs the training {@code cmd} (which writes {@link #temporary}) without this job's settings and
     * with no caches of its own, then moves its cache to {@code file}; false when it failed ({@code
     * say} hears why, naming the {@code what}).
     */
    private static boolean train(Path file, List<String> cmd, String what, Consumer<String> say) {
        Path tmp = temporary(file);
        try {
            Files.createDirectories(file.getParent());
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            // the training's own settings, not this job's, and no training inside the training
            pb.environment().keySet().removeIf(k -> k.startsWith("TUTTI_"));
            pb.environment().put("TUTTI_AOT_CACHE_DIR", "off");
            Process p = pb.start();
            if (!p.waitFor(TRAINING_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                say.accept("the " + what + " was not made within " + TRAINING_SECONDS + " s; running without it");
                return false;
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(tmp)) {
                say.accept("the " + what + " could not be made (exit code " + p.exitValue() + "); running without it");
                return false;
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (IOException e) {
            say.accept("the " + what + " could not be made in " + file.getParent() + ": " + e.getMessage()
                    + "; running without it");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            try {
                Files.deleteIfExists(tmp);
                Files.deleteIfExists(Path.of(tmp + ".config"));
            } catch (IOException ignored) {
                // a leftover temporary file is harmless
            }
        }
    }
}

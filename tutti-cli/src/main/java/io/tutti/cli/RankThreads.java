package io.tutti.cli;

import io.tutti.bootstrap.ThreadLauncher;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.UnaryOperator;

/**
 * What ranks that are threads of one JVM need beyond {@link ThreadLauncher}: each runs the program
 * through a class loader of its own (its own statics, as a rank JVM would have), over its own copy
 * of the mpi API ({@link RankApiLoader}: the API's state is static, one rank's per process), and with
 * {@code --tag-output} every line a rank's threads print is tagged with its rank. One piece of code
 * for both JVMs that run ranks as threads: {@code tutti run --threads} on one host ({@link Launcher})
 * and the JVM that runs one host's ranks across hosts ({@link HostThreads}).
 *
 * <p>Opened, it swaps {@link System#out} and {@link System#err} for streams that tag by thread (or
 * only relay); closed, it puts the old ones back.
 */
final class RankThreads implements AutoCloseable {
    /** The rank a thread belongs to, inherited by the threads a rank starts, for tagged output. */
    private static final InheritableThreadLocal<Integer> RANK_OF_THREAD = new InheritableThreadLocal<>();

    private final PrintStream savedOut = System.out;
    private final PrintStream savedErr = System.err;
    private final TaggedOutput.ThreadStream taggedOut;
    private final TaggedOutput.ThreadStream taggedErr;

    /**
     * Output of the ranks goes to {@code out} and {@code err}: tagged with the rank with {@code tag},
     * else, with {@code relay}, standard output still line by line through {@code out}.
     */
    RankThreads(PrintStream out, PrintStream err, boolean tag, boolean relay) {
        if (tag) {
            taggedOut = TaggedOutput.perThread(out, RankThreads::threadPrefix);
            taggedErr = TaggedOutput.perThread(err, RankThreads::threadPrefix);
            System.setOut(taggedOut);
            System.setErr(taggedErr);
        } else if (relay) {
            taggedOut = TaggedOutput.perThread(out, () -> new byte[0]);
            taggedErr = null;
            System.setOut(taggedOut);
        } else {
            taggedOut = null;
            taggedErr = null;
        }
    }

    /**
     * The code of one rank: {@code mainClass} with {@code args}, loaded through a loader of its own
     * over {@code urls}, whose parent {@code parentOf} makes for each rank from the rank's own copy of
     * the mpi API ({@link RankApiLoader} over {@code parent}): the identity, or a loader of classes
     * shipped on standard input, defined anew for every rank.
     */
    ThreadLauncher.RankBody body(URL[] urls, ClassLoader parent, UnaryOperator<ClassLoader> parentOf,
                                 String mainClass, String[] args) {
        return rank -> {
            RANK_OF_THREAD.set(rank);
            ClassLoader api = new RankApiLoader("tutti-rank-" + rank + "-api", parent, mainClass);
            try (URLClassLoader loader = new URLClassLoader("tutti-rank-" + rank, urls, parentOf.apply(api))) {
                Thread.currentThread().setContextClassLoader(loader);
                JobTarget.invokeMain(Class.forName(mainClass, true, loader), args);
            } finally {
                // a rank's last line without its newline still ends tagged, before another rank's
                if (taggedOut != null) {
                    taggedOut.endLine();
                }
                if (taggedErr != null) {
                    taggedErr.endLine();
                }
            }
        };
    }

    @Override
    public void close() {
        if (taggedOut != null) {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
    }

    private static byte[] threadPrefix() {
        Integer rank = RANK_OF_THREAD.get();
        return rank == null ? new byte[0] : TaggedOutput.prefix(rank);
    }
}

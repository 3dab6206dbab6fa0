package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.monitor.JobCounters;
import io.tutti.monitor.MonitorServer;
import io.tutti.monitor.Watch;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tutti monitor}: serves the status page, the JSON API and the Prometheus metrics of the jobs
 * named, or of every job of this user on this host as they come and go, until Ctrl-C.
 */
@Command(name = "monitor", usageHelpAutoWidth = true, sortOptions = false, mixinStandardHelpOptions = true,
        description = {
            "Serves over HTTP the jobs named, or else every job of this user on this host (as 'tutti status'"
                + " lists them, new ones as they start):",
            "  /            a live page: rank x rank traffic, rail throughput, retransmits,",
            "               collectives per second and their latency, failures in red",
            "  /metrics     Prometheus metrics (labels job, rank, peer, transport, rail, op)",
            "  /api/jobs    the jobs as JSON; /api/jobs/JOB one job",
            "  POST /api/jobs/JOB/rails/RAIL/down|up   with --token-file's token: a rail out of service and back",
            "Reads the ranks' counters files without disturbing them; runs until Ctrl-C. Without --token-file it is"
                + " read-only: every request but GET is refused (403)."},
        footer = {"", "Examples:",
            "  tutti monitor                                   # http://127.0.0.1:9464/",
            "  tutti monitor 1f2e3d4c --port 8080",
            "  tutti monitor --bind 0.0.0.0 --token-file ~/.tutti-token",
            "  tutti run -n 4 --monitor 9464 app.jar           # one job, while it runs"})
public final class MonitorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "JOB",
            description = "Jobs to watch: ids as 'tutti status' lists them, or their directories (default: every"
                    + " job of this user on this host).")
    List<String> jobs = new ArrayList<>();

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "" + MonitorServer.DEFAULT_PORT,
            description = "The port to listen on (default: ${DEFAULT-VALUE}; 0 picks a free one and prints it).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}, this host only; 0.0.0.0 lets every"
                    + " host that reaches this one read the counters).")
    String bind;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "A file (readable by its owner only) whose first line is the secret that control requests"
                    + " must show as 'Authorization: Bearer TOKEN'. Without it control is disabled.")
    Path tokenFile;

    /** Where job directories are; tests point it elsewhere. */
    Path root = ShmFiles.defaultRoot();

    /** Released to stop serving (tests); otherwise the command serves until the JVM is stopped. */
    final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Path> named = new ArrayList<>();
        for (String j : jobs) {
            Path dir = JobStatus.directory(root, j);
            if (!Files.isDirectory(dir)) {
                err.println("tutti monitor: no job " + j + " on this host (no directory " + dir
                        + "); 'tutti status' lists the jobs here");
                return Launcher.EXIT_USAGE;
            }
            named.add(dir);
        }
        Supplier<List<Path>> source = named.isEmpty() ? this::runningJobs : () -> named;
        MonitorServer server;
        try {
            server = serve(bind, port, tokenFile, source);
        } catch (IllegalArgumentException e) {
            err.println("tutti monitor: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        try (server) {
            announce(out, "tutti monitor", bind, server, named.isEmpty() ? "every job of this user on this host"
                    : String.join(", ", jobs));
            out.println("Ctrl-C ends it");
            out.flush();
            stop.await();
        }
        return 0;
    }

    /** This user's job directories that are not stale (their ranks and launcher all gone). */
    private List<Path> runningJobs() {
        List<Path> out = new ArrayList<>();
        for (Path d : StatusCommand.ownJobDirectories(root)) {
            try {
                if (!StaleJobs.isStale(d, JobCounters::alive, Instant.now())) {
                    out.add(d);
                }
            } catch (IOException | RuntimeException e) {
                // vanished while we looked
            }
        }
        return out;
    }

    /**
     * Starts a monitor of the jobs {@code source} lists at {@code bind}:{@code port}; the token from
     * {@code tokenFile} (null: control disabled). Throws {@link IllegalArgumentException} with what to
     * do when the address or the token file is not usable.
     */
    static MonitorServer serve(String bind, int port, Path tokenFile, Supplier<List<Path>> source) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port " + port + " is not a port: give 1 to 65535, or 0 for any free one");
        }
        String token = tokenFile == null ? null : MonitorServer.readToken(tokenFile);
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (IOException e) {
            throw new IllegalArgumentException("--bind " + bind + " is not an address of this host: " + e.getMessage());
        }
        Watch watch = new Watch(source).start();
        try {
            return MonitorServer.start(new InetSocketAddress(address, port), watch, token);
        } catch (IOException e) {
            watch.close();
            throw new IllegalArgumentException("cannot listen on " + bind + ":" + port + " (" + e.getMessage()
                    + "): choose another port" + (port == 0 ? "" : " with --port, or 0 for any free one"));
        }
    }

    /** Tells where the monitor listens and whether control is enabled. */
    static void announce(PrintWriter out, String who, String bind, MonitorServer server, String what) {
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        out.println(who + ": serving " + what + " at http://" + host + ":" + server.port() + "/ (metrics at /metrics,"
                + " JSON at /api/jobs)");
        out.println(who + ": " + (server.control() ? "control enabled for requests with the token of --token-file"
                : "control is disabled (no --token-file): read-only"));
        try {
            if (!InetAddress.getByName(bind).isLoopbackAddress()) {
                out.println(who + ": listening beyond this host: anyone who reaches " + host + ":" + server.port()
                        + " can read the jobs' counters");
            }
        } catch (IOException e) {
            // resolved once already
        }
    }
}

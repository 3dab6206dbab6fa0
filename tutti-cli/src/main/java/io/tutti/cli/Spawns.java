package io.tutti.cli;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.bootstrap.Binding;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.RendezvousServer;
import io.tutti.bootstrap.RendezvousWire;
import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The jobs that a running job's ranks spawn ({@code Communicator.spawn}): for each request, a job
 * directory and rendezvous of its own, whose first ranks are the spawning ones (they join it from
 * their processes) and whose last are new rank processes, started by the launcher as its own ranks
 * are ({@link Starter}), spread over the hosts of the job's ranks, with a secret derived from the
 * spawning job's ({@link RendezvousWire#spawnSecret}). The launcher waits for the new processes as
 * for its ranks ({@link #await}) and stops what is left at its end ({@link #close}). Spawned jobs
 * may spawn in turn. The jobs where an accept and a connect meet ({@link Ports}) are made and
 * stopped here too, without processes of their own.
 */
final class Spawns implements AutoCloseable {
    /** At most this many processes per request: more is a mistake in the program, not a job. */
    static final int MAX_COUNT = 4096;
    /** A class name as {@code java} takes it: never an option, never a path. */
    private static final Pattern CLASS_NAME = Pattern.compile(
            "\\p{javaJavaIdentifierStart}[\\p{javaJavaIdentifierPart}.$]*");

    /** How the launcher starts a spawned job's processes: as it starts its own ranks. */
    interface Starter {
        /** A rendezvous for spawned job {@code job} of {@code size} ranks, where every rank of it can reach it. */
        RendezvousServer rendezvous(JobDirectory job, int size) throws IOException;

        /** The addresses of {@code server} that the ranks are given, comma separated. */
        String addresses(RendezvousServer server);

        /**
         * The process of rank {@code rank} of {@code size} of {@code job}, which runs {@code mainClass}
         * with {@code args}, on the host of the launcher's rank {@code slot}, {@code extra} in its
         * environment; its output is the caller's to redirect.
         */
        ProcessBuilder builder(JobDirectory job, int rank, int size, int slot, String rendezvous, String mainClass,
                               List<String> args, Map<String, String> extra) throws IOException;

        /** Hands a started process what it reads first (the secret, behind a remote shell). */
        void started(Process process, JobDirectory job, int slot);
    }

    private final int ranks;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean pipeOutput;
    private final boolean tagOutput;
    private final boolean verbose;
    private final Consumer<String> say;
    /** Why this job cannot spawn (its ranks are threads), or null when it can. */
    private final String refusal;
    private volatile Starter starter;
    private final List<Spawned> jobs = new ArrayList<>();
    /** The ports and names of every job this launcher serves: the job's own and those made here. */
    private final Ports ports = new Ports(this::joined);
    private boolean closed;

    /** One spawned job: its directory, rendezvous and new processes, and what they run. */
    private record Spawned(JobDirectory dir, RendezvousServer server, List<Process> processes, List<String> classes,
                           List<Thread> pumps) {
    }

    /**
     * For a job of {@code ranks} ranks, whose spawned processes' output goes to {@code out} and
     * {@code err}: through pumps with {@code tagOutput} (then tagged) or {@code relay}, else inherited.
     */
    Spawns(int ranks, PrintStream out, PrintStream err, boolean tagOutput, boolean relay, boolean verbose,
           Consumer<String> say, String refusal) {
        this.ranks = ranks;
        this.out = out;
        this.err = err;
        this.tagOutput = tagOutput;
        this.pipeOutput = tagOutput || relay;
        this.verbose = verbose;
        this.say = say;
        this.refusal = refusal;
    }

    /** How processes are started, once the launcher can (its hosts' connections are open). */
    void starter(Starter how) {
        this.starter = how;
    }

    /** Serves the spawn, port and name requests of the ranks of {@code server}'s job, whose secret is {@code secret}. */
    void serve(RendezvousServer server, byte[] secret) {
        server.onSpawn((rank, programs, parents) -> spawn(secret, programs, parents));
        // a port opened here is reached at this rendezvous; rank -1 is another run's launcher
        server.onPort((rank, operation, args, asking) -> ports.answer(rank < 0 ? null : secret,
                starter().addresses(server), operation, args, asking));
        server.onPortClient(ports::token);
    }

    /**
     * A job of {@code size} ranks for an accept and a connect that met ({@link Ports}): a directory
     * and rendezvous of its own, no processes (the ranks of both sides join it from theirs), stopped
     * with the others.
     */
    private Ports.Joined joined(int size) throws IOException {
        Starter how = starter();
        JobDirectory dir = JobDirectory.create();
        RendezvousServer server = null;
        try {
            server = how.rendezvous(dir, size);
            serve(server, dir.secret());
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the job is ending");
                }
                jobs.add(new Spawned(dir, server, List.of(), List.of(), List.of()));
            }
            if (verbose) {
                say.accept("joined job " + dir.id() + " of " + size + " ranks at a port");
            }
            return new Ports.Joined(dir, how.addresses(server));
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            }
            ShmFiles.deleteTree(dir.dir());
            throw e;
        }
    }

    /** How processes and jobs are made; refuses where this job cannot (its ranks are threads) or cannot yet. */
    private Starter starter() {
        Starter how = starter;
        if (refusal != null || how == null) {
            throw new IllegalStateException(refusal != null ? refusal : "the launcher is still starting the job");
        }
        return how;
    }

    private String spawn(byte[] secret, List<Communicator.Program> programs, int parents) throws IOException {
        Starter how = starter();
        long total = 0;
        for (Communicator.Program p : programs) {
            if (!CLASS_NAME.matcher(p.mainClass()).matches()) {
                throw new IllegalArgumentException("'" + p.mainClass() + "' is not the name of a class (such as"
                        + " org.example.Worker)");
            }
            total += Math.max(0, p.count());
            if (p.count() < 1 || total > MAX_COUNT) {
                throw new IllegalArgumentException("cannot spawn " + (p.count() < 1 ? p.count() : total)
                        + " processes: from 1 to " + MAX_COUNT);
            }
        }
        int count = (int) total;
        String mainClass = programs.getFirst().mainClass() + (programs.size() > 1 ? " and others" : "");
        if (parents < 1 || parents > Integer.MAX_VALUE - MAX_COUNT) {
            throw new IllegalArgumentException("a spawn from " + parents + " ranks: there must be at least one");
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the job is ending");
            }
        }
        JobDirectory dir = JobDirectory.create(id -> RendezvousWire.spawnSecret(secret, id));
        RendezvousServer server = null;
        List<Process> started = new ArrayList<>();
        List<Thread> pumps = new ArrayList<>();
        try {
            server = how.rendezvous(dir, parents + count);
            serve(server, dir.secret());
            String rendezvous = how.addresses(server);
            // not bound: the cores are the spawning ranks'
            Map<String, String> extra = Map.of(LaunchEnvironment.PARENTS, Integer.toString(parents),
                    Config.envName(Binding.PROPERTY), "none");
            List<Communicator.Program> each = new ArrayList<>();
            programs.forEach(p -> each.addAll(java.util.Collections.nCopies(p.count(), p)));
            for (int k = 0; k < count; k++) {
                int slot = k % ranks;
                Communicator.Program program = each.get(k);
                ProcessBuilder pb = how.builder(dir, parents + k, parents + count, slot, rendezvous,
                        program.mainClass(), program.args(), extra);
                pb.redirectInput(ProcessBuilder.Redirect.PIPE);
                ProcessBuilder.Redirect output = pipeOutput ? ProcessBuilder.Redirect.PIPE
                        : ProcessBuilder.Redirect.INHERIT;
                pb.redirectOutput(output).redirectError(output);
                Process p = pb.start();
                started.add(p);
                how.started(p, dir, slot);
                // one that ends before it joined would leave the others waiting for it until their timeout
                int rank = parents + k;
                String who = "spawned process " + k + " of " + count + " (" + program.mainClass() + ", pid " + p.pid()
                        + ")";
                RendezvousServer joining = server;
                p.onExit().thenRun(() -> {
                    if (!joining.joined(rank)) {
                        joining.announceFailed(rank, who + " " + RankProcesses.describeExit(p.exitValue())
                                + " before it joined");
                    }
                });
                try {
                    p.getOutputStream().close();
                } catch (IOException e) {
                    // ended already: its exit is reported
                }
                if (pipeOutput) {
                    // tagged as rank k of the spawned job's world, after the job's id
                    byte[] prefix = tagOutput ? ("[" + dir.id() + ":" + k + "] ")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII) : new byte[0];
                    pumps.add(Thread.ofPlatform().daemon().name("tutti-out-spawned")
                            .start(() -> TaggedOutput.pump(p.getInputStream(), out, prefix)));
                    pumps.add(Thread.ofPlatform().daemon().name("tutti-err-spawned")
                            .start(() -> TaggedOutput.pump(p.getErrorStream(), err, prefix)));
                }
            }
            JobDirectory.writeAtomically(dir.dir(), StaleJobs.RANK_PIDS, started.stream()
                    .map(p -> Long.toString(p.pid())).collect(java.util.stream.Collectors.joining(" ")) + "\n");
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the job is ending");
                }
                jobs.add(new Spawned(dir, server, List.copyOf(started), each.stream()
                        .map(Communicator.Program::mainClass).toList(), pumps));
            }
            if (verbose) {
                say.accept("spawned job " + dir.id() + ": " + count + (count == 1 ? " process" : " processes")
                        + " of " + mainClass + ", pids " + started.stream().map(p -> Long.toString(p.pid())).toList());
            }
            return dir.id() + "\n" + rendezvous;
        } catch (IOException | RuntimeException e) {
            RankProcesses.stop(started);
            if (server != null) {
                server.close();
            }
            ShmFiles.deleteTree(dir.dir());
            throw e;
        }
    }

    /**
     * Waits until every spawned process has ended or {@code deadlineNanos} ({@link System#nanoTime()};
     * 0 for none) has passed, and returns the job's exit code given that its own ranks ended with
     * {@code code} (a failed job does not wait): the first spawned process that failed makes the job
     * fail, and one still running at the deadline makes it time out. Each is reported.
     */
    int await(int code, long deadlineNanos) throws InterruptedException {
        if (code != 0) {
            return code; // the job failed: what it spawned is stopped with it
        }
        List<Spawned> all;
        synchronized (this) {
            all = List.copyOf(jobs);
        }
        for (Spawned s : all) {
            for (int k = 0; k < s.processes().size(); k++) {
                Process p = s.processes().get(k);
                boolean ended = true;
                if (deadlineNanos == 0) {
                    p.waitFor();
                } else {
                    ended = p.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                String who = "spawned process " + k + " of " + s.processes().size() + " (" + s.classes().get(k) + ", pid "
                        + p.pid() + ")";
                if (!ended) {
                    say.accept(who + " was still running at the job's timeout");
                    return code != 0 ? code : Launcher.EXIT_TIMEOUT;
                }
                if (p.exitValue() != 0 && code == 0) {
                    say.accept(who + " " + RankProcesses.describeExit(p.exitValue()));
                    code = p.exitValue();
                }
            }
        }
        return code;
    }

    /** Stops the spawned processes still running, and removes their jobs' rendezvous and files. */
    @Override
    public void close() {
        List<Spawned> all;
        synchronized (this) {
            closed = true;
            all = List.copyOf(jobs);
        }
        List<Process> processes = new ArrayList<>();
        all.forEach(s -> processes.addAll(s.processes()));
        all.forEach(s -> s.server().onDropped(null));
        RankProcesses.stop(processes);
        for (Spawned s : all) {
            s.server().close();
            for (Thread t : s.pumps()) {
                try {
                    t.join(RankProcesses.STOP_GRACE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            ShmFiles.deleteTree(s.dir().dir());
        }
    }
}

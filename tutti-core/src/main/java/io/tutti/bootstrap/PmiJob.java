package io.tutti.bootstrap;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * This process's membership of a job whose launcher offers a process-management interface: PMI-2
 * on {@code PMI_FD} ({@code srun --mpi=pmi2}, MPICH's {@code mpiexec}) or PMIx (Open MPI's
 * {@code mpirun}, {@code srun --mpi=pmix}); the rendezvous store on its key-value space, and the
 * job secret. Rank 0 draws 256 random bits and puts them there before the first fence; every rank
 * reads them after it, so only processes the launcher started know the HMAC key. The rank tells
 * the launcher it is done (PMI finalize) when the JVM ends: Hydra and Open MPI take a rank that ends
 * without it for a crash. One per process, as the launcher's link is.
 */
public final class PmiJob {
    static final String SECRET_KEY = "tutti-secret";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** Where the PMIx client library is looked for: the dynamic linker's search path. */
    static final List<String> PMIX_LIBRARIES = List.of("libpmix.so.2", "libpmix.so");
    private static PmiJob current;

    private final PmiConnection client;
    /** What the launcher handed over: PMI_FD's number or the PMIx namespace, one link per process. */
    private final String link;
    private byte[] secret;
    /** The id of the JobInfo Bootstrap made from this membership. */
    private String boundJob;

    private PmiJob(PmiConnection client, String link, byte[] secret) {
        this.client = client;
        this.link = link;
        this.secret = secret;
    }

    /** Whether the launcher hands this process a PMI-2 socket or a PMIx server. */
    static boolean offered(Map<String, String> env) {
        return pmi2(env) || pmix(env);
    }

    private static boolean pmi2(Map<String, String> env) {
        return env.containsKey("PMI_FD") && env.containsKey("PMI_RANK") && env.containsKey("PMI_SIZE");
    }

    private static boolean pmix(Map<String, String> env) {
        return env.containsKey("PMIX_NAMESPACE") && env.containsKey("PMIX_RANK");
    }

    /**
     * Joins the job as rank {@code rank} of {@code size}, once per process: over PMI-2 when the
     * launcher hands over {@code PMI_FD}, else over PMIx (the library named by {@code
     * TUTTI_PMIX_LIBRARY}, else {@link #PMIX_LIBRARIES}).
     */
    static synchronized PmiJob join(Map<String, String> env, int rank, int size) {
        String link = pmi2(env) ? "PMI_FD=" + env.get("PMI_FD").trim() : "PMIX_NAMESPACE=" + env.get("PMIX_NAMESPACE");
        if (current != null && current.link.equals(link) && current.client.rank() == rank) {
            return current;
        }
        PmiConnection client = pmi2(env) ? pmi2(env, rank) : pmix(env, rank, size);
        if (client.size() != size) {
            throw new IllegalStateException("the " + client.name() + " server says the job has " + client.size()
                    + " ranks, but the environment says " + size);
        }
        byte[] secret = null;
        if (rank == 0) {
            secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            try {
                client.put(SECRET_KEY, HexFormat.of().formatHex(secret), CONNECT_TIMEOUT.toMillis());
            } catch (TimeoutException e) {
                throw new IllegalStateException("the " + client.name() + " server did not take the job secret within "
                        + CONNECT_TIMEOUT.toSeconds() + " s");
            }
        }
        PmiJob job = new PmiJob(client, link, secret);
        Runtime.getRuntime().addShutdownHook(new Thread(job::finish, "tutti-pmi-finalize"));
        current = job;
        return job;
    }

    private static PmiConnection pmi2(Map<String, String> env, int rank) {
        String fdText = env.get("PMI_FD").trim();
        int fd;
        try {
            fd = Integer.parseInt(fdText);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable PMI_FD is not a number: '" + fdText + "'");
        }
        if (!io.tutti.os.RawFd.available()) {
            throw new IllegalStateException("this job's launcher hands over PMI_FD, but this JVM cannot read it:"
                    + " run on Linux with --enable-native-access=ALL-UNNAMED");
        }
        try {
            return Pmi2Client.connect(fd, env.get("PMI_JOBID"), rank, CONNECT_TIMEOUT.toMillis());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the PMI server on PMI_FD=" + fd + " did not answer within "
                    + CONNECT_TIMEOUT.toSeconds() + " s");
        }
    }

    private static PmiConnection pmix(Map<String, String> env, int rank, int size) {
        String named = env.get(LaunchEnvironment.PMIX_LIBRARY);
        List<String> libraries = named == null || named.isBlank() ? PMIX_LIBRARIES : List.of(named.strip());
        PmixClient client;
        try {
            client = PmixClient.connect(libraries, size, CONNECT_TIMEOUT.toMillis());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the PMIx server of namespace " + env.get("PMIX_NAMESPACE")
                    + " did not answer within " + CONNECT_TIMEOUT.toSeconds() + " s");
        } catch (IllegalStateException e) {
            throw new IllegalStateException("this job's launcher offers PMIx, but " + e.getMessage() + "; install"
                    + " the PMIx library the launcher uses (Debian: libpmix2) or name it with "
                    + LaunchEnvironment.PMIX_LIBRARY + ", or set " + LaunchEnvironment.KVS_DIR
                    + " to a directory every rank can reach", e);
        }
        if (client.rank() != rank) {
            throw new IllegalStateException("the PMIx server says this is rank " + client.rank()
                    + ", but the environment says " + rank);
        }
        return client;
    }

    /** Records that Bootstrap made the job {@code jobId} from this membership. */
    synchronized void bind(String jobId) {
        boundJob = jobId;
    }

    /** The PMI membership that made {@code job}, or null when it came from elsewhere. */
    static synchronized PmiJob of(JobInfo job) {
        PmiJob c = current;
        if (c == null || job.launcher() == JobInfo.Launcher.TUTTI || job.rank() != c.client.rank()) {
            return null;
        }
        synchronized (c) {
            return job.jobId().equals(c.boundJob) ? c : null;
        }
    }

    /** The launcher's job id, as PMI names it. */
    String jobId() {
        return client.jobId();
    }

    /** The rendezvous store on the launcher's key-value space; each call waits at most {@code timeout}. */
    PmiKeyValueStore store(Duration timeout) {
        return new PmiKeyValueStore(client, timeout);
    }

    /** The job's secret: rank 0's own, others read it (valid after the first fence). */
    synchronized byte[] secret(Duration timeout) throws TimeoutException {
        if (secret == null) {
            String hex = store(timeout).get(0, SECRET_KEY);
            try {
                secret = HexFormat.of().parseHex(hex);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("the job secret in the " + client.name()
                        + " key-value space is malformed");
            }
        }
        return secret.clone();
    }

    private void finish() {
        try {
            client.finish(3_000);
        } catch (TimeoutException | RuntimeException e) {
            // the JVM is ending: the launcher notices the closed socket
        }
    }
}

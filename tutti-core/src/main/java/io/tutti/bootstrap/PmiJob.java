package io.tutti.bootstrap;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * This process's membership of a job whose launcher speaks PMI-2 on {@code PMI_FD} ({@code srun
 * --mpi=pmi2}, MPICH's {@code mpiexec}): the rendezvous store on the launcher's key-value space,
 * and the job secret. Rank 0 draws 256 random bits and puts them there before the first fence;
 * every rank reads them after it, so only processes the launcher started know the HMAC key. The
 * rank tells the launcher it is done (PMI finalize) when the JVM ends: Hydra kills a job whose rank
 * ends without it. One per process, as PMI_FD is.
 */
public final class PmiJob {
    static final String SECRET_KEY = "tutti-secret";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static PmiJob current;

    private final Pmi2Client client;
    private final int fd;
    private byte[] secret;
    /** The id of the JobInfo Bootstrap made from this membership. */
    private String boundJob;

    private PmiJob(Pmi2Client client, int fd, byte[] secret) {
        this.client = client;
        this.fd = fd;
        this.secret = secret;
    }

    /** Joins the job on the launcher's {@code PMI_FD} as rank {@code rank}, once per process. */
    static synchronized PmiJob join(Map<String, String> env, int rank, int size) {
        String fdText = env.get("PMI_FD").trim();
        int fd;
        try {
            fd = Integer.parseInt(fdText);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable PMI_FD is not a number: '" + fdText + "'");
        }
        if (current != null && current.fd == fd && current.client.rank() == rank) {
            return current;
        }
        if (!io.tutti.os.RawFd.available()) {
            throw new IllegalStateException("this job's launcher hands over PMI_FD, but this JVM cannot read it:"
                    + " run on Linux with --enable-native-access=ALL-UNNAMED");
        }
        Pmi2Client client;
        try {
            client = Pmi2Client.connect(fd, env.get("PMI_JOBID"), rank, CONNECT_TIMEOUT.toMillis());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the PMI server on PMI_FD=" + fd + " did not answer within "
                    + CONNECT_TIMEOUT.toSeconds() + " s");
        }
        if (client.size() != size) {
            throw new IllegalStateException("the PMI server says the job has " + client.size()
                    + " ranks, but the environment says " + size);
        }
        byte[] secret = null;
        if (rank == 0) {
            secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            try {
                client.put(SECRET_KEY, HexFormat.of().formatHex(secret), CONNECT_TIMEOUT.toMillis());
            } catch (TimeoutException e) {
                throw new IllegalStateException("the PMI server did not take the job secret within "
                        + CONNECT_TIMEOUT.toSeconds() + " s");
            }
        }
        PmiJob job = new PmiJob(client, fd, secret);
        Runtime.getRuntime().addShutdownHook(new Thread(job::finish, "tutti-pmi-finalize"));
        current = job;
        return job;
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
            String hex = store(timeout).get(SECRET_KEY);
            try {
                secret = HexFormat.of().parseHex(hex);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("the job secret in the PMI key-value space is malformed");
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

package io.tutti.bootstrap;

import java.nio.file.Path;

/**
 * What a rank learns about its job at start-up.
 *
 * @param launcher   who started the job
 * @param jobId      identifies the job; names its shared-memory directory
 * @param rank       rank in the world communicator
 * @param size       number of ranks
 * @param localRank  rank among the ranks on this node
 * @param localSize  number of ranks on this node
 * @param nodeId     index of this node
 * @param jobDir     the job's shared-memory directory (owner-only)
 * @param kvsDir     directory of the file-based rendezvous store
 * @param secretFile the per-job secret (owner-only), or null where none was handed over
 * @param launcherPid pid of {@code tutti run}, or -1
 * @param threads    whether the ranks are threads of one JVM
 * @param rendezvous where the launcher serves the rendezvous ({@code unix:/path}, {@code tcp:host:port}),
 *                   tried in order; empty when the ranks meet in {@code kvsDir}
 * @param secret     the job secret handed over by the launcher, or null (then {@code secretFile} is read)
 * @param parents    in a spawned job, how many ranks from 0 are the spawning parents (0 otherwise):
 *                   the world of the ranks after them is theirs alone
 */
public record JobInfo(Launcher launcher, String jobId, int rank, int size, int localRank, int localSize, int nodeId,
                      Path jobDir, Path kvsDir, Path secretFile, long launcherPid, boolean threads,
                      java.util.List<String> rendezvous, byte[] secret, int parents) {

    public JobInfo {
        rendezvous = rendezvous == null ? java.util.List.of() : java.util.List.copyOf(rendezvous);
        if (parents < 0 || parents >= size && parents > 0) {
            throw new IllegalStateException("inconsistent launch environment: " + parents + " parents in a job of "
                    + size + " ranks");
        }
    }

    /** A job that was not spawned. */
    public JobInfo(Launcher launcher, String jobId, int rank, int size, int localRank, int localSize, int nodeId,
                   Path jobDir, Path kvsDir, Path secretFile, long launcherPid, boolean threads,
                   java.util.List<String> rendezvous, byte[] secret) {
        this(launcher, jobId, rank, size, localRank, localSize, nodeId, jobDir, kvsDir, secretFile, launcherPid,
                threads, rendezvous, secret, 0);
    }

    /** Whether this rank is one of the processes a spawn started (its parents are the ranks before it). */
    public boolean spawned() {
        return parents > 0 && rank >= parents;
    }

    /** A job whose ranks meet in {@code kvsDir}, without the launcher's rendezvous. */
    public JobInfo(Launcher launcher, String jobId, int rank, int size, int localRank, int localSize, int nodeId,
                   Path jobDir, Path kvsDir, Path secretFile, long launcherPid, boolean threads) {
        this(launcher, jobId, rank, size, localRank, localSize, nodeId, jobDir, kvsDir, secretFile, launcherPid,
                threads, null, null, 0);
    }

    /** The launch environments Tutti recognises. */
    public enum Launcher { TUTTI, SLURM, OPEN_MPI, MPICH, SINGLETON }

    /** A 32-bit id carried in every packet header, derived from the job id. */
    public int wireJobId() {
        return jobId.hashCode() * 0x9E3779B1;
    }
}

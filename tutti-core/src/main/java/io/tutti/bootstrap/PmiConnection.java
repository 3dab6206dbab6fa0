package io.tutti.bootstrap;

import java.util.concurrent.TimeoutException;

/**
 * A rank's link to its launcher's process-management interface: PMI-2 on {@code PMI_FD}
 * ({@link Pmi2Client}: {@code srun --mpi=pmi2}, MPICH's Hydra) or PMIx through the launcher's
 * client library ({@link PmixClient}: Open MPI's {@code mpirun}, {@code srun --mpi=pmix}). A key
 * belongs to the rank that put it and is read by naming that rank; every call is bounded.
 */
interface PmiConnection {
    /** The interface's name for messages: {@code PMI-2} or {@code PMIx}. */
    String name();

    int rank();

    int size();

    /** The launcher's name for this job. */
    String jobId();

    /** The longest key and value (as encoded) the launcher takes. */
    int maxKey();

    int maxValue();

    /** Publishes this rank's {@code value} under {@code key}, visible to all after the next fence. */
    void put(String key, String value, long timeoutMillis) throws TimeoutException;

    /** Waits until every rank of the job has fenced as often as this one. */
    void fence(long timeoutMillis) throws TimeoutException;

    /** What {@code rank} put under {@code key} before the last fence, or null if it put nothing there. */
    String get(int rank, String key, long timeoutMillis) throws TimeoutException;

    /** Tells the launcher this rank is done, giving up after {@code timeoutMillis}; once only. */
    void finish(long timeoutMillis) throws TimeoutException;
}

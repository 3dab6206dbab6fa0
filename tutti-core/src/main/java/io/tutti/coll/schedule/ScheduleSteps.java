package io.tutti.coll.schedule;

/**
 * Read access to one rank's steps, finished ({@link Schedule}) or still in a builder's arrays
 * ({@link ScheduleBuilder}): what a reader of timing needs (kind, peer, tag, length, dependencies).
 * The simulator folds a million ranks' schedules straight from one builder through it, so that no
 * {@code Schedule} is made per rank; the runtime keeps the {@code Schedule} the builder returns.
 */
public interface ScheduleSteps {
    /** Which algorithm built it, for reports. */
    String name();

    int rank();

    int size();

    /** Number of steps. */
    int steps();

    /** The step's kind ({@link Schedule#SEND} ...). */
    byte kind(int step);

    /** SEND/RECV: the peer's rank in the communicator. */
    int peer(int step);

    /** SEND/RECV: the tag that pairs a send with its receive. */
    int tag(int step);

    /** Bytes. */
    long length(int step);

    /**
     * Where the dependencies of {@code step} start among {@link #dependency}'s indices; those of step
     * {@code i} run from {@code dependenciesFrom(i)} to {@code dependenciesFrom(i + 1)}, in the order
     * they were added.
     */
    int dependenciesFrom(int step);

    /** The {@code k}-th entry of the dependency lists (see {@link #dependenciesFrom}). */
    int dependency(int k);
}

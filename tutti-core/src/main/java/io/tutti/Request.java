package io.tutti;

import io.tutti.idle.Idle;

/**
 * A nonblocking operation in flight. Complete it with {@link #waitFor()} or poll it with
 * {@link #test()}; a request belongs to the rank (thread) that started it.
 */
public interface Request {

    /**
     * Starts a persistent request (from {@code sendInit}/{@code recvInit}) again; it must have
     * completed. Persistent requests are the allocation-free way to repeat an exchange.
     */
    default void start() {
        throw new TuttiException.InvalidArgument("only persistent requests (sendInit, recvInit) can be started");
    }

    /**
     * Releases a request that is no longer needed, typically a persistent one (MPI_Request_free);
     * it must not be running. Starting a freed persistent request fails.
     */
    default void free() {
    }

    /**
     * Cancels a receive that no message has matched yet (MPI_CANCEL): it completes at once, having
     * received nothing, and its status says so ({@link Status#cancelled()}); returns true then. A
     * receive already matched, a send or a collective is not cancelled (false) and completes as it
     * would; complete the request with a wait or test either way.
     */
    default boolean cancel() {
        return false;
    }

    /** Drives progress until the operation completes; throws its error, if any. */
    Status waitFor();

    /**
     * Drives progress until the operation completes and fills {@code into} (may be null) instead of
     * allocating a status: the allocation-free form for loops.
     */
    void waitFor(Status into);

    /** Drives progress once; true when the operation has completed (its error is thrown then). */
    boolean test();

    /**
     * False for a persistent request that has not been started, or whose completion a wait or test
     * has already reported (MPI's inactive state); always true for other requests.
     */
    boolean isActive();

    /** Whether the operation has completed, without driving progress. */
    boolean isDone();

    /** The status of a completed receive (source, tag, length); for a send, the destination and tag. */
    Status status();

    /** Waits for every request; the first error is thrown after all have completed or failed. */
    static void waitAll(Request... requests) {
        TuttiException first = null;
        for (Request r : requests) {
            if (r == null) {
                continue;
            }
            try {
                r.waitFor();
            } catch (TuttiException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Tests every request once; true if all have completed. */
    static boolean testAll(Request... requests) {
        boolean all = true;
        for (Request r : requests) {
            if (r != null && !r.test()) {
                all = false;
            }
        }
        return all;
    }

    /**
     * Waits until one of the requests completes and returns its index; -1 if the array holds no
     * active request (null and inactive persistent requests are skipped, as in MPI).
     */
    static int waitAny(Request... requests) {
        boolean any = false;
        for (Request r : requests) {
            any |= r != null && r.isActive();
        }
        if (!any) {
            return -1;
        }
        // back off like a blocked call, so ranks sharing a core are not starved
        Idle idle = new Idle(Idle.POLLING);
        for (int round = 0; ; round = idle.idle(round)) {
            for (int i = 0; i < requests.length; i++) {
                Request r = requests[i];
                if (r != null && r.isActive() && r.test()) {
                    return i;
                }
            }
        }
    }
}

package mpi;

import io.tutti.TuttiException;
import java.nio.Buffer;
import java.util.concurrent.locks.LockSupport;

/**
 * A nonblocking operation in flight, over one of Tutti's {@link io.tutti.Request}s: complete it with
 * a wait ({@link #waitFor}, {@link #waitStatus}) or poll it with a test ({@link #test},
 * {@link #testStatus}); the static forms do the same over arrays of requests. Once a wait or test
 * has reported its completion, a request is null ({@link #isNull()}); a persistent one
 * ({@link Prequest}) is inactive instead, until started again. Waiting for or testing a null or
 * inactive request returns at once, with an empty status (source {@link MPI#ANY_SOURCE}, tag
 * {@link MPI#ANY_TAG}, count 0). An operation's error is thrown by the wait or test that completes
 * it.
 */
public class Request implements Freeable {
    /** Tutti's request; null for the null request and for operations complete when made. */
    io.tutti.Request tutti;
    /** Whether this request stands for an operation not yet reported complete. */
    boolean active;
    /** The status of an operation complete when made (with PROC_NULL, a buffered send). */
    Status early;
    /** The buffers of the operation, kept reachable until it completes, as in the bindings. */
    protected Buffer sendBuf;
    protected Buffer recvBuf;
    /** For a derived type with gaps: the packed copy Tutti moves (a receive's is unpacked on completion); else null. */
    Staging staging;

    /** The null request ({@link MPI#REQUEST_NULL}). */
    Request() {
    }

    /** A request for an operation in flight in Tutti. */
    Request(io.tutti.Request tutti) {
        this.tutti = tutti;
        this.active = true;
    }

    /** A request for an operation complete when made, whose wait returns {@code status}. */
    static Request done(Status status) {
        Request r = new Request();
        r.early = status;
        r.active = true;
        return r;
    }

    /** Whether this is persistent (a {@link Prequest}), which completion makes inactive, not null. */
    boolean persistent() {
        return false;
    }

    /**
     * Frees the request (MPI_REQUEST_FREE); it becomes null. An operation still in flight goes on
     * and completes unseen, as MPI allows.
     */
    @Override
    public void free() throws MPIException {
        if (!isNull()) {
            MPI.check();
            try {
                if (tutti != null && tutti.isDone()) {
                    tutti.free();
                }
            } catch (TuttiException e) {
                throw Errors.of(e, "Request.free");
            }
            tutti = null;
            early = null;
            active = false;
            sendBuf = null;
            recvBuf = null;
            staging = null;
        }
    }

    /**
     * Marks the operation for cancellation (MPI_CANCEL): a receive that no message has matched yet
     * is taken back, and its completion's status says {@link Status#isCancelled()}. A matched
     * receive, a send or a collective completes as it would (MPI allows that; cancelling sends is
     * deprecated in MPI 4). Complete the request with a wait or test either way.
     */
    public final void cancel() throws MPIException {
        MPI.check();
        if (active && tutti != null) {
            try {
                tutti.cancel();
            } catch (TuttiException e) {
                throw Errors.of(e, "Request.cancel");
            }
        }
    }

    /** Whether this request is null: {@link MPI#REQUEST_NULL}, freed, or reported complete. */
    public final boolean isNull() {
        return !active && !persistent();
    }

    /** Waits for the operation and returns its status (MPI_WAIT); the request is then complete. */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        Status s = new Status();
        complete(s, "Request.waitStatus");
        return s;
    }

    /** Waits for the operation (MPI_WAIT), without a status. */
    public final void waitFor() throws MPIException {
        MPI.check();
        complete(null, "Request.waitFor");
    }

    /** The operation's status if it has completed, which completes the request, else null (MPI_TEST). */
    public final Status testStatus() throws MPIException {
        MPI.check();
        if (!ready("Request.testStatus")) {
            return null;
        }
        Status s = new Status();
        complete(s, "Request.testStatus");
        return s;
    }

    /**
     * The operation's status if it has completed, else null, leaving the request as it is
     * (MPI_REQUEST_GET_STATUS): a later wait or test still reports the completion.
     */
    public final Status getStatus() throws MPIException {
        MPI.check();
        if (!ready("Request.getStatus")) {
            return null;
        }
        Status s = new Status();
        if (active) {
            unpackStaged();
            fill(s);
        } else {
            s.set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0);      // null or inactive: the empty status
        }
        return s;
    }

    /** Whether the operation has completed, which completes the request (MPI_TEST). */
    public final boolean test() throws MPIException {
        MPI.check();
        if (!ready("Request.test")) {
            return false;
        }
        complete(null, "Request.test");
        return true;
    }

    // ------------------------------------------------------------ one request

    /** Drives progress once; whether the operation has completed (true for a null or inactive one). */
    final boolean ready(String call) throws MPIException {
        if (!active || tutti == null) {
            return true;
        }
        try {
            return tutti.isDone() || tutti.test();
        } catch (TuttiException e) {
            return true;     // failed: the completing call reports it
        }
    }

    /** Waits for the operation, fills {@code into} (may be null) and marks the request complete. */
    final void complete(Status into, String call) throws MPIException {
        if (!active) {
            if (into != null) {
                into.set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0);
            }
            return;
        }
        io.tutti.Request t = tutti;
        try {
            if (t != null) {
                t.waitFor(null);
            }
        } catch (TuttiException e) {
            finish();
            throw Errors.of(e, call);
        }
        unpackStaged();
        if (into != null) {
            fill(into);
        }
        finish();
    }

    /** A staged receive's bytes unpacked into the program's items (once); the operation has completed. */
    private void unpackStaged() {
        if (staging != null && tutti != null) {
            staging.received(tutti.status().bytes());
        }
    }

    private void fill(Status into) {
        if (early != null) {
            into.set(early.getSource(), early.getTag(), early.bytes());
        } else if (tutti != null) {
            io.tutti.Status s = tutti.status();
            into.set(s.source(), s.tag(), s.bytes());
            if (s.cancelled()) {
                into.cancelled();
            }
        } else {
            into.set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0);
        }
    }

    /** After completion: null for a plain request; inactive, keeping its operation, for a persistent one. */
    void finish() {
        active = false;
        if (!persistent()) {
            tutti = null;
            early = null;
            sendBuf = null;
            recvBuf = null;
            staging = null;
        }
    }

    // ------------------------------------------------------------ several requests

    /** Waits until one active request completes; its status, with its index, or an empty one (MPI_WAITANY). */
    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        Status s = new Status();
        s.setIndex(waitAny(requests, s, "Request.waitAnyStatus"));
        return s;
    }

    /** Waits until one active request completes and returns its index; {@link MPI#UNDEFINED} if none is active. */
    public static int waitAny(Request[] requests) throws MPIException {
        MPI.check();
        return waitAny(requests, null, "Request.waitAny");
    }

    private static int waitAny(Request[] requests, Status into, String call) throws MPIException {
        for (int round = 0; ; round++) {
            int any = anyDone(requests, into, call);
            if (any != NOT_YET) {
                return any;
            }
            backOff(round);
        }
    }

    private static final int NOT_YET = Integer.MIN_VALUE;

    /** The index of an active request that has completed (completing it), UNDEFINED if none is active, else NOT_YET. */
    private static int anyDone(Request[] requests, Status into, String call) throws MPIException {
        boolean anyActive = false;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r != null && r.active) {
                anyActive = true;
                if (r.ready(call)) {
                    r.complete(into, call);
                    return i;
                }
            }
        }
        if (!anyActive) {
            if (into != null) {
                into.set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0);
            }
            return MPI.UNDEFINED;
        }
        return NOT_YET;
    }

    /** The status of one active request that has completed, with its index, or null if none has (MPI_TESTANY). */
    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        Status s = new Status();
        int i = anyDone(requests, s, "Request.testAnyStatus");
        if (i == NOT_YET) {
            return null;
        }
        s.setIndex(i);
        return s;
    }

    /**
     * The index of one active request that has completed (MPI_TESTANY), or {@link MPI#UNDEFINED} if
     * none has (or none is active).
     */
    public static int testAny(Request[] requests) throws MPIException {
        MPI.check();
        int i = anyDone(requests, null, "Request.testAny");
        return i == NOT_YET ? MPI.UNDEFINED : i;
    }

    /**
     * Waits for every request (MPI_WAITALL) and returns their statuses (an empty one for a null or
     * inactive request); the first error is thrown once all have completed.
     */
    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        Status[] statuses = new Status[requests.length];
        for (int i = 0; i < statuses.length; i++) {
            statuses[i] = new Status();
        }
        waitAll(requests, statuses, "Request.waitAllStatus");
        return statuses;
    }

    /** Waits for every request (MPI_WAITALL); the first error is thrown once all have completed. */
    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        waitAll(requests, null, "Request.waitAll");
    }

    private static void waitAll(Request[] requests, Status[] into, String call) throws MPIException {
        MPIException first = null;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            Status s = into == null ? null : into[i];
            try {
                if (r == null) {
                    if (s != null) {
                        s.set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0);
                    }
                } else {
                    r.complete(s, call);
                }
            } catch (MPIException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The statuses of all requests if every one has completed (completing them), else null (MPI_TESTALL). */
    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        if (!allReady(requests, "Request.testAllStatus")) {
            return null;
        }
        return waitAllStatus(requests);
    }

    /** Whether every request has completed (completing them all then) (MPI_TESTALL). */
    public static boolean testAll(Request[] requests) throws MPIException {
        MPI.check();
        if (!allReady(requests, "Request.testAll")) {
            return false;
        }
        waitAll(requests, null, "Request.testAll");
        return true;
    }

    private static boolean allReady(Request[] requests, String call) throws MPIException {
        boolean all = true;
        for (Request r : requests) {
            if (r != null && !r.ready(call)) {
                all = false;
            }
        }
        return all;
    }

    /**
     * Waits until at least one active request completes and returns the statuses of all that have
     * (each with its index); null if none is active (MPI_WAITSOME).
     */
    public static Status[] waitSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        for (int round = 0; ; round++) {
            Status[] some = some(requests, true, "Request.waitSomeStatus");
            if (some == null || some.length > 0) {
                return some;
            }
            backOff(round);
        }
    }

    /**
     * Waits until at least one active request completes and returns the indices of all that have;
     * null if none is active (MPI_WAITSOME).
     */
    public static int[] waitSome(Request[] requests) throws MPIException {
        return indices(waitSomeStatus(requests));
    }

    /**
     * The statuses of the active requests that have completed (each with its index), maybe none;
     * null if none is active (MPI_TESTSOME).
     */
    public static Status[] testSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        return some(requests, true, "Request.testSomeStatus");
    }

    /** The indices of the active requests that have completed, maybe none; null if none is active (MPI_TESTSOME). */
    public static int[] testSome(Request[] requests) throws MPIException {
        MPI.check();
        return indices(some(requests, true, "Request.testSome"));
    }

    private static Status[] some(Request[] requests, boolean withStatus, String call) throws MPIException {
        // Every request is tested first and the answer read afterwards: read during the tests, a later
        // request could complete (with an earlier one) after the earlier one was passed over.
        boolean[] failed = new boolean[requests.length];
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r != null && r.active && r.tutti != null && !r.tutti.isDone()) {
                failed[i] = r.ready(call) && !r.tutti.isDone();   // ready, not done: complete() says why
            }
        }
        int active = 0;
        int done = 0;
        boolean[] ready = new boolean[requests.length];
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r != null && r.active) {
                active++;
                if (r.tutti == null || r.tutti.isDone() || failed[i]) {
                    ready[i] = true;
                    done++;
                }
            }
        }
        if (active == 0) {
            return null;
        }
        Status[] out = new Status[done];
        int k = 0;
        MPIException first = null;
        for (int i = 0; i < requests.length; i++) {
            if (ready[i]) {
                Status s = new Status();
                try {
                    requests[i].complete(s, call);
                } catch (MPIException e) {
                    if (first == null) {
                        first = e;
                    }
                }
                s.setIndex(i);
                out[k++] = s;
            }
        }
        if (first != null) {
            throw first;
        }
        return out;
    }

    private static int[] indices(Status[] statuses) {
        if (statuses == null) {
            return null;
        }
        int[] out = new int[statuses.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = statuses[i].getIndex();
        }
        return out;
    }

    /** Between polls of several requests: spin, then yield, then sleep a little, so ranks sharing a core go on. */
    static void backOff(int round) {
        if (round < 64) {
            Thread.onSpinWait();
        } else if (round < 1024) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }
}

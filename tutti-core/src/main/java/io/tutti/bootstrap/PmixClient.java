package io.tutti.bootstrap;

import io.tutti.os.Pmix;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A rank's link to a PMIx server (Open MPI's {@code mpirun}, {@code srun --mpi=pmix}) through the
 * launcher's own client library ({@link Pmix}). The library's calls block without a bound, so they
 * run one at a time on a daemon thread of their own and the caller waits for each at most its
 * timeout; a call that overruns is abandoned (the rank fails its start-up anyway). A put is
 * committed at the next fence, which collects every rank's data so that gets are answered locally.
 */
final class PmixClient implements PmiConnection {
    /** Longest key and value this client hands to PMIx: its PMIX_MAX_KEYLEN, and a bound for the rendezvous. */
    static final int MAX_KEY = 511;
    static final int MAX_VALUE = 1 << 20;

    private final ExecutorService caller;
    private final Pmix pmix;
    private final int size;
    private boolean finished;

    private PmixClient(ExecutorService caller, Pmix pmix, int size) {
        this.caller = caller;
        this.pmix = pmix;
        this.size = size;
    }

    /**
     * Joins the job of the PMIx server this process's environment names, loading the first of
     * {@code libraries} that loads; {@code size} is the job's size as the launcher's environment says.
     */
    static PmixClient connect(List<String> libraries, int size, long timeoutMillis) throws TimeoutException {
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tutti-pmix");
            t.setDaemon(true);
            return t;
        });
        try {
            Pmix pmix = call(caller, () -> Pmix.init(libraries), timeoutMillis, "PMIx_Init");
            return new PmixClient(caller, pmix, size);
        } catch (TimeoutException | RuntimeException e) {
            caller.shutdownNow();
            throw e;
        }
    }

    @Override
    public String name() {
        return "PMIx";
    }

    @Override
    public int rank() {
        return pmix.rank();
    }

    @Override
    public int size() {
        return size;
    }

    /** The PMIx namespace. */
    @Override
    public String jobId() {
        return pmix.nspace();
    }

    @Override
    public int maxKey() {
        return MAX_KEY;
    }

    @Override
    public int maxValue() {
        return MAX_VALUE;
    }

    @Override
    public void put(String key, String value, long timeoutMillis) throws TimeoutException {
        call(caller, () -> {
            pmix.put(key, value);
            return null;
        }, timeoutMillis, "PMIx_Put of '" + key + "'");
    }

    @Override
    public void fence(long timeoutMillis) throws TimeoutException {
        call(caller, () -> {
            pmix.commit();
            pmix.fence();
            return null;
        }, timeoutMillis, "PMIx_Fence");
    }

    /** After a collecting fence PMIx holds every rank's data here, so a key that is not there is missing. */
    @Override
    public String get(int owner, String key, long timeoutMillis) throws TimeoutException {
        return call(caller, () -> pmix.get(owner, key), timeoutMillis, "PMIx_Get of rank " + owner + "'s '" + key
                + "'");
    }

    @Override
    public synchronized void finish(long timeoutMillis) throws TimeoutException {
        if (finished) {
            return;
        }
        finished = true;
        try {
            call(caller, () -> {
                pmix.finish();
                return null;
            }, timeoutMillis, "PMIx_Finalize");
        } finally {
            caller.shutdown();
        }
    }

    private static <T> T call(ExecutorService caller, Callable<T> call, long timeoutMillis, String what)
            throws TimeoutException {
        Future<T> f = caller.submit(call);
        try {
            return f.get(Math.max(1, timeoutMillis), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new TimeoutException(what + " did not return within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException(what + " interrupted");
        }
    }
}

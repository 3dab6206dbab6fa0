package io.tutti.coll;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.coll.schedule.Schedule;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;
import java.util.function.IntSupplier;

/**
 * A nonblocking or persistent collective: its {@link HostExecutor} advances while the owner waits,
 * tests or drives progress. A persistent one keeps its executor (and scratch memory) across
 * {@link #start()} calls; each start takes a new sequence number from the communicator so that
 * its messages never match another call's. A nonblocking one gives its executor back to the
 * communicator's pool once its completion has been seen, and is then an inactive request.
 */
public final class CollectiveRequest implements Request {
    /** Where a nonblocking request returns its executor when it has completed. */
    public interface Pool {
        /** Takes back an executor that has finished its run. */
        void release(HostExecutor executor);
    }

    private final Engine engine;
    private HostExecutor executor;
    private final Schedule schedule;
    /** Null for a persistent request, which keeps its executor until freed. */
    private final Pool pool;
    private boolean completed;
    private final MemorySegment send;
    private final MemorySegment recv;
    private final Datatype type;
    private final ReduceOp op;
    private final UserOp userOp;
    private final IntSupplier sequence;
    private final boolean persistent;
    private boolean started;

    /**
     * @param pool null for a persistent request; else the pool the executor goes back to, and the
     *             request starts at once
     */
    public CollectiveRequest(Engine engine, HostExecutor executor, MemorySegment send, MemorySegment recv,
                             Datatype type, ReduceOp op, UserOp userOp, IntSupplier sequence, Pool pool) {
        this.engine = engine;
        this.executor = executor;
        this.schedule = executor.schedule();
        this.pool = pool;
        this.send = send;
        this.recv = recv;
        this.type = type;
        this.op = op;
        this.userOp = userOp;
        this.sequence = sequence;
        this.persistent = pool == null;
        if (!persistent) {
            begin();
        }
    }

    private void begin() {
        executor.start(send, recv, sequence.getAsInt(), type, op, userOp);
        started = true;
        engine.track(executor);
    }

    @Override
    public void start() {
        if (!persistent) {
            Request.super.start();
        }
        if (executor == null) {
            throw new TuttiException.NotActive("this persistent collective has been freed");
        }
        if (started && !executor.isDone()) {
            throw new TuttiException.InvalidArgument("this persistent collective is still running: wait for it"
                    + " before starting it again");
        }
        begin();
    }

    @Override
    public Status waitFor() {
        waitFor(null);
        return new Status();
    }

    @Override
    public void waitFor(Status into) {
        if (completed) {
            return;
        }
        if (executor == null) {
            throw new TuttiException.NotActive("this persistent collective has been freed");
        }
        engine.await(executor);
        finished();
    }

    @Override
    public boolean test() {
        if (completed) {
            return true;
        }
        if (executor == null) {
            throw new TuttiException.NotActive("this persistent collective has been freed");
        }
        boolean done = engine.test(executor);
        if (done) {
            finished();
        }
        return done;
    }

    /** The owner has seen the run complete. */
    private void finished() {
        // a start, or another request given this executor, tracks it again
        engine.untrack(executor);
        if (persistent) {
            started = false;
            return;
        }
        completed = true;
        pool.release(executor);
        executor = null;
    }

    @Override
    public boolean isActive() {
        return executor != null && (!persistent || started);
    }

    @Override
    public boolean isDone() {
        return completed || executor == null || executor.isDone();
    }

    @Override
    public Status status() {
        return new Status();
    }

    /** Releases the request (a persistent one must not be running); later starts fail. */
    @Override
    public void free() {
        if (completed) {
            return;
        }
        if (executor != null && !executor.isDone()) {
            throw new TuttiException.InvalidArgument("this collective is still running: wait for it before"
                    + " freeing it");
        }
        executor = null;
    }

    /** The schedule this request runs, for reports. */
    public Schedule schedule() {
        return schedule;
    }
}

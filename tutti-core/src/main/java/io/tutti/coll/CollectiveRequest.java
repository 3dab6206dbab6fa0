package io.tutti.coll;

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
 * its messages never match another call's.
 */
public final class CollectiveRequest implements Request {
    private final Engine engine;
    private HostExecutor executor;
    private final MemorySegment send;
    private final MemorySegment recv;
    private final Datatype type;
    private final ReduceOp op;
    private final UserOp userOp;
    private final IntSupplier sequence;
    private final boolean persistent;
    private boolean started;

    public CollectiveRequest(Engine engine, HostExecutor executor, MemorySegment send, MemorySegment recv,
                             Datatype type, ReduceOp op, UserOp userOp, IntSupplier sequence, boolean persistent) {
        this.engine = engine;
        this.executor = executor;
        this.send = send;
        this.recv = recv;
        this.type = type;
        this.op = op;
        this.userOp = userOp;
        this.sequence = sequence;
        this.persistent = persistent;
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
        if (executor == null) {
            throw new TuttiException.NotActive("this persistent collective has been freed");
        }
        engine.await(executor);
        started = !persistent;
    }

    @Override
    public boolean test() {
        if (executor == null) {
            throw new TuttiException.NotActive("this persistent collective has been freed");
        }
        boolean done = engine.test(executor);
        if (done && persistent) {
            started = false;
        }
        return done;
    }

    @Override
    public boolean isActive() {
        return executor != null && (!persistent || started);
    }

    @Override
    public boolean isDone() {
        return executor == null || executor.isDone();
    }

    @Override
    public Status status() {
        return new Status();
    }

    /** Releases the request (a persistent one must not be running); later starts fail. */
    @Override
    public void free() {
        if (executor != null && !executor.isDone()) {
            throw new TuttiException.InvalidArgument("this collective is still running: wait for it before"
                    + " freeing it");
        }
        executor = null;
    }

    /** The schedule this request runs, for reports. */
    public Schedule schedule() {
        return executor.schedule();
    }
}

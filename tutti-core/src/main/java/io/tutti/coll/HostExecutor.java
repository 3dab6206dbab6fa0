package io.tutti.coll;

import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;

/**
 * Runs one rank's {@link Schedule} on the host: posts a step's send or receive as soon as the
 * steps it depends on have completed, and performs reductions and copies on the calling thread.
 * Reusable: a persistent collective starts the same executor again and again.
 *
 * <p>Not thread-safe: driven by the thread that owns the communicator (through {@link #poll()},
 * which the engine's wait loop calls between progress passes).
 */
public final class HostExecutor implements Engine.Task {
    private final Engine engine;
    private final Schedule s;
    private final int context;
    private final int[] group;
    private final Datatype type;
    private final ReduceOp op;
    private final UserOp userOp;
    private final MemorySegment temp;
    private final int[] remaining;
    private final Request[] posted;
    private final int[] ready;
    private final int[] active;
    private int readyCount;
    private int activeCount;
    private int done;
    private int wireBase;
    private MemorySegment send;
    private MemorySegment recv;

    /**
     * @param context the communicator's internal (collective) context
     * @param group   communicator rank to world rank
     */
    public HostExecutor(Engine engine, Schedule schedule, int context, int[] group, Datatype type, ReduceOp op,
                        UserOp userOp) {
        this.engine = engine;
        this.s = schedule;
        this.context = context;
        this.group = group;
        this.type = type;
        this.op = op;
        this.userOp = userOp;
        this.temp = schedule.tempBytes == 0 ? MemorySegment.NULL
                : MemorySegment.ofArray(new byte[Math.toIntExact(schedule.tempBytes)]);
        this.remaining = new int[schedule.steps];
        this.posted = new Request[schedule.steps];
        this.ready = new int[schedule.steps];
        this.active = new int[schedule.steps];
        this.done = schedule.steps;
    }

    public Schedule schedule() {
        return s;
    }

    /**
     * Starts a run over these buffers; {@code sequence} makes this call's wire tags differ from
     * every other collective in flight on the communicator.
     */
    public void start(MemorySegment send, MemorySegment recv, int sequence) {
        if (done != s.steps) {
            throw new TuttiException.InvalidArgument("this collective is still running: wait for it first");
        }
        this.send = send;
        this.recv = recv;
        this.wireBase = (sequence & 0x7FFFF) * Schedule.MAX_TAG;
        this.done = 0;
        this.readyCount = 0;
        this.activeCount = 0;
        for (int i = 0; i < s.steps; i++) {
            remaining[i] = s.depStart[i + 1] - s.depStart[i];
            if (remaining[i] == 0) {
                ready[readyCount++] = i;
            }
        }
        pump();
    }

    /** Advances what can be advanced; true once every step has completed. */
    @Override
    public boolean poll() {
        for (int k = 0; k < activeCount; ) {
            int i = active[k];
            Request r = posted[i];
            if (r.isDone()) {
                posted[i] = null;
                active[k] = active[--activeCount];
                r.test(); // throws the step's error, if any
                complete(i);
            } else {
                k++;
            }
        }
        pump();
        return done == s.steps;
    }

    public boolean isDone() {
        return done == s.steps;
    }

    private void pump() {
        while (readyCount > 0) {
            int i = ready[--readyCount];
            switch (s.kind[i]) {
                case Schedule.SEND -> post(i, engine.isend(context, group[s.peer[i]], wireBase + s.tag[i], null,
                        buffer(s.buffer[i]), s.offset[i], s.length[i]));
                case Schedule.RECV -> post(i, engine.irecv(context, group[s.peer[i]], wireBase + s.tag[i], null,
                        buffer(s.buffer[i]), s.offset[i], s.length[i], null));
                case Schedule.REDUCE -> {
                    reduce(i);
                    complete(i);
                }
                default -> {
                    MemorySegment.copy(buffer(s.srcBuffer[i]), s.srcOffset[i], buffer(s.buffer[i]), s.offset[i],
                            s.length[i]);
                    complete(i);
                }
            }
        }
    }

    private void post(int i, Request r) {
        posted[i] = r;
        active[activeCount++] = i;
    }

    private void reduce(int i) {
        MemorySegment dst = buffer(s.buffer[i]);
        MemorySegment src = buffer(s.srcBuffer[i]);
        long count = s.length[i] / type.extent();
        boolean commutative = userOp == null ? op.commutative() : userOp.commutative();
        if (s.srcIsLeft[i] || commutative) {
            apply(dst, s.offset[i], src, s.srcOffset[i], count);
        } else {
            // dst = dst ∘ src with a kernel that computes inout = in ∘ inout: reduce into the source
            // (scratch the schedule received into), then move the result
            apply(src, s.srcOffset[i], dst, s.offset[i], count);
            MemorySegment.copy(src, s.srcOffset[i], dst, s.offset[i], s.length[i]);
        }
    }

    private void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count) {
        if (userOp != null) {
            userOp.apply(inout, inoutOffset, in, inOffset, count, type);
        } else {
            Reduction.apply(op, type, inout, inoutOffset, in, inOffset, count);
        }
    }

    private void complete(int i) {
        done++;
        for (int k = s.succStart[i]; k < s.succStart[i + 1]; k++) {
            int j = s.succ[k];
            if (--remaining[j] == 0) {
                ready[readyCount++] = j;
            }
        }
    }

    private MemorySegment buffer(byte which) {
        return switch (which) {
            case Schedule.SEND_BUFFER -> send;
            case Schedule.RECV_BUFFER -> recv;
            default -> temp;
        };
    }
}

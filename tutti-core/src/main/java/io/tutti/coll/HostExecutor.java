package io.tutti.coll;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.coll.inc.InNetworkGroup;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.slots.NodeSlots;
import io.tutti.reduce.Reduction;
import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import io.tutti.p2p.Operation;
import io.tutti.os.Memory;
import java.lang.foreign.Arena;
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
    /** Scratch: native, reached through {@link Memory} at {@link #tempBase}. */
    private final MemorySegment temp;
    private final MemorySegment tempVia;
    private final long tempBase;
    private final int[] remaining;
    private final Operation[] posted;
    /** One operation per SEND/RECV step, reused run after run. */
    private final Operation[] ops;
    /** One switch exchange per INC step (null without INC steps). */
    private final io.tutti.coll.inc.InNetworkAggregation.Transfer[] incs;
    /** One shared-memory exchange per SLOTS or SLOTS_REDUCE step (null without such steps). */
    private final NodeSlots.Exchange[] exchanges;
    /** The communicator's slots, and per such step its index among them (its generation's offset). */
    private final NodeSlots slots;
    private final int[] slotIndex;
    private final NodeSlots.Fold fold = this::fold;
    private int slotSteps;
    private long slotBase;
    private final int[] ready;
    private final int[] active;
    /** Steps whose dependencies are done, run in the order they became ready (a step enters once per run). */
    private int readyHead;
    private int readyCount;
    private int activeCount;
    private int done;
    private int wireBase;
    private MemorySegment send;
    private MemorySegment recv;
    private Datatype type;
    private ReduceOp op;
    private UserOp userOp;
    private TuttiException failure;
    /** {@link CollectiveCall#signature} of the call, or null; announced to peers when a run stalls. */
    private final long[] signature;
    private int sequence;
    private boolean announced;
    /** Per peer, 1 + the sequence of the run that last answered its earlier call ({@link #answerEarlierCall}); slow path. */
    private long[] answeredAt;

    /**
     * @param context the communicator's internal (collective) context
     * @param group   communicator rank to world rank
     */
    public HostExecutor(Engine engine, Schedule schedule, int context, int[] group) {
        this(engine, schedule, context, group, null, null, null);
    }

    /**
     * @param signature {@link CollectiveCall#signature} of the call, which ranks compare when it
     *                  stalls (null: no comparison)
     * @param inc       the in-network group that runs the schedule's INC steps (null if it has none)
     * @param slots     the communicator's shared-memory slots, for SLOTS and SLOTS_REDUCE steps (null if it has none)
     */
    public HostExecutor(Engine engine, Schedule schedule, int context, int[] group, long[] signature,
                        InNetworkGroup inc, NodeSlots slots) {
        this.signature = signature;
        this.engine = engine;
        this.s = schedule;
        this.context = context;
        this.group = group;
        // native, so that its copies take Memory's constant path; the automatic arena frees it with
        // the executor, and every operation of the executor holds it while the engine may write it
        this.temp = schedule.tempBytes() == 0 ? MemorySegment.NULL : Arena.ofAuto().allocate(schedule.tempBytes(), 16);
        this.tempVia = Memory.via(temp);
        this.tempBase = Memory.base(temp);
        this.remaining = new int[schedule.steps()];
        this.posted = new Operation[schedule.steps()];
        this.ops = new Operation[schedule.steps()];
        for (int i = 0; i < schedule.steps(); i++) {
            if (schedule.kind(i) == Schedule.SEND || schedule.kind(i) == Schedule.RECV) {
                ops[i] = operation();
            }
        }
        io.tutti.coll.inc.InNetworkAggregation.Transfer[] x = null;
        for (int i = 0; i < schedule.steps(); i++) {
            if (schedule.kind(i) == Schedule.INC) {
                if (inc == null) {
                    throw new IllegalStateException(schedule.name() + " exchanges with switches but has no group");
                }
                x = x == null ? new io.tutti.coll.inc.InNetworkAggregation.Transfer[schedule.steps()] : x;
                x[i] = inc.transfer();
            }
        }
        this.incs = x;
        this.slots = slots;
        NodeSlots.Exchange[] e = null;
        int[] index = null;
        for (int i = 0; i < schedule.steps(); i++) {
            if (isSlots(schedule.kind(i))) {
                if (slots == null) {
                    throw new IllegalStateException(schedule.name() + " exchanges through shared-memory slots but has none");
                }
                e = e == null ? new NodeSlots.Exchange[schedule.steps()] : e;
                index = index == null ? new int[schedule.steps()] : index;
                e[i] = slots.exchange();
                index[i] = slotSteps++;
            }
        }
        this.exchanges = e;
        this.slotIndex = index;
        this.ready = new int[schedule.steps()];
        this.active = new int[schedule.steps()];
        this.done = schedule.steps();
    }

    public Schedule schedule() {
        return s;
    }

    /**
     * Starts a run over these buffers; {@code sequence} makes this call's wire tags differ from
     * every other collective in flight on the communicator. {@code op} or {@code userOp} reduces,
     * for schedules with REDUCE or SLOTS_REDUCE steps.
     */
    public void start(MemorySegment send, MemorySegment recv, int sequence, Datatype type, ReduceOp op,
                      UserOp userOp) {
        if (done != s.steps()) {
            throw new TuttiException.InvalidArgument("this collective is still running: wait for it first");
        }
        this.send = send;
        this.recv = recv;
        this.type = type;
        this.op = op;
        this.userOp = userOp;
        this.wireBase = (sequence & 0x7FFFF) * Schedule.MAX_TAG;
        this.sequence = sequence;
        this.announced = false;
        this.done = 0;
        if (slotSteps > 0) {
            slotBase = slots.reserve(sequence, slotSteps);
        }
        if (incs != null) {
            // the switches' request ids by call order, as every leader calls in the same order
            for (int i = 0; i < s.steps(); i++) {
                if (incs[i] != null) {
                    incs[i].reserve(s.length(i), type.size());
                }
            }
        }
        this.readyHead = 0;
        this.readyCount = 0;
        this.activeCount = 0;
        for (int i = 0; i < s.steps(); i++) {
            remaining[i] = s.dependencyCount(i);
            if (remaining[i] == 0) {
                ready[readyCount++] = i;
            }
        }
        try {
            pump();
        } catch (TuttiException e) {
            abandon();
            throw e;
        }
    }

    /** Advances what can be advanced; true once every step has completed. */
    @Override
    public boolean poll() {
        if (failure != null) {
            TuttiException e = failure;
            failure = null;
            abandon();
            throw e;
        }
        if (engine.revoked(context)) {
            throw revoked();
        }
        try {
            for (int k = 0; k < activeCount; ) {
                int i = active[k];
                if (isSlots(s.kind(i)) || s.kind(i) == Schedule.INC) {
                    if (s.kind(i) != Schedule.INC ? exchanges[i].poll() : incs[i].poll()) {
                        active[k] = active[--activeCount];
                        complete(i);
                    } else {
                        k++;
                    }
                    continue;
                }
                Operation r = posted[i];
                if (r.isDone()) {
                    posted[i] = null;
                    active[k] = active[--activeCount];
                    check(i, r);
                    complete(i);
                } else {
                    k++;
                }
            }
            pump();
        } catch (TuttiException e) {
            abandon();
            throw e;
        }
        return done == s.steps();
    }

    public boolean isDone() {
        return done == s.steps() || failure != null;
    }

    @Override
    public boolean accessibleBy(Thread agent) {
        return send.isAccessibleBy(agent) && recv.isAccessibleBy(agent) && temp.isAccessibleBy(agent);
    }

    @Override
    public boolean spinPays() {
        if (slotSteps == 0) {
            return true;
        }
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (isSlots(s.kind(i)) && !exchanges[i].othersElsewhere()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean ready() {
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (isSlots(s.kind(i)) && exchanges[i].ready()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a step of this run that has not completed involves {@code worldRank}: a send or receive
     * with it, a slot exchange that has yet to collect its contribution, or a shared-memory step that
     * has not started (every rank of the communicator takes part).
     */
    @Override
    public boolean needs(int worldRank) {
        if (done == s.steps()) {
            return false;
        }
        int peer = commRank(worldRank);
        if (peer < 0) {
            return false;
        }
        for (int i = 0; i < s.steps(); i++) {
            boolean involves = switch (s.kind(i)) {
                case Schedule.SEND, Schedule.RECV -> s.peer(i) == peer;
                case Schedule.SLOTS, Schedule.SLOTS_REDUCE -> !running(i) || exchanges[i].needs(peer);
                case Schedule.INC -> true;
                default -> false;
            };
            if (involves && !completed(i)) {
                return true;
            }
        }
        return false;
    }

    /** The peer of a receive this run has posted and not completed, else of such a send; -1 if none. */
    @Override
    public int waitsFor() {
        int send = -1;
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (s.kind(i) == Schedule.RECV) {
                return group[s.peer(i)];
            }
            if (s.kind(i) == Schedule.SEND && send < 0) {
                send = group[s.peer(i)];
            }
        }
        return send;
    }

    /** Whether step {@code i} of the current run has completed (slow path: scans the queues). */
    private boolean completed(int i) {
        return remaining[i] == 0 && !queued(i) && !running(i);
    }

    private boolean queued(int i) {
        for (int k = readyHead; k < readyCount; k++) {
            if (ready[k] == i) {
                return true;
            }
        }
        return false;
    }

    /** Whether step {@code i} has started and not completed. */
    private boolean running(int i) {
        for (int k = 0; k < activeCount; k++) {
            if (active[k] == i) {
                return true;
            }
        }
        return false;
    }

    /**
     * Set in the first signature word of a call announced as failed on its rank ({@link
     * io.tutti.coll.Collectives#failed}), over the call's signature where the rank knew it (else 0):
     * every other rank stops waiting for it in that call, and says how the calls differ if they do.
     */
    public static final long FAILED = Engine.CALL_FAILED;

    @Override
    public void fail(TuttiException error) {
        failure = error;
    }

    /**
     * Runs while a wait for this call has idled for a liveness interval. Two signs that the ranks
     * disagree on the call (root, counts or algorithm), either of which would otherwise leave both
     * sides waiting for ever: a message of this call (same sequence) that no RECV step of this
     * rank's schedule takes; or a peer this run waits on that announces it waits in this call with
     * another signature. Announces this rank's own call to those peers once per run.
     */
    @Override
    public void diagnose() {
        if (done == s.steps()) {
            return;
        }
        long[] heard = new long[4];
        if (signature != null) {
            for (int peer = 0; peer < group.length; peer++) {
                if (peer != s.rank()) {
                    answerEarlierCall(peer, heard);
                }
            }
        }
        for (int peer = 0; peer < group.length; peer++) {
            // any rank that has said its part of this call failed, or is in it with another signature
            if (peer != s.rank()) {
                otherCall(peer, heard);
            }
        }
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (isSlots(s.kind(i))) {
                // every rank takes part in a slot exchange
                for (int peer = 0; peer < group.length; peer++) {
                    if (peer != s.rank()) {
                        leftThisCall(peer, heard);
                    }
                }
            } else if (s.kind(i) == Schedule.SEND || s.kind(i) == Schedule.RECV) {
                leftThisCall(s.peer(i), heard);
            }
        }
        engine.forEachUnexpected(context, (source, tag, bytes) -> {
            int stepTag = tag - wireBase;
            if (stepTag < 0 || stepTag >= Schedule.MAX_TAG) {
                return; // another collective call in flight on this communicator
            }
            int peer = commRank(source);
            if (!expects(peer, stepTag)) {
                throw disagree("rank " + (peer < 0 ? "(world) " + source : peer) + " sent " + bytes + " bytes that rank "
                        + s.rank() + "'s " + s.name() + " does not expect (step " + stepTag + ")");
            }
        });
        if (signature == null) {
            return;
        }
        for (int k = 0; k < activeCount; k++) {
            byte kind = s.kind(active[k]);
            if (kind == Schedule.INC) {
                continue; // waits on the switches, not on a peer
            }
            if (isSlots(kind)) {
                // waits on every rank's slot: tells them all
                for (int peer = 0; peer < group.length; peer++) {
                    if (peer != s.rank()) {
                        compareCalls(peer, heard);
                    }
                }
            } else {
                compareCalls(s.peer(active[k]), heard);
            }
        }
        announced = true;
    }

    /**
     * A peer that announced it waits for this rank in an earlier call, which this rank has left, is
     * told which call this rank is in (once per run): announcements travel in order with the data,
     * so it learns that nothing more of its call will come from here ({@link #leftThisCall}). Without
     * it, a peer whose schedule differed (another root) waited for ever while this rank, done with
     * that call by its own schedule, waited in the next for ranks that waited for the peer.
     */
    private void answerEarlierCall(int peer, long[] heard) {
        if (!engine.announcedCall(group[peer], context, heard) || (int) heard[0] - sequence >= 0) {
            return;
        }
        if (answeredAt == null) {
            answeredAt = new long[group.length];
        }
        if (answeredAt[peer] != sequence + 1L) {
            answeredAt[peer] = sequence + 1L;
            engine.announceCall(group[peer], context, sequence, signature[0], signature[1], signature[2]);
        }
    }

    /** Announces this run's call to {@code peer}, once per run: it compares it with its own ({@link #otherCall}). */
    private void compareCalls(int peer, long[] heard) {
        if (!announced) {
            engine.announceCall(group[peer], context, sequence, signature[0], signature[1], signature[2]);
        }
        otherCall(peer, heard);
    }

    /**
     * Fails the run when communicator rank {@code peer}, waited for or not, has said that its part of
     * this call failed, or that it waits in this call with another signature (it announced so to the
     * ranks it waits for, which may not be the ones this rank waits for).
     */
    private void otherCall(int peer, long[] heard) {
        if (engine.announcedFailure(group[peer], context, heard) && (int) heard[0] == sequence) {
            judge(peer, heard);
        }
        if (engine.announcedCall(group[peer], context, heard) && (int) heard[0] == sequence) {
            judge(peer, heard);
        }
    }

    /** Fails the run for what {@code peer} announced of this very call ({@link #otherCall}), if it must. */
    private void judge(int peer, long[] heard) {
        boolean failed = (heard[1] & FAILED) != 0;
        long[] theirs = {heard[1] & ~FAILED, heard[2], heard[3]};
        boolean known = theirs[0] != 0 || theirs[1] != 0 || theirs[2] != 0;
        if (known && signature != null
                && (theirs[0] != signature[0] || theirs[1] != signature[1] || theirs[2] != signature[2])) {
            String what = CollectiveCall.describe(theirs).equals(CollectiveCall.describe(signature))
                    ? " with another algorithm" : "";
            throw disagree("rank " + peer + " is in " + CollectiveCall.describe(theirs) + what + " where rank "
                    + s.rank() + " is in " + CollectiveCall.describe(signature));
        }
        if (failed) {
            throw disagree("rank " + peer + "'s part of this " + s.name() + " failed (an argument it alone"
                    + " got wrong, or a mismatch it saw first)");
        }
    }

    /**
     * Fails the run when communicator rank {@code peer}, which this run waits for, has said that it
     * waits in a later call: then it will do nothing more in this one.
     */
    private void leftThisCall(int peer, long[] heard) {
        if (!engine.announcedCall(group[peer], context, heard)) {
            return;
        }
        // announcements travel in order with the data: a peer already in a later call has sent
        // all it will of this one, and waits for this rank there
        if ((int) heard[0] - sequence > 0) {
            throw disagree("rank " + peer + " has gone on to a later collective call while rank " + s.rank()
                    + " waits for it in " + s.name() + " (rank " + peer + " failed in this call, or skipped it)");
        }
    }

    private TuttiException.InvalidArgument disagree(String what) {
        abandon();
        return new TuttiException.InvalidArgument(what + ": every rank must make the same collective call with"
                + " matching counts, datatype, root and algorithm");
    }

    private int commRank(int world) {
        for (int r = 0; r < group.length; r++) {
            if (group[r] == world) {
                return r;
            }
        }
        return -1;
    }

    private boolean expects(int peer, int stepTag) {
        for (int i = 0; i < s.steps(); i++) {
            if (s.kind(i) == Schedule.RECV && s.peer(i) == peer && s.tag(i) == stepTag) {
                return true;
            }
        }
        return false;
    }

    private void pump() {
        // in order: builders emit the step that others wait for (a send) before local work
        while (readyHead < readyCount) {
            int i = ready[readyHead++];
            // an empty region may sit at the end of (or past) a buffer that holds nothing there
            long offset = s.length(i) == 0 ? 0 : s.offset(i);
            switch (s.kind(i)) {
                case Schedule.SEND -> {
                    engine.isend(ops[i], context, group[s.peer(i)], wireBase + s.tag(i), null, buffer(s.buffer(i)),
                            base(s.buffer(i)) + offset, s.length(i));
                    post(i, ops[i]);
                }
                case Schedule.RECV -> {
                    engine.irecv(ops[i], context, group[s.peer(i)], wireBase + s.tag(i), null, buffer(s.buffer(i)),
                            base(s.buffer(i)) + offset, s.length(i), null);
                    post(i, ops[i]);
                }
                case Schedule.SLOTS, Schedule.SLOTS_REDUCE -> {
                    NodeSlots.Exchange x = exchanges[i];
                    x.start(slotBase + slotIndex[i], buffer(s.srcBuffer(i)), base(s.srcBuffer(i)) + s.srcOffset(i),
                            buffer(s.buffer(i)), base(s.buffer(i)) + offset, s.length(i),
                            s.kind(i) == Schedule.SLOTS_REDUCE ? fold : null);
                    if (x.poll()) {
                        complete(i);
                    } else {
                        active[activeCount++] = i;
                    }
                }
                case Schedule.INC -> {
                    incs[i].start(buffer(s.buffer(i)), base(s.buffer(i)) + offset, s.length(i), op.ordinal(),
                            type.ordinal(), type.size());
                    active[activeCount++] = i;
                }
                case Schedule.REDUCE -> {
                    reduce(i);
                    complete(i);
                }
                default -> {
                    if (s.length(i) > 0) {
                        Memory.copy(buffer(s.srcBuffer(i)), base(s.srcBuffer(i)) + s.srcOffset(i), buffer(s.buffer(i)),
                                base(s.buffer(i)) + s.offset(i), s.length(i));
                    }
                    complete(i);
                }
            }
        }
    }

    /**
     * A receive that got another length than the schedule expects means the ranks disagree on the
     * call (count, datatype or root): report it instead of computing on garbage.
     */
    private void check(int i, Operation r) {
        TuttiException e = r.error();
        boolean mismatch = s.kind(i) == Schedule.RECV && (e instanceof TuttiException.Truncation
                || (e == null && r.receivedBytes() != s.length(i)));
        if (mismatch) {
            throw new TuttiException.InvalidArgument(s.name() + ": rank " + s.peer(i) + " sent " + r.receivedBytes()
                    + " bytes where rank " + s.rank() + " expected " + s.length(i) + ": every rank must make the same"
                    + " collective call with matching counts, datatype and root");
        }
        if (e != null) {
            throw e;
        }
    }

    /**
     * The communicator was revoked mid-run: the receives this run posted leave the engine (their
     * buffers are the caller's, who gets them back now), and the run ends.
     */
    private TuttiException revoked() {
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (s.kind(i) == Schedule.RECV) {
                engine.cancel(ops[i]);
            }
        }
        abandon();
        return Engine.revokedError("during this collective");
    }

    /**
     * Ends a failed run: operations still in flight belong to the engine until they complete, so
     * the steps get fresh ones, and the schedule may be started again.
     */
    private void abandon() {
        if (slotSteps > 0 && done != s.steps()) {
            slots.abandon(sequence, slotBase, slotSteps);
        }
        if (incs != null && done != s.steps()) {
            for (io.tutti.coll.inc.InNetworkAggregation.Transfer x : incs) {
                if (x != null) {
                    x.abandon();
                }
            }
        }
        for (int k = 0; k < activeCount; k++) {
            int i = active[k];
            if (s.kind(i) == Schedule.INC || isSlots(s.kind(i))) {
                continue;
            }
            ops[i] = operation();
            posted[i] = null;
        }
        activeCount = 0;
        readyHead = 0;
        readyCount = 0;
        done = s.steps();
    }

    private void post(int i, Operation r) {
        posted[i] = r;
        active[activeCount++] = i;
    }

    private void reduce(int i) {
        if (s.length(i) == 0) {
            return;
        }
        MemorySegment dst = buffer(s.buffer(i));
        MemorySegment src = buffer(s.srcBuffer(i));
        long dstOffset = base(s.buffer(i)) + s.offset(i);
        long srcOffset = base(s.srcBuffer(i)) + s.srcOffset(i);
        long count = s.length(i) / type.extent();
        boolean commutative = userOp == null ? op.commutative() : userOp.commutative();
        if (s.srcIsLeft(i) || commutative) {
            apply(dst, dstOffset, src, srcOffset, count);
        } else {
            // dst = dst ∘ src with a kernel that computes inout = in ∘ inout: reduce into the source
            // (scratch the schedule received into), then move the result
            apply(src, srcOffset, dst, dstOffset, count);
            Memory.copy(src, srcOffset, dst, dstOffset, s.length(i));
        }
    }

    /** SLOTS_REDUCE steps' fold: dst = src ∘ dst, src the left operand, so no operand order to mind. */
    private void fold(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        apply(dst, dstOffset, src, srcOffset, bytes / type.extent());
    }

    private static boolean isSlots(byte kind) {
        return kind == Schedule.SLOTS || kind == Schedule.SLOTS_REDUCE;
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
        for (int k = s.successorsFrom(i), end = s.successorsFrom(i + 1); k < end; k++) {
            int j = s.successor(k);
            if (--remaining[j] == 0) {
                ready[readyCount++] = j;
            }
        }
    }

    /** The segment through which a step reaches buffer {@code which}, at {@link #base}. */
    private MemorySegment buffer(byte which) {
        return switch (which) {
            case Schedule.SEND_BUFFER -> send;
            case Schedule.RECV_BUFFER -> recv;
            default -> tempVia;
        };
    }

    /** The offset in {@link #buffer} of buffer {@code which}'s first byte. */
    private long base(byte which) {
        return which == Schedule.TEMP_BUFFER ? tempBase : 0;
    }

    /** An operation that keeps the scratch alive while the engine holds it (it may write the scratch). */
    private Operation operation() {
        Operation o = engine.operation();
        o.hold(temp);
        return o;
    }
}

package io.tutti.coll.ft;

import io.tutti.p2p.Engine;
import io.tutti.p2p.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one {@link Agreement} over the engine: its messages go point-to-point on the communicator's
 * fault-tolerance context (never revoked), tagged with the agreement's number and the message's
 * step, so that each peer's messages are taken one after the other and none can match another
 * agreement. The failure detector is the engine's ({@link Engine#failure}), asked once per liveness
 * interval. {@link #await()} returns on the decision; the run then stays tracked by the engine until
 * every live peer's DECIDE, its last message, has been taken, so that nothing of a live peer is left
 * unmatched (what failed ranks left is taken at the communicator's next agreement). A task that
 * never throws for a failed peer: the protocol goes on without it.
 */
public final class AgreementRun implements Engine.Task {
    /** Set in a communicator's context for its fault-tolerance traffic: above every context in use. */
    public static final int CONTEXT_BIT = 1 << 30;

    private final Engine engine;
    private final int context;
    private final int[] group;
    private final int me;
    private final int instance;
    private final Agreement agreement;
    private final int length;
    /** Per peer: the receive posted for its next message, or null once its DECIDE came or it failed. */
    private final Operation[] recvs;
    private final long[][] buffers;
    /** Per peer: the step of the message its receive waits for. */
    private final int[] steps;
    private final long livenessNanos;
    /** Peers whose last message has not been taken yet (their receive is posted). */
    private int open;
    private long lastCheck;
    /** Decided and tracked by the engine: polls now end when every last message has been taken. */
    private boolean draining;

    /**
     * Starts agreement number {@code instance} (counted per communicator: every member runs them in
     * the same order) of this rank {@code me} of {@code group} (world ranks) on communicator
     * context {@code context}, and sends round 1. First it takes what ranks known to have failed
     * left unmatched on this context.
     */
    public AgreementRun(Engine engine, int context, int[] group, int me, int instance, long flag, long nextContext,
                        boolean[] knownFailed, boolean[] acked) {
        this.engine = engine;
        this.context = context | CONTEXT_BIT;
        this.group = group;
        this.me = me;
        this.instance = instance;
        this.agreement = new Agreement(group.length, me, flag, nextContext, knownFailed, acked);
        this.length = Agreement.messageLength(group.length);
        this.recvs = new Operation[group.length];
        this.buffers = new long[group.length][];
        this.steps = new int[group.length];
        this.livenessNanos = engine.config().livenessMillis() * 1_000_000L;
        this.lastCheck = System.nanoTime();
        discardLeftovers(knownFailed);
        for (int p = 0; p < group.length; p++) {
            if (p != me && !agreement.knownCrashed(p)) {
                buffers[p] = new long[length];
                steps[p] = 1;
                post(p);
                open++;
            }
        }
        send();
    }

    /**
     * Waits until this rank has decided and returns the decision; the messages still to come from
     * live peers (their DECIDEs, perhaps a round before) are then taken by the engine's progress.
     */
    public Agreement await() {
        engine.await(this);
        if (open > 0) {
            draining = true;
            engine.track(this);
        }
        return agreement;
    }

    /** Whether every live peer's last message has been taken: nothing of this agreement is left in flight to this rank. */
    public boolean drained() {
        return open == 0;
    }

    /** Tag of the message of {@code step} (1 .. n): distinct for every step of every agreement, wrapping far beyond any backlog. */
    private int tag(int step) {
        return (int) (((long) instance * group.length + step) & 0x3fff_ffff);
    }

    private void post(int p) {
        recvs[p] = engine.irecv(context, group[p], tag(steps[p]), buffers[p], null, 0, length * Long.BYTES, null);
    }

    /** Sends every message the protocol has now to every peer not known failed. */
    private void send() {
        for (long[] m; (m = agreement.next()) != null; ) {
            int tag = tag(Agreement.step(m));
            for (int p = 0; p < group.length; p++) {
                if (p != me && !agreement.knownCrashed(p)) {
                    // not awaited: an eager message is on its way once written, and a failed peer never takes it
                    engine.isend(context, group[p], tag, m, null, 0, length * Long.BYTES);
                }
            }
        }
    }

    /**
     * Takes every message that has arrived and sends what follows. Awaited, true once decided;
     * tracked after that, true once every live peer's DECIDE has been taken.
     */
    @Override
    public boolean poll() {
        for (boolean took = true; took; ) {
            took = false;
            for (int p = 0; p < group.length; p++) {
                Operation r = recvs[p];
                if (r != null && r.isDone()) {
                    took = true;
                    recvs[p] = null;
                    agreement.deliver(p, buffers[p]); // ignored once decided
                    if (Agreement.isDecision(buffers[p])) {
                        open--;
                    } else {
                        steps[p]++;
                        post(p);
                    }
                }
            }
            send();
        }
        if (open > 0 && agreement.decided()) {
            long now = System.nanoTime();
            if (now - lastCheck > livenessNanos) {
                // no wait diagnoses a tracked task: a peer that fails before its DECIDE is noticed here
                lastCheck = now;
                diagnose();
            }
        }
        return draining ? open == 0 : agreement.decided();
    }

    @Override
    public void fail(io.tutti.TuttiException error) {
        // only the job's abort reaches here, and the wait that polls next rethrows that
    }

    /** Once per liveness interval of an idle wait: peers this run still takes from that have failed are dropped. */
    @Override
    public void diagnose() {
        for (int p = 0; p < group.length; p++) {
            Operation r = recvs[p];
            if (r != null && !r.isDone() && engine.failure(group[p]) != null) {
                engine.cancel(r);
                recvs[p] = null;
                open--;
                if (!agreement.decided()) {
                    agreement.crashed(p);
                    send();
                }
            }
        }
    }

    /**
     * Takes the messages on this context that ranks known to have failed left unmatched: those that
     * reached this rank after an agreement stopped taking from them (a failed rank sends nothing
     * more, no run takes from a rank known failed, and a live peer's are all taken by their run).
     */
    private void discardLeftovers(boolean[] knownFailed) {
        List<int[]> leftovers = new ArrayList<>();
        engine.locked(() -> engine.forEachUnexpected(context, (source, tag, bytes) -> {
            for (int p = 0; p < group.length; p++) {
                if (group[p] == source && knownFailed[p]) {
                    leftovers.add(new int[] {source, tag, (int) bytes});
                }
            }
        }));
        for (int[] l : leftovers) {
            // matches at once: the message is waiting
            engine.irecv(context, l[0], l[1], new byte[l[2]], null, 0, l[2], null);
        }
    }

    /** The protocol asks the failure detector itself: the wait must not fail for a dead peer. */
    @Override
    public boolean needs(int worldRank) {
        return false;
    }

    @Override
    public boolean spinPays() {
        return false;
    }
}

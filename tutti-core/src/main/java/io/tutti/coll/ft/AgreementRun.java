package io.tutti.coll.ft;

import io.tutti.p2p.Engine;
import io.tutti.p2p.Operation;

/**
 * Runs one {@link Agreement} over the engine: each round's states go as point-to-point messages on
 * the communicator's fault-tolerance context (never revoked), tagged with the agreement's number
 * and the round; the failure detector is the engine's ({@link Engine#failure}), asked once per
 * liveness interval while the wait idles ({@link #diagnose()}). A task that never throws for a
 * failed peer: the protocol goes on without it.
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
    private final Operation[] recvs;
    private final long[][] buffers;

    /**
     * Starts agreement number {@code instance} (counted per communicator: every member runs them in
     * the same order) of this rank {@code me} of {@code group} (world ranks) on communicator
     * context {@code context}, and sends round 1.
     */
    public AgreementRun(Engine engine, int context, int[] group, int me, int instance, long flag, long nextContext,
                        boolean[] knownFailed, boolean[] acked) {
        this.engine = engine;
        this.context = context | CONTEXT_BIT;
        this.group = group;
        this.me = me;
        this.instance = instance;
        this.agreement = new Agreement(group.length, me, flag, nextContext, knownFailed, acked);
        this.recvs = new Operation[group.length];
        this.buffers = new long[group.length][];
        if (!agreement.decided()) {
            startRound();
        }
    }

    /** The protocol, once {@link Engine#await(Engine.Task)} has returned: its decision. */
    public Agreement agreement() {
        return agreement;
    }

    private int tag(int round) {
        // rounds 1..n-1 of every agreement get tags of their own, wrapping far beyond any backlog
        return (int) (((long) instance * group.length + round) & 0x3fff_ffff);
    }

    private void startRound() {
        int round = agreement.round();
        long[] message = agreement.message();
        int length = Agreement.messageLength(group.length) * Long.BYTES;
        for (int p = 0; p < group.length; p++) {
            recvs[p] = null;
            if (p != me && !agreement.knownCrashed(p)) {
                buffers[p] = new long[message.length];
                recvs[p] = engine.irecv(context, group[p], tag(round), buffers[p], null, 0, length, null);
                // not awaited: an eager message is on its way once written, and a failed peer never takes it
                engine.isend(context, group[p], tag(round), message, null, 0, length);
            }
        }
    }

    @Override
    public boolean poll() {
        while (!agreement.decided()) {
            int round = agreement.round();
            for (int p = 0; p < group.length; p++) {
                Operation r = recvs[p];
                if (r != null && r.isDone() && agreement.waitingFor(p)) {
                    recvs[p] = null;
                    agreement.deliver(p, round, buffers[p]);
                }
            }
            if (!agreement.advance()) {
                return agreement.decided();
            }
            startRound();
        }
        return true;
    }

    @Override
    public void fail(io.tutti.TuttiException error) {
        // only the job's abort reaches here, and the wait that polls next rethrows that
    }

    /** Once per liveness interval of an idle wait: peers this round still waits for that have failed are dropped. */
    @Override
    public void diagnose() {
        for (int p = 0; p < group.length; p++) {
            if (agreement.waitingFor(p) && engine.failure(group[p]) != null) {
                Operation r = recvs[p];
                if (r != null && !r.isDone()) {
                    engine.cancel(r);
                    recvs[p] = null;
                }
                if (r == null || !r.isDone()) {
                    agreement.crashed(p);
                }
            }
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

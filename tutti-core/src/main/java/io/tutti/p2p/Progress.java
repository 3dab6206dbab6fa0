package io.tutti.p2p;

import io.tutti.TuttiException;
import io.tutti.idle.Idle;
import io.tutti.metrics.Counters;
import io.tutti.os.CpuTopology;
import io.tutti.os.Futex;
import io.tutti.transport.shm.InboundRing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Progress of one rank: a pass over everything in flight (the network, the inbound ring, the
 * backlogs, the pipelines), the tracked tasks (running collectives), and the waits that repeat
 * passes until an operation or task completes, backing off through {@link Idle} and checking now and
 * then that the peers they need are alive. The progress agent runs {@link #agentCycle()}.
 *
 * <p>Whoever drives the engine holds {@link #lock} when there is a progress agent (null without
 * one); a wait lets the agent in while it yields or parks.
 */
final class Progress {
    private final Links links;
    private final Inbox inbox;
    private final Outbox outbox;
    private final Rendezvous rendezvous;
    /** Null when every peer shares this rank's memory. */
    private final NetworkPath network;
    private final RmaPackets rma;
    private ReentrantLock lock;
    private final Matching matching;
    private final Revocations revocations;
    private final Idle idle;
    private final long livenessNanos;
    private final List<Engine.Task> tasks = new ArrayList<>();
    /** Before sleeping: whether the awaited task has something to do that no message announces. */
    private final BooleanSupplier awaitedReady = () -> this.awaited != null && this.awaited.ready();
    /**
     * Where a wait starts counting idle rounds for a task that does not {@linkplain Engine.Task#spinPays
     * gain from spinning}: past the spin phase when ranks outnumber cores and the budget is automatic.
     */
    private final boolean skipSpins;
    private long lastLivenessNanos = System.nanoTime();
    /** The task a wait is blocked on, asked to {@link Engine.Task#diagnose()} itself now and then. */
    private Engine.Task awaited;
    /** The operation a wait is blocked on (null in a task's wait): what the counters name as its call. */
    private Operation awaitedOp;
    /** Whether this wait's call is in the counters: recorded once it stops spinning, removed as it ends. */
    private boolean blockedShown;
    /** Passes that found work, counted so that a busy wait looks at the clock only now and then ({@link #busy}). */
    private int busyPasses;
    /** A busy wait looks every 1,024 passes that found work (a mask): a clock read costs about 25 ns here. */
    private static final int BUSY_PASSES = 1023;
    /** When a busy wait first looked at the clock (0: not yet in this wait). */
    private long busySince;
    private boolean closed;

    Progress(Links links, Inbox inbox, Outbox outbox, Rendezvous rendezvous, NetworkPath network, RmaPackets rma,
             P2pConfig config, ReentrantLock lock, Matching matching, Revocations revocations) {
        this.links = links;
        this.inbox = inbox;
        this.outbox = outbox;
        this.rendezvous = rendezvous;
        this.network = network;
        this.rma = rma;
        this.lock = lock;
        this.matching = matching;
        this.revocations = revocations;
        int cores = Runtime.getRuntime().availableProcessors();
        int local = links.fabric.localSize();
        this.skipSpins = config.spinTries() < 0 && local > cores;
        // ranks that outnumber cores sleep on their ring's doorbell (a futex), and the peer that
        // sends to one wakes it at once, instead of parking for fixed periods
        boolean sleeps = sleeps(config, local);
        Idle.Policy policy = Idle.blocked(config.spinTries(), config.spinMicros(), config.yieldTries(), config.maxParkMicros(),
                config.longParkMicros(), local,
                cores);
        this.idle = new Idle(policy, sleeps ? nanos -> links.inbound.sleep(Math.max(nanos, 50_000L), awaitedReady)
                : null, this::peerQueuedHere);
        this.livenessNanos = config.livenessMillis() * 1_000_000L;
    }

    /** From now on a progress agent shares the engine: whoever drives it holds {@code engineLock}. */
    void shareWith(ReentrantLock engineLock) {
        this.lock = engineLock;
    }

    /** Whether a blocked rank with these settings sleeps on its ring's doorbell. */
    static boolean sleeps(P2pConfig config, int localRanks) {
        return config.idleSleep() && localRanks > Runtime.getRuntime().availableProcessors() && Futex.available();
    }

    boolean closed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    void checkOpen() {
        if (closed) {
            throw new TuttiException.NotActive("Tutti has been closed (finalized) on rank " + links.rank
                    + "; no communication is possible after close()");
        }
    }

    /** The engines of this process's other jobs that this one's waits drive ({@link Engine#alsoDrive}); copied on change. */
    private volatile Engine[] others = new Engine[0];

    synchronized void alsoDrive(Engine other) {
        Engine[] more = java.util.Arrays.copyOf(others, others.length + 1);
        more[others.length] = other;
        others = more;
    }

    synchronized void stopDriving(Engine other) {
        others = java.util.Arrays.stream(others).filter(e -> e != other).toArray(Engine[]::new);
    }

    /** One pass of {@code other}; its failures are its owner's to see on its next call. */
    private static void driveOther(Engine other) {
        if (other.isClosed()) {
            return;
        }
        try {
            other.progress();
        } catch (io.tutti.TuttiException e) {
            // a failed peer or a close in between: the other job's own calls report it
        }
    }

    /** One pass over everything in flight; returns the work done (0 = idle). */
    int pass() {
        int work = network == null ? 0 : network.pump();
        work += inbox.read();
        // the pass's RMA records are answered together: one cumulative ACK per origin and window
        rma.answer();
        if (outbox.backlogged()) {
            work += outbox.drive();
        }
        if (rendezvous.sending()) {
            work += rendezvous.drivePipelineOut();
        }
        if (rendezvous.receiving()) {
            work += rendezvous.drivePipelineIn();
        }
        return work;
    }

    /** A pass and the tasks: what the owner's waits and tests run. */
    int passAndTasks() {
        return pass() + pollTasks();
    }

    /**
     * Whether sends to ranks not known to have failed are still queued or moving (close flushes
     * them; what waits for a dead or departed rank can never leave). The rails skip failed peers themselves.
     */
    boolean sending() {
        java.util.function.IntPredicate gone = r -> failure(r, false) != null;
        return outbox.backlogged(gone) || rendezvous.sending(gone) || (network != null && !network.flushed(gone));
    }

    void track(Engine.Task task) {
        tasks.add(task);
    }

    void untrack(Engine.Task task) {
        tasks.remove(task);
    }

    /** One pass and one poll of {@code task}, for a test of it; true when it has finished. */
    boolean test(Engine.Task task) {
        checkOpen();
        pass();
        pollTasks();
        return task.poll();
    }

    /** One duty cycle of the agent: nothing if the owner holds the engine, else progress and tasks. */
    int agentCycle() {
        if (closed || !lock.tryLock()) {
            return 0;
        }
        try {
            if (closed) {
                return 0;
            }
            return pass() + pollTasks(Thread.currentThread());
        } catch (TuttiException e) {
            // a failed peer: the owner sees it on its next call; keep the agent quiet until then
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Polls the tracked tasks, forgetting finished ones; a task's failure is kept for its owner. */
    private int pollTasks() {
        return tasks.isEmpty() ? 0 : pollTasks(null);
    }

    /**
     * As {@link #pollTasks()}; {@code agent} is the progress agent's thread when it polls, and then
     * tasks whose buffers only their owner may touch (a confined arena's segments) are left to it.
     */
    private int pollTasks(Thread agent) {
        if (tasks.isEmpty()) {
            return 0;
        }
        int work = 0;
        for (int i = tasks.size() - 1; i >= 0; i--) {
            Engine.Task t = tasks.get(i);
            // the task a wait is for is polled by that wait's own loop: twice per pass would only
            // lengthen the pass in which its last packet lands
            if (agent != null ? !t.accessibleBy(agent) : t == awaited) {
                continue;
            }
            boolean finished;
            try {
                finished = t.poll();
            } catch (TuttiException e) {
                t.fail(e);
                finished = true;
            } catch (RuntimeException e) {
                t.fail(new TuttiException("a collective failed in the progress agent: " + e, e));
                finished = true;
            }
            if (finished) {
                tasks.remove(i);
                work++;
            }
        }
        return work;
    }

    /** Repeats passes until {@code op} completes; throws its error. The caller holds the engine. */
    void await(Operation op) {
        int round = 0;
        Operation outer = awaitedOp;
        awaitedOp = op;
        busySince = 0;
        try {
            while (!op.done) {
                if (passAndTasks() > 0) {
                    round = 0;
                    if ((++busyPasses & BUSY_PASSES) == 0 && busy(op)) {
                        break;
                    }
                    continue;
                }
                if (revocations.revoked(op.context)) {
                    failRevoked(op);
                    break;
                }
                if (op.done) {
                    break;
                }
                round = idle(round, op.peer);
            }
        } finally {
            awaitedOp = outer;
            if (blockedShown) {
                unblock();
            }
        }
        if (op.error != null) {
            throw op.error;
        }
    }

    /** Repeats passes until {@code task} reports it has finished. The caller holds the engine. */
    void await(Engine.Task task) {
        Engine.Task outer = awaited;
        awaited = task;
        busySince = 0;
        try {
            checkOpen();
            int round = 0;
            while (!task.poll()) {
                if (passAndTasks() > 0) {
                    round = 0;
                    if ((++busyPasses & BUSY_PASSES) == 0) {
                        busy(Engine.ANY);
                    }
                    continue;
                }
                if (skipSpins && !task.spinPays()) {
                    round = idle.afterSpins(round);
                }
                round = idle(round, Engine.ANY);
            }
        } finally {
            awaited = outer;
            if (blockedShown) {
                unblock();
            }
        }
    }

    /**
     * An operation still pending on a revoked communicator fails: a receive leaves the posted
     * queue, a send stops waiting for its receiver. A send still queued for its ring is left to
     * complete, as it will (the receiver reads its ring), lest its late completion hit the reused
     * operation.
     */
    private void failRevoked(Operation op) {
        if (op.kind == Operation.RECV) {
            matching.remove(op);
        } else if (outbox.queued(op)) {
            return;
        }
        op.fail(Engine.revokedError(op.kind == Operation.RECV ? "while this receive was pending"
                : "while this send was pending"));
    }

    /** One pass on behalf of {@link Operation#test()}, with the liveness check a wait would make. */
    void passFor(Operation op) {
        checkOpen();
        if (revocations.revoked(op.context) && !op.done) {
            failRevoked(op);
            return;
        }
        if (passAndTasks() == 0 && !op.done) {
            livenessCheck(System.nanoTime(), op.peer);
        }
    }

    /**
     * Once per liveness interval: the counters' clock and the liveness check (which throws for a
     * failed peer). Returns whether it was due.
     */
    private boolean livenessCheck(long now, int peer) {
        if (now - lastLivenessNanos <= livenessNanos) {
            return false;
        }
        lastLivenessNanos = now;
        links.counters.tick(now);
        checkLiveness(peer);
        return true;
    }

    /**
     * Backs off once while nothing happens (spin, then yield the core, then park or sleep), so that
     * more ranks than cores still make progress; past the spin phase it checks peer liveness now and
     * then, and lets a progress agent in. Returns the next round.
     */
    int idle(int round, int peer) {
        if (idle.phase(round) == Idle.SPIN) {
            return idle.idle(round);
        }
        Engine[] drive = others;
        for (Engine e : drive) {
            driveOther(e);
        }
        long now = System.nanoTime();
        if (!blockedShown) {
            showBlocked(peer, now);
        }
        if (livenessCheck(now, peer) && awaited != null) {
            // an idle wait only: a busy one is moving (diagnosing there too, mpi.AllocationTest saw a
            // byte a round in one run of three)
            awaited.diagnose();
        }
        // with a progress agent, let it in while this thread gives up the core
        int holds = lock == null ? 0 : lock.getHoldCount();
        for (int i = 0; i < holds; i++) {
            lock.unlock();
        }
        try {
            return idle.idle(round);
        } finally {
            for (int i = 0; i < holds; i++) {
                lock.lock();
            }
        }
    }

    /**
     * For a wait whose passes keep finding work, every {@link #BUSY_PASSES} + 1 of them: what an idle
     * wait does past its spin phase, once that is due (the blocked call shown once the wait has been
     * busy that long, the liveness check). A wait whose passes always find work (a NAK to a dead
     * peer, repeated) would otherwise never notice the death (the chaos test's hang,
     * docs/guide/fault-tolerance.md). Kept out of the loops, which only count.
     */
    private void busy(int peer) {
        long now = System.nanoTime();
        if (busySince == 0) {
            busySince = now;
        }
        if (!blockedShown && now - busySince > livenessNanos && now - lastLivenessNanos > livenessNanos) {
            showBlocked(peer, now);
        }
        livenessCheck(now, peer);
    }

    /** {@link #busy(int)} for a wait on {@code op}, which a revocation fails; whether it has. */
    private boolean busy(Operation op) {
        busy(op.peer);
        if (revocations.revoked(op.context) && !op.done) {
            failRevoked(op);
            return true;
        }
        return false;
    }

    /** Records in the counters which call this rank is blocked in, and for whom: a wait past its spinning. */
    private void showBlocked(int peer, long now) {
        blockedShown = true;
        Operation op = awaitedOp;
        if (op != null) {
            links.counters.block(op.kind == Operation.SEND ? Counters.SEND : Counters.RECV, op.peer, op.tag, op.context,
                    now);
        } else {
            links.counters.block(Counters.WAIT, awaited != null ? awaited.waitsFor() : peer, -1, -1, now);
        }
    }

    private void unblock() {
        blockedShown = false;
        links.counters.unblock();
    }

    /** Counts a failure of {@code peer} (-1: the job) that this rank is about to raise. */
    private TuttiException failed(int peer, TuttiException e) {
        links.counters.peerFailed(peer, e.getMessage());
        return e;
    }

    /**
     * For a spinning wait: notes this rank's processor in its ring and tells whether a local peer
     * last waited on the same one, and so is queued behind this rank for it (another process took
     * the other core): then a yield lets the peer run instead of spinning out the time slice.
     */
    private boolean peerQueuedHere() {
        int cpu = CpuTopology.runningCpu();
        if (cpu < 0) {
            return false;
        }
        links.inbound.publishCpu(cpu);
        for (int r = 0; r < links.size; r++) {
            InboundRing ring = links.rings[r];
            if (r != links.rank && !links.remote[r] && ring != null && ring.lastCpu() == cpu) {
                return true;
            }
        }
        return false;
    }

    private void checkLiveness(int peer) {
        String abort = links.fabric.abortReason();
        if (abort != null) {
            throw failed(-1, new TuttiException.PeerFailed("the job is being stopped: " + abort));
        }
        if (links.fabric.threads()) {
            return;
        }
        if (peer >= 0) {
            checkAlive(peer, false);
        } else {
            Operation op = awaitedOp;
            for (int r = 0; r < links.size; r++) {
                boolean wildcard = awaited == null;
                // a wildcard receive needs its communicator's members, save failures it acknowledged
                if (wildcard && op != null && (op.commRank(r) < 0 || revocations.acknowledged(op.context, r))) {
                    continue;
                }
                if (!wildcard && !awaited.needs(r)) {
                    continue;
                }
                checkAlive(r, wildcard);
            }
        }
    }

    /**
     * Why {@code r} is known to have failed (exited, killed, unreachable, or closed and gone), or
     * null while it is not; never for this rank, and never with ranks as threads (they fail together).
     * {@code wildcard}: for a receive from any rank, which a rank that closed cleanly does not fail.
     */
    String failure(int r, boolean wildcard) {
        if (r == links.rank || links.fabric.threads()) {
            return null;
        }
        if (links.remote[r]) {
            String why = links.transport.failure(r);
            if (why != null) {
                return "rank " + r + " cannot be reached: " + why;
            }
            why = links.fabric.reportedFailure(r);
            return why == null ? null : "rank " + r + " has died, its launcher reports: " + why;
        }
        if (!links.fabric.alive(r)) {
            InboundRing ring = links.rings[r];
            if (ring != null && ring.closedCleanly()) {
                return wildcard ? null : "rank " + r + " has closed Tutti and exited; nothing more can"
                        + " come from it or reach it";
            }
            return "rank " + r + " (pid " + links.fabric.pid(r) + ") has exited or was"
                    + " killed; communication with it is impossible (the launcher reports why it ended)";
        }
        return null;
    }

    private void checkAlive(int r, boolean wildcard) {
        String why = failure(r, wildcard);
        if (why != null) {
            throw failed(r, new TuttiException.PeerFailed(why));
        }
    }
}

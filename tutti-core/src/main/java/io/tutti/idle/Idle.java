package io.tutti.idle;

import io.tutti.os.TimerSlack;
import java.util.concurrent.locks.LockSupport;

/**
 * How a thread with nothing to do waits, in three phases: it spins ({@link Thread#onSpinWait}) while
 * an answer is likely a few hundred nanoseconds away, yields its core while another thread may need
 * it, then parks for periods that double from {@link Policy#minParkNanos} to
 * {@link Policy#maxParkNanos} (or sleeps on a doorbell a peer rings: {@link Sleeper}). The Agrona
 * IdleStrategy idea: every wait in Tutti runs one of these, and its policies are decided here only
 * (the measurements behind them: docs/perf/collectives.md, "Idle").
 *
 * <p>{@link #idle()} takes one step and counts it; {@link #reset()} starts over once there is work.
 * An instance belongs to one waiting loop (one thread at a time); it allocates nothing.
 */
public final class Idle {
    /** What {@link #phase()} reports. */
    public static final int SPIN = 0;
    public static final int YIELD = 1;
    public static final int PARK = 2;

    /**
     * @param spins        rounds of {@link Thread#onSpinWait} before the first yield
     * @param yields       rounds of {@link Thread#yield} before the first park
     * @param minParkNanos the first park; each next one is twice as long
     * @param maxParkNanos the longest park
     */
    public record Policy(int spins, int yields, long minParkNanos, long maxParkNanos) {
        public Policy {
            if (spins < 0 || yields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
                throw new IllegalArgumentException("idle policy " + spins + "/" + yields + "/" + minParkNanos + "/"
                        + maxParkNanos);
            }
        }
    }

    /** The long phase, when something better than a timed park can end it early (a futex doorbell). */
    @FunctionalInterface
    public interface Sleeper {
        /** Waits at most {@code nanos}; may return earlier. */
        void sleep(long nanos);
    }

    private static final Sleeper PARK_NANOS = LockSupport::parkNanos;

    private final Policy policy;
    private final Sleeper sleeper;
    private int round;

    public Idle(Policy policy) {
        this(policy, null);
    }

    /** {@code sleeper} null: parks. */
    public Idle(Policy policy, Sleeper sleeper) {
        this.policy = policy;
        this.sleeper = sleeper == null ? PARK_NANOS : sleeper;
    }

    public Policy policy() {
        return policy;
    }

    /** Work was done: the next wait starts spinning again. */
    public void reset() {
        round = 0;
    }

    /** Skips what is left of the spin phase (a wait that spinning cannot shorten). */
    public void skipSpins() {
        if (round < policy.spins) {
            round = policy.spins;
        }
    }

    /** The phase the next {@link #idle()} takes. */
    public int phase() {
        return round < policy.spins ? SPIN : round < policy.spins + policy.yields ? YIELD : PARK;
    }

    /** One step of backing off. */
    public void idle() {
        int r = round;
        if (r < policy.spins) {
            Thread.onSpinWait();
        } else if (r < policy.spins + policy.yields) {
            Thread.yield();
        } else {
            TimerSlack.tighten();
            sleeper.sleep(parkNanos(r - policy.spins - policy.yields));
        }
        if (r != Integer.MAX_VALUE) {
            round = r + 1;
        }
    }

    private long parkNanos(int parks) {
        return Math.min(policy.minParkNanos << Math.min(parks, 30), policy.maxParkNanos);
    }
}

package io.tutti.idle;

import io.tutti.os.TimerSlack;
import java.util.concurrent.locks.LockSupport;

/**
 * How a thread with nothing to do waits, in three phases: it spins ({@link Thread#onSpinWait})
 * while an answer is likely near (at least {@link Policy#spins} rounds and, where the policy says,
 * {@link Policy#spinNanos} of time), yields its core while another thread may
 * need it, then parks for periods that double from {@link Policy#minParkNanos} up to
 * {@link Policy#maxParkNanos} and, if the wait goes on, grow to {@link Policy#longParkNanos}
 * ({@link Policy#park}), or sleeps on a doorbell a peer rings ({@link Sleeper}). Every wait in
 * Tutti backs off through this class (the Agrona IdleStrategy idea), and the policies below are
 * the only place that decides the phases (the figures behind them: docs/perf/collectives.md).
 *
 * <p>A wait counts its idle rounds: {@link #idle(int)} takes the round and returns the next, so a
 * wait inside a wait keeps its own count and nothing allocates; a loop that owns an instance may use
 * {@link #idle()} and {@link #reset()} instead. Instances are immutable but for that count and the
 * start of a timed spin phase, so a timed policy's instance belongs to one thread.
 */
public final class Idle {
    /** Parks at {@link Policy#maxParkNanos} before they grow. */
    static final int GROW_AFTER = 9;

    /** What {@link #phase(int)} reports. */
    public static final int SPIN = 0;
    public static final int YIELD = 1;
    public static final int PARK = 2;

    /**
     * @param spins        rounds of {@link Thread#onSpinWait} before the first yield
     * @param spinNanos    the least time the spin phase lasts, from round {@link #CLOCK_ROUND} on (0: rounds
     *                     only): a peer that lost its core to another process gets it back within a few
     *                     scheduler slices, and a thread that parked meanwhile waits that long again for
     *                     its own core (docs/perf/contention.md)
     * @param yields       rounds of {@link Thread#yield} before the first park
     * @param minParkNanos the first park; each next one is twice as long
     * @param maxParkNanos the longest park of the doubling
     * @param longParkNanos the longest park of a wait that goes on past the doubling: each park an
     *                     eighth longer than the one before, so that a wait never sleeps more than an
     *                     eighth of what it has already slept (equal to {@code maxParkNanos}: no growth)
     */
    public record Policy(int spins, long spinNanos, int yields, long minParkNanos, long maxParkNanos,
                         long longParkNanos) {
        public Policy {
            if (spins < 0 || spinNanos < 0 || yields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos
                    || longParkNanos < maxParkNanos || (spinNanos > 0 && spins <= CLOCK_ROUND)) {
                throw new IllegalArgumentException("idle policy: spins " + spins + " (more than " + CLOCK_ROUND
                        + " when timed), spin time " + spinNanos + " ns, yields " + yields + ", parks "
                        + minParkNanos + ".." + maxParkNanos + ".." + longParkNanos + " ns");
            }
        }

        /** A policy whose parks stop growing at {@code maxParkNanos}. */
        public Policy(int spins, long spinNanos, int yields, long minParkNanos, long maxParkNanos) {
            this(spins, spinNanos, yields, minParkNanos, maxParkNanos, maxParkNanos);
        }

        /** A policy whose spin phase is counted in rounds only. */
        public Policy(int spins, int yields, long minParkNanos, long maxParkNanos) {
            this(spins, 0, yields, minParkNanos, maxParkNanos);
        }

        /** Rounds before the first park. */
        int parkAfter() {
            return (int) Math.min(Integer.MAX_VALUE, (long) spins + yields);
        }

        /**
         * Park number {@code parks} of a wait (0: the first): doubling from the least to
         * {@link #maxParkNanos}, nine more of that, then each an eighth longer up to
         * {@link #longParkNanos}; so a park past those is at most an eighth of the parks before it.
         */
        public long park(int parks) {
            long doubled = Math.min(minParkNanos << Math.min(parks, 32), maxParkNanos);
            // the park at which the doubling reached the largest, and the nine that then sum to more than 8 of it
            int flat = 64 - Long.numberOfLeadingZeros((maxParkNanos - 1) / minParkNanos) + GROW_AFTER;
            if (parks <= flat || longParkNanos == maxParkNanos) {
                return doubled;
            }
            // a sum of 8 x p followed by p (9/8), p (9/8)^2, ...: each term stays an eighth of the sum before it
            return (long) Math.min(longParkNanos, maxParkNanos * Math.pow(1.125, Math.min(parks - flat, 400)));
        }
    }

    /**
     * The progress agent (the software NIC's thread): brief, because the rank's own thread may need
     * the core; parks of at most 50 µs keep a late packet's wait short.
     */
    public static final Policy AGENT = new Policy(100, 50, 1_000, 50_000);
    /** A wait that polls requests one after another ({@code Request.waitAny}): as a blocked call, with 50 µs parks. */
    public static final Policy POLLING = new Policy(1_000, 1_000, 50_000, 50_000);
    /** A wait for a file to appear (the start-up rendezvous): from 20 µs, doubling to 5 ms. */
    public static final Policy FILE = new Policy(0, 0, 20_000, 5_000_000);
    /** A wait for a datagram that has no doorbell (the switch client's control replies): 50 µs parks. */
    public static final Policy DATAGRAM = new Policy(0, 0, 50_000, 50_000);

    /**
     * A blocked rank's wait, from its settings: {@code spins} and {@code yields} as set, or with -1
     * automatic: with a core per local rank it spins long (20,000 rounds, and at least {@code spinMicros})
     * and yields 200 times; when
     * ranks outnumber cores it spins 20 rounds and yields about 2 ms (5,000 yields of ~0.5 µs) before
     * it parks, because a park sleeps at least 16–73 µs while the peer's answer is usually one yield
     * away (docs/perf/collectives.md). Parks double from 1 µs to {@code maxParkMicros}, then grow
     * by an eighth up to {@code longParkMicros} (at least the former), so that many ranks waiting
     * long (a start-up's first barrier) leave the cores to those still working (docs/perf/launch.md).
     */
    public static Policy blocked(int spins, int spinMicros, int yields, int maxParkMicros, int longParkMicros,
                                 int localRanks, int cores) {
        boolean own = localRanks <= cores;
        int rounds = spins >= 0 ? spins : own ? 20_000 : 20;
        long spinNanos = own && rounds > CLOCK_ROUND ? spinMicros * 1_000L : 0;
        long maxPark = Math.max(1_000, maxParkMicros * 1_000L);
        return new Policy(rounds, spinNanos, yields >= 0 ? yields : own ? 200 : 5_000, 1_000, maxPark,
                Math.max(maxPark, longParkMicros * 1_000L));
    }

    /**
     * The round at which a timed spin phase reads the clock: waits shorter than this (a few
     * microseconds) never pay for the read.
     */
    public static final int CLOCK_ROUND = 256;

    /** The long phase, when something better than a timed park can end it early (a futex doorbell). */
    @FunctionalInterface
    public interface Sleeper {
        /** Waits at most {@code nanos}; may return earlier. */
        void sleep(long nanos);
    }

    /**
     * Asked during a timed spin phase: whether a thread the wait needs is queued for this very
     * processor, so that spinning only keeps it from running and a yield lets it in.
     */
    @FunctionalInterface
    public interface Company {
        boolean queuedHere();
    }

    private static final Sleeper PARK_NANOS = LockSupport::parkNanos;
    private static final Company ALONE = () -> false;

    private final Policy policy;
    private final Sleeper sleeper;
    private final Company company;
    private int round;
    /** When the current timed spin phase reached {@link #CLOCK_ROUND}; a nested wait restarts it (it only spins longer). */
    private long spinSince;

    public Idle(Policy policy) {
        this(policy, null);
    }

    /** {@code sleeper} null: the long phase parks. */
    public Idle(Policy policy, Sleeper sleeper) {
        this(policy, sleeper, null);
    }

    /** {@code company} null: a timed spin phase never yields. */
    public Idle(Policy policy, Sleeper sleeper, Company company) {
        this.policy = policy;
        this.sleeper = sleeper == null ? PARK_NANOS : sleeper;
        this.company = company == null ? ALONE : company;
    }

    public Policy policy() {
        return policy;
    }

    /** The phase round {@code round} of a wait takes. */
    public int phase(int round) {
        return round < policy.spins ? SPIN : round < policy.parkAfter() ? YIELD : PARK;
    }

    /** Round {@code round} moved past the spin phase: for a wait that spinning cannot shorten. */
    public int afterSpins(int round) {
        return Math.max(round, policy.spins);
    }

    /** Backs off for round {@code round} of a wait (0 after work was done); returns the next round. */
    public int idle(int round) {
        if (round < policy.spins) {
            if (policy.spinNanos > 0 && round >= CLOCK_ROUND) {
                return timedSpin(round);
            }
            Thread.onSpinWait();
        } else if (round < policy.parkAfter()) {
            Thread.yield();
        } else {
            TimerSlack.tighten();
            sleeper.sleep(policy.park(round - policy.parkAfter()));
        }
        return round == Integer.MAX_VALUE ? round : round + 1;
    }

    /**
     * A round of a timed spin phase: from {@link #CLOCK_ROUND} on it asks its {@link Company} every
     * {@code CLOCK_ROUND} rounds, and every round once the counted rounds are used, and yields while
     * a thread it needs is queued here; it stays on the last counted round until the time is up.
     */
    private int timedSpin(int round) {
        boolean last = round == policy.spins - 1;
        if (round == CLOCK_ROUND) {
            spinSince = System.nanoTime();
        }
        if ((last || round % CLOCK_ROUND == 0) && company.queuedHere()) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return last && System.nanoTime() - spinSince < policy.spinNanos ? round : round + 1;
    }

    /** As {@link #idle(int)} on this instance's own count. */
    public void idle() {
        round = idle(round);
    }

    /** There was work: this instance's next {@link #idle()} spins again. */
    public void reset() {
        round = 0;
    }
}

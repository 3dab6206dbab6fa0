package io.tutti.rma;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counting behind a flush across the network, both sides. The origin numbers the records that
 * change a target without a reply (puts, accumulates) 1, 2, 3, ... per target; the target notes the
 * highest number it has applied per origin and answers once per progress pass with one cumulative
 * ACK, "applied up to n"; the origin's flush waits until the answer reaches the last number it sent.
 * Why so: one answer covers every record of a pass, where one ACK per record made a window of 64
 * puts cost 64 answers; a late or repeated answer cannot lower what is known.
 *
 * <p>Threads: {@link #next} and {@link #complete} are the origin's owner's; {@link #acknowledged},
 * {@link #applied} and {@link #takeAnswer} run on whoever holds the engine (one thread at a time,
 * ordered by the engine's lock). The one value both read is the acknowledged number: a volatile
 * write, a volatile read.
 */
final class Answers {
    /** Origin: per target, the number of the last record sent (plain, owner only). */
    private final long[] sent;
    /** Origin: per target, the highest number the target has answered (volatile). */
    private final AtomicLongArray acked;
    /** Target: per origin, the number of the last record applied, and the last one answered. */
    private final long[] applied;
    private final long[] answered;
    /** Target: whether some origin's applied number is ahead of its answer. */
    private boolean due;

    Answers(int ranks) {
        this.sent = new long[ranks];
        this.acked = new AtomicLongArray(ranks);
        this.applied = new long[ranks];
        this.answered = new long[ranks];
    }

    // ------------------------------------------------------------ origin

    /** The number of the next record to {@code target} (plain, owner). */
    long next(int target) {
        return ++sent[target];
    }

    /** Arrival path: {@code target} has applied every record up to {@code upTo}; a lower (older) answer changes nothing. */
    void acknowledged(int target, long upTo) {
        if (upTo > acked.get(target)) {
            acked.set(target, upTo);
        }
    }

    /** Owner, volatile read: whether {@code target} has answered every record sent to it. */
    boolean complete(int target) {
        return acked.get(target) >= sent[target];
    }

    // ------------------------------------------------------------ target

    /** Arrival path: record {@code number} of {@code origin} has been applied (records apply in order). */
    void applied(int origin, long number) {
        if (number > applied[origin]) {
            applied[origin] = number;
            due = true;
        }
    }

    /** Whether some origin is owed an answer. */
    boolean due() {
        return due;
    }

    /**
     * The number to answer {@code origin} with, marked answered, or 0 when it is owed nothing; the
     * caller asks for every origin once {@link #due()}, and afterwards nothing is due.
     */
    long takeAnswer(int origin) {
        long upTo = applied[origin];
        if (upTo == answered[origin]) {
            return 0;
        }
        answered[origin] = upTo;
        return upTo;
    }

    /** After {@link #takeAnswer} for every origin: nothing is owed. */
    void answeredAll() {
        due = false;
    }
}

package io.tutti.rails;

import java.util.function.IntToLongFunction;

/**
 * Which rails a record goes on, as MNC's dynamic link dispatch [MNC] §2.3.2: a rail is BUSY when
 * its load (bytes in flight on it from the whole host) is above {@code busyBytes}, FREE
 * otherwise. A record above {@code stripeMin} bytes, with more than one rail, is split over the
 * FREE rails (all of them when none is), fragment i on the i mod k-th; a smaller one goes whole on
 * the first FREE rail from the caller's round-robin turn on, or on the turn's rail when every one
 * is BUSY. Pure and allocation-free: the caller owns the arrays and the turn counter.
 */
public final class StripePolicy {
    private StripePolicy() {
    }

    /** Whether a record of {@code length} bytes is split over {@code rails} usable rails. */
    public static boolean stripes(long length, int stripeMin, int rails) {
        return length > stripeMin && rails > 1;
    }

    /**
     * The rails a striped record goes on: the FREE ones among {@code usable[0 … n−1]} copied into
     * {@code into} in order, or all {@code n} when none is FREE. Returns how many.
     */
    public static int stripeRails(int[] usable, int n, IntToLongFunction load, long busyBytes, int[] into) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (load.applyAsLong(usable[i]) <= busyBytes) {
                into[k++] = usable[i];
            }
        }
        if (k == 0) {
            System.arraycopy(usable, 0, into, 0, n);
            k = n;
        }
        return k;
    }

    /**
     * The rail a record goes on whole: from {@code usable[turn mod n]} on, the first FREE one; the
     * turn's own when every one is BUSY (or there is only one).
     */
    public static int wholeRail(int[] usable, int n, IntToLongFunction load, long busyBytes, int turn) {
        int start = Math.floorMod(turn, n);
        for (int i = 0; i < n; i++) {
            int r = usable[(start + i) % n];
            if (n == 1 || load.applyAsLong(r) <= busyBytes) {
                return r;
            }
        }
        return usable[start];
    }
}

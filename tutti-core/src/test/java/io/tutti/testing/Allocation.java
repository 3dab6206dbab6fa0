package io.tutti.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a loop allocates on the calling thread, for the tests that hold hot paths allocation-free:
 * the least of a few rounds, since a collection, a deoptimisation or a pool growing shows in one
 * round only, whereas an object per call (16 bytes at least) shows in every round.
 */
public final class Allocation {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    private Allocation() {
    }

    /** Skips the test on a JVM that does not count the bytes a thread allocates. */
    public static void assumeCounted() {
        assumeTrue(BEAN.isThreadAllocatedMemorySupported() && BEAN.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count the bytes a thread allocates");
    }

    /** The least bytes this thread allocated in {@code rounds} rounds of {@code calls} runs of {@code body}. */
    public static long least(int rounds, int calls, Runnable body) {
        long least = Long.MAX_VALUE;
        for (int round = 0; round < rounds; round++) {
            long before = BEAN.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                body.run();
            }
            least = Math.min(least, BEAN.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }
}

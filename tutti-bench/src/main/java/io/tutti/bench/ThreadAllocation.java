package io.tutti.bench;

import java.lang.management.ManagementFactory;

/**
 * Bytes the calling thread has allocated so far, for the benchmarks' allocation-per-operation
 * column. The bean is looked up once: the lookup itself allocates (a stream over the platform
 * beans), and inside a timed window it would be charged to the operations being measured.
 */
final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ThreadAllocation() {
    }

    /** The calling thread's allocated bytes; allocation-free. */
    static long bytes() {
        return BEAN.getCurrentThreadAllocatedBytes();
    }
}

/**
 * JMH micro-benchmarks of the hot paths in one JVM: ping-pong and allreduce between two ranks that
 * run as threads ({@link io.tutti.bench.jmh.ThreadRanks}), the reduction kernels, and a window's
 * accumulate lock against atomic instructions.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.bootstrap} (to start ranks as threads),
 * {@code io.tutti.os} (native memory), {@code io.tutti.reduce} (the kernels measured) and
 * {@code io.tutti.rma} (the accumulate lock word measured).
 */
package io.tutti.bench.jmh;

/**
 * JMH micro-benchmarks of the hot paths in one JVM: ping-pong and allreduce between two ranks that
 * run as threads ({@link io.tutti.bench.jmh.ThreadRanks}), and the reduction kernels.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.bootstrap} (to start ranks as threads),
 * {@code io.tutti.os} (native memory) and {@code io.tutti.reduce} (the kernels measured).
 */
package io.tutti.bench.jmh;

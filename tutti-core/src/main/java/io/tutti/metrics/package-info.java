/**
 * A rank's counters in shared memory, read from outside while the job runs: the file's layout
 * ({@link io.tutti.metrics.CountersDescriptor}), the owner's writer ({@link io.tutti.metrics.Counters},
 * which the engine, the collectives and the network transport count into) and the reader that
 * {@code tutti status} and {@code Tutti.metrics()} use ({@link io.tutti.metrics.CountersReader}); and
 * the rank's JDK Flight Recorder events ({@link io.tutti.metrics.FlightEvents}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.transport} (the rails' counters interface).
 */
package io.tutti.metrics;

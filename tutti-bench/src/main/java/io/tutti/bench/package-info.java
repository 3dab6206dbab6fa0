/**
 * The benchmarks that run on every rank of a {@code tutti bench} job: OSU-style point-to-point
 * ({@link io.tutti.bench.P2pBenchmark}), one-sided ({@link io.tutti.bench.RmaBenchmark}) and
 * collective ({@link io.tutti.bench.CollectiveBenchmark}) benchmarks, the LogGP parameters
 * ({@link io.tutti.bench.LogGpBenchmark}) and [BCL-3]'s bandwidth figures ({@link io.tutti.bench.Bcl3Bandwidth}). Their arguments are read with picocli,
 * sizes by {@link io.tutti.bench.Sizes}, and their {@code --json} rows written by one jackson-core
 * writer.
 *
 * <p>May import: {@code io.tutti} (the API, as an application uses it) only; the engine's
 * settings through {@code Tutti}. Libraries: picocli, HdrHistogram, XChart, jackson-core.
 */
package io.tutti.bench;

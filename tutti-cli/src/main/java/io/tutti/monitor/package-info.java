/**
 * The status page and metrics of running jobs ({@code tutti monitor}, {@code tutti run --monitor}): reads
 * the ranks' counters files of jobs on this host ({@link io.tutti.monitor.JobCounters}), samples them
 * into a short history ({@link io.tutti.monitor.Watch}), and serves them over HTTP
 * ({@link io.tutti.monitor.MonitorServer}) as Prometheus metrics through the Prometheus client
 * ({@link io.tutti.monitor.PrometheusMapping}), as JSON ({@link io.tutti.monitor.MonitorJson}) and as a
 * live page (the resources in {@code io/tutti/monitor/web}). Read-only: it maps the files read-only and
 * refuses every request but GET.
 *
 * <p>May import: {@code io.tutti} (the {@code Metrics} snapshot), {@code io.tutti.metrics} (the
 * counters' reader). Which jobs to watch is given to it; the command line ({@code io.tutti.cli}) finds them.
 */
package io.tutti.monitor;

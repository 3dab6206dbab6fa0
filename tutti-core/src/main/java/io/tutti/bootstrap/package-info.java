/**
 * Joining a job: who started it and who this rank is ({@link io.tutti.bootstrap.Bootstrap},
 * {@link io.tutti.bootstrap.JobInfo}), the rendezvous (the launcher's server and the ranks' client, a PMI-2
 * launcher's PMI-2 or PMIx key-value space: {@link io.tutti.bootstrap.PmiJob}, or a shared directory), the job's
 * shared-memory directory on each host, and
 * the only reads of the environment and of system properties ({@link io.tutti.bootstrap.LaunchEnvironment}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.transport}.
 */
package io.tutti.bootstrap;

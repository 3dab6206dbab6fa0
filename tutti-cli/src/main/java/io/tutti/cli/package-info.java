/**
 * The {@code tutti} command line ({@link io.tutti.cli.Main}): its subcommands, and the launcher that
 * starts and watches the ranks of a job ({@link io.tutti.cli.Launcher}, with {@link io.tutti.cli.JobTarget},
 * {@link io.tutti.cli.JobDirectory}, {@link io.tutti.cli.RankProcesses}, {@link io.tutti.cli.Placement}: ranks on
 * hosts by slots from hostfiles and host lists, {@link io.tutti.cli.Hosts}, or from the Slurm allocation it runs
 * in, {@link io.tutti.cli.SlurmAllocation}; why a remote rank did not start, {@link io.tutti.cli.RemoteStarts};
 * ranks as threads, {@link io.tutti.cli.RankThreads}, of one JVM per host, {@link io.tutti.cli.HostThreads}).
 * Options are picocli's; durations have one parser ({@link io.tutti.cli.Durations}), sizes the
 * benchmarks' ({@link io.tutti.bench.Sizes}); progress bars are drawn only on a terminal
 * ({@link io.tutti.cli.ProgressDisplay}).
 *
 * <p>May import: everything Tutti has, as the application at the top: {@code io.tutti},
 * {@code io.tutti.bootstrap} (the launch environment), {@code io.tutti.bench}, {@code io.tutti.sim},
 * {@code io.tutti.sw}, and the core packages the offload and switch commands configure. Rank main
 * classes (benchmarks, samples) are named, not run here: the ranks run them.
 */
package io.tutti.cli;

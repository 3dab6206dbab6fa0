package io.tutti.bootstrap;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Finds out who this rank is: from {@code tutti run}, Slurm, Open MPI or MPICH/Hydra, or alone
 * (a singleton of size 1). {@code tutti run} serves the rendezvous itself ({@code TUTTI_RENDEZVOUS},
 * with the job secret in {@code TUTTI_SECRET} or on standard input). Where a launcher hands over a
 * PMI-2 socket ({@code PMI_FD}: {@code srun --mpi=pmi2}, MPICH's {@code mpiexec}) or a PMIx server
 * (Open MPI's {@code mpirun}, {@code srun --mpi=pmix}) the ranks meet in its key-value space
 * ({@link PmiJob}); other launchers give no rendezvous, so there the ranks meet in a shared
 * directory named by {@code TUTTI_KVS_DIR}, which also wins when set.
 */
public final class Bootstrap {
    private Bootstrap() {
    }

    public static JobInfo detect(Map<String, String> env) {
        if (env.containsKey(LaunchEnvironment.RANK)) {
            return fromTutti(env);
        }
        if (env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS")) {
            String job = "slurm-" + env.getOrDefault("SLURM_JOB_ID", "0") + "." + env.getOrDefault("SLURM_STEP_ID", "0");
            return foreign(JobInfo.Launcher.SLURM, env, job, integer(env, "SLURM_PROCID"), integer(env, "SLURM_NTASKS"),
                    integer(env, "SLURM_LOCALID", 0), slurmLocalSize(env), integer(env, "SLURM_NODEID", 0));
        }
        if (env.containsKey("OMPI_COMM_WORLD_RANK")) {
            String job = "ompi-" + env.getOrDefault("OMPI_MCA_ess_base_jobid", env.getOrDefault("PMIX_NAMESPACE", "0"));
            return foreign(JobInfo.Launcher.OPEN_MPI, env, job, integer(env, "OMPI_COMM_WORLD_RANK"),
                    integer(env, "OMPI_COMM_WORLD_SIZE"), integer(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0),
                    integerOr(env, "OMPI_COMM_WORLD_LOCAL_SIZE", -1), 0);
        }
        if (env.containsKey("PMI_RANK") && env.containsKey("PMI_SIZE")) {
            String job = "mpich-" + env.getOrDefault("PMI_KVSNAME", env.getOrDefault("PMI_ID", "0"));
            return foreign(JobInfo.Launcher.MPICH, env, job, integer(env, "PMI_RANK"), integer(env, "PMI_SIZE"),
                    integer(env, "MPI_LOCALRANKID", 0), integerOr(env, "MPI_LOCALNRANKS", -1), 0);
        }
        String job = "single-" + ProcessHandle.current().pid();
        Path dir = ShmFiles.defaultRoot().resolve("tutti-" + job);
        return new JobInfo(JobInfo.Launcher.SINGLETON, job, 0, 1, 0, 1, 0, dir, dir.resolve("kvs"), null, -1, false);
    }

    private static JobInfo fromTutti(Map<String, String> env) {
        String job = require(env, LaunchEnvironment.JOB_ID, "tutti run sets it for every rank");
        int rank = integer(env, LaunchEnvironment.RANK);
        int size = integer(env, LaunchEnvironment.SIZE);
        // Without TUTTI_JOB_DIR the rank makes the job's directory on its own host.
        String dir = env.get(LaunchEnvironment.JOB_DIR);
        Path jobDir = dir == null || dir.isEmpty() ? ShmFiles.defaultRoot().resolve("tutti-" + safe(job))
                : Path.of(dir);
        String secret = env.get(LaunchEnvironment.SECRET_FILE);
        String rendezvous = env.getOrDefault(LaunchEnvironment.RENDEZVOUS, "");
        List<String> addresses = new ArrayList<>();
        for (String a : rendezvous.split(",")) {
            if (!a.isBlank()) {
                addresses.add(a.strip());
            }
        }
        return checked(new JobInfo(JobInfo.Launcher.TUTTI, job, rank, size,
                integer(env, LaunchEnvironment.LOCAL_RANK, rank), integer(env, LaunchEnvironment.LOCAL_SIZE, size),
                integer(env, LaunchEnvironment.NODE_ID, 0), jobDir,
                Path.of(env.getOrDefault(LaunchEnvironment.KVS_DIR, jobDir.resolve("kvs").toString())),
                secret == null ? null : Path.of(secret),
                Long.parseLong(env.getOrDefault(LaunchEnvironment.LAUNCHER_PID, "-1")),
                "1".equals(env.get(LaunchEnvironment.THREADS)), addresses,
                addresses.isEmpty() ? null : jobSecret(env), integer(env, LaunchEnvironment.PARENTS, 0)));
    }

    /** The secret handed over with the rendezvous address: in the environment, or on standard input. */
    private static byte[] jobSecret(Map<String, String> env) {
        String hex = env.get(LaunchEnvironment.SECRET);
        if (hex != null && !hex.isBlank()) {
            try {
                return HexFormat.of().parseHex(hex.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("environment variable " + LaunchEnvironment.SECRET
                        + " is not a job secret in hex; start ranks with tutti run");
            }
        }
        if ("1".equals(env.get(LaunchEnvironment.SECRET_STDIN))) {
            return StdinSecret.get();
        }
        throw new IllegalStateException(LaunchEnvironment.RENDEZVOUS + " is set but the job secret is not ("
                + LaunchEnvironment.SECRET + " or " + LaunchEnvironment.SECRET_STDIN + "); start ranks with tutti run");
    }

    private static String safe(String job) {
        return job.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static JobInfo foreign(JobInfo.Launcher launcher, Map<String, String> env, String job, int rank, int size,
                                   int localRank, int localSize, int nodeId) {
        String kvs = env.get(LaunchEnvironment.KVS_DIR);
        boolean pmi = kvs == null && PmiJob.offered(env);
        PmiJob joined = null;
        if (pmi) {
            // the launcher's PMI-2 or PMIx key-value space is the rendezvous, and carries the job secret
            joined = PmiJob.join(env, rank, size);
            if (launcher == JobInfo.Launcher.MPICH && !env.containsKey("PMI_KVSNAME")) {
                job = "mpich-" + joined.jobId(); // Hydra names its job only through PMI
            }
        } else if (kvs == null && size > 1) {
            throw new IllegalStateException("this job was started by " + launcher + " with " + size
                    + " ranks, which gives Tutti no rendezvous: set " + LaunchEnvironment.KVS_DIR
                    + " to an empty directory that every rank can reach (or start the job with 'tutti run',"
                    + " 'srun --mpi=pmi2', MPICH's mpiexec or Open MPI's mpirun)");
        }
        String safeJob = safe(job);
        Path jobDir = ShmFiles.defaultRoot().resolve("tutti-" + safeJob);
        Path kvsDir = kvs == null ? jobDir.resolve("kvs") : Path.of(kvs);
        JobInfo info = checked(new JobInfo(launcher, safeJob, rank, size, localRank,
                localSize < 0 ? size : localSize, nodeId, jobDir, kvsDir, null, -1, false));
        if (joined != null) {
            joined.bind(safeJob);
        }
        return info;
    }

    /**
     * This node's task count. Slurm lists the counts of all nodes of the step in compressed form
     * ({@code 4(x2),3}: two nodes with 4, one with 3) in SLURM_STEP_TASKS_PER_NODE (or
     * SLURM_TASKS_PER_NODE); SLURM_NTASKS_PER_NODE exists only when the user asked for it.
     * Returns -1 when none can be read.
     */
    static int slurmLocalSize(Map<String, String> env) {
        int node = integer(env, "SLURM_NODEID", 0);
        for (String name : new String[] {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
            String list = env.get(name);
            if (list == null || list.isBlank()) {
                continue;
            }
            int count = nodeCount(list.trim(), node);
            if (count > 0) {
                return count;
            }
        }
        // the requested count per node, the same for every node
        return integerOr(env, "SLURM_NTASKS_PER_NODE", -1);
    }

    private static int nodeCount(String list, int node) {
        try {
            List<Integer> counts = slurmPerNode(list);
            return node < counts.size() ? counts.get(node) : -1;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /**
     * Slurm's per-node counts written out, one per node: the compressed form of
     * SLURM_TASKS_PER_NODE and its kin, {@code 4(x2),3} (two nodes with 4, then one with 3), becomes
     * [4, 4, 3]. Anything else, or more than a million nodes, is an IllegalArgumentException.
     */
    public static List<Integer> slurmPerNode(String compressed) {
        List<Integer> counts = new ArrayList<>();
        for (String item : compressed.strip().split(",", -1)) {
            java.util.regex.Matcher m = SLURM_COUNT.matcher(item.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + compressed + "' is not a list of per-node counts such as"
                        + " 2(x3),1");
            }
            int count = Integer.parseInt(m.group(1));
            int repeat = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            if (counts.size() + (long) repeat > MAX_NODES) {
                throw new IllegalArgumentException("'" + compressed + "' counts more than " + MAX_NODES + " nodes");
            }
            counts.addAll(java.util.Collections.nCopies(repeat, count));
        }
        return counts;
    }

    /** One item of a compressed count list: a count, and how many nodes have it when more than one. */
    private static final java.util.regex.Pattern SLURM_COUNT = java.util.regex.Pattern.compile(
            "(\\d{1,9})(?:\\(x(\\d{1,9})\\))?");
    private static final int MAX_NODES = 1_000_000;

    private static JobInfo checked(JobInfo info) {
        if (info.size() < 1 || info.rank() < 0 || info.rank() >= info.size()) {
            throw new IllegalStateException("inconsistent launch environment: rank " + info.rank() + " of size "
                    + info.size());
        }
        return info;
    }

    private static String require(Map<String, String> env, String name, String why) {
        String v = env.get(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalStateException("environment variable " + name + " is missing (" + why + ")");
        }
        return v;
    }

    private static int integer(Map<String, String> env, String name) {
        return parse(name, require(env, name, "the launcher sets it"));
    }

    private static int integer(Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        return v == null || v.isEmpty() ? fallback : parse(name, v);
    }

    private static int integerOr(Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        // Slurm writes e.g. "4(x2)" for per-node counts; the first number is ours
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        return end == 0 ? fallback : parse(name, v.substring(0, end));
    }

    private static int parse(String name, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable " + name + " is not a number: '" + v + "'");
        }
    }
}

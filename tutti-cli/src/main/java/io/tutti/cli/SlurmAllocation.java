package io.tutti.cli;

import io.tutti.bootstrap.Bootstrap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The Slurm allocation that {@code tutti run} runs in ({@code salloc}, {@code sbatch}): its nodes
 * ({@code SLURM_JOB_NODELIST}, written out by {@code scontrol show hostnames}) and, as their slots,
 * the tasks Slurm gave each ({@code SLURM_TASKS_PER_NODE}, as Open MPI's mpirun counts them; else
 * {@code SLURM_JOB_CPUS_PER_NODE}). Each rank starts through {@link #template()}: a job step of one
 * task on its node that shares the allocation with the other ranks' steps ({@code --overlap}) and
 * brings no PMI of its own ({@code --mpi=none}), so the rank joins tutti run's rendezvous. srun
 * runs the command's words as they are, passes the environment on ({@code --export=ALL}) and
 * forwards its standard input, the job secret first, to the task.
 *
 * @param jobId    the job's id, for messages
 * @param nodeList the node list as Slurm compresses it ({@code n[0-2]}), for messages
 * @param hosts    the nodes with their slots, in Slurm's order
 * @param srun     the {@code srun} found on the PATH
 * @param here     the node {@code tutti run} runs on, or null when it runs outside the allocation
 */
record SlurmAllocation(String jobId, String nodeList, List<Hosts.Host> hosts, Path srun, String here) {
    /** srun's options for one rank; {@code {host}} is its node. */
    static final String SRUN_OPTIONS = "--nodes=1 --ntasks=1 --nodelist={host} --overlap --mpi=none --quiet"
            + " --export=ALL";
    /** How long {@code scontrol show hostnames}, which only parses, may take. */
    private static final long SCONTROL_SECONDS = 30;

    /**
     * The allocation around this process, from its environment {@code env}; null outside one (no
     * SLURM_JOB_ID). A node list with brackets is written out by {@code scontrol} on the PATH.
     */
    static SlurmAllocation find(Map<String, String> env) {
        return find(env, list -> hostnames(env, list));
    }

    /** As {@link #find(Map)}, with {@code expand} writing out a compressed node list ({@code n[0-2]}). */
    static SlurmAllocation find(Map<String, String> env, Function<String, List<String>> expand) {
        String job = first(env, "SLURM_JOB_ID", "SLURM_JOBID");
        if (job == null) {
            return null;
        }
        Path srun = onPath(env, "srun");
        if (srun == null) {
            throw new IllegalArgumentException("inside Slurm job " + job + ", but srun, which starts the ranks on its"
                    + " nodes, is not on the PATH: add Slurm's commands to the PATH, or name the hosts with --hostfile"
                    + " or --host");
        }
        String nodeList = first(env, "SLURM_JOB_NODELIST", "SLURM_NODELIST");
        if (nodeList == null) {
            throw new IllegalArgumentException("Slurm job " + job + " (SLURM_JOB_ID) names no nodes"
                    + " (SLURM_JOB_NODELIST): run tutti run inside salloc or sbatch, or name the hosts with --hostfile"
                    + " or --host");
        }
        String perNodeName = first(env, "SLURM_TASKS_PER_NODE") != null ? "SLURM_TASKS_PER_NODE"
                : "SLURM_JOB_CPUS_PER_NODE";
        String perNode = first(env, perNodeName);
        if (perNode == null) {
            throw new IllegalArgumentException("Slurm job " + job + " gives no tasks per node (SLURM_TASKS_PER_NODE):"
                    + " name the hosts and their slots with --hostfile or --host");
        }
        List<String> nodes = nodeList.contains("[") ? expand.apply(nodeList) : List.of(nodeList.split(","));
        List<Integer> slots;
        try {
            slots = Bootstrap.slurmPerNode(perNode);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Slurm job " + job + ": " + perNodeName + " " + e.getMessage()
                    + ": name the hosts and their slots with --hostfile or --host");
        }
        if (slots.size() != nodes.size()) {
            throw new IllegalArgumentException("Slurm job " + job + " has " + nodes.size() + " nodes (" + nodeList
                    + ") but tasks for " + slots.size() + " (" + perNodeName + "=" + perNode + "): name the hosts and"
                    + " their slots with --hostfile or --host");
        }
        List<Hosts.Host> hosts = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            hosts.add(new Hosts.Host(nodes.get(i).strip(), Math.max(1, slots.get(i)), 0));
        }
        return new SlurmAllocation(job, nodeList, List.copyOf(hosts), srun, here(env, nodes));
    }

    /** The template each rank starts through, as {@code --exec-prefix} would give it. */
    String template() {
        return srun + " " + SRUN_OPTIONS;
    }

    /** The node this process runs on: Slurm's name for it inside a step, else one that names this host. */
    private static String here(Map<String, String> env, List<String> nodes) {
        String named = env.get("SLURMD_NODENAME");
        if (named != null && nodes.contains(named)) {
            return named;
        }
        return nodes.stream().filter(Placement::isOwnHost).findFirst().orElse(null);
    }

    /** The first of the variables that is set and not blank, stripped; null when none is. */
    private static String first(Map<String, String> env, String... names) {
        for (String name : names) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                return v.strip();
            }
        }
        return null;
    }

    /** The executable {@code command} in a directory of the PATH of {@code env}, or null. */
    static Path onPath(Map<String, String> env, String command) {
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** {@code list} written out by {@code scontrol show hostnames}, one node a line. */
    private static List<String> hostnames(Map<String, String> env, String list) {
        Path scontrol = onPath(env, "scontrol");
        String doing = "writing out Slurm's node list " + list + " takes scontrol";
        if (scontrol == null) {
            throw new IllegalArgumentException(doing + ", which is not on the PATH: add Slurm's commands to the PATH,"
                    + " or name the hosts with --hostfile or --host");
        }
        Path out = null;
        try {
            // to a file, not a pipe: a scontrol that hangs cannot hold the reading up past the bound
            out = Files.createTempFile("tutti-nodes", ".txt");
            Process p = new ProcessBuilder(scontrol.toString(), "show", "hostnames", list).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            if (!p.waitFor(SCONTROL_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalArgumentException(doing + ", which gave no answer in " + SCONTROL_SECONDS
                        + " s: name the hosts with --hostfile or --host");
            }
            List<String> nodes = Files.readAllLines(out, StandardCharsets.UTF_8).stream().map(String::strip)
                    .filter(l -> !l.isEmpty()).toList();
            if (p.exitValue() != 0 || nodes.isEmpty()) {
                throw new IllegalArgumentException(doing + ", which failed (exit code " + p.exitValue() + "): name"
                        + " the hosts with --hostfile or --host");
            }
            return nodes;
        } catch (IOException e) {
            throw new IllegalArgumentException(doing + ", which did not run (" + e.getMessage() + "): name the hosts"
                    + " with --hostfile or --host");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException(doing + ", which was interrupted");
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // a temporary file of a few names: the system's clean-up of its temporary directory takes it
                }
            }
        }
    }
}

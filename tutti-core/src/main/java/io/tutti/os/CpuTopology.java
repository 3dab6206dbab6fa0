package io.tutti.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU package (socket) a thread runs on, from Linux's {@code /proc} and {@code /sys}: the
 * processor the thread last ran on (field 39 of {@code /proc/thread-self/stat}) and that
 * processor's {@code topology/physical_package_id}. Socket-leader collectives group ranks by it.
 * Where the files are missing (not Linux, a restricted container) every rank counts as socket 0.
 */
public final class CpuTopology {
    /** glibc's {@code sched_getcpu} (vDSO or rseq: no system call), or null where there is none. */
    private static final java.lang.invoke.MethodHandle SCHED_GETCPU = schedGetcpu();

    private CpuTopology() {
    }

    /**
     * The processor the calling thread runs on now, cheaply enough to ask on every collective call
     * ({@code sched_getcpu}); -1 when unknown. Stale as soon as the scheduler moves the thread.
     */
    public static int runningCpu() {
        if (SCHED_GETCPU == null) {
            return -1;
        }
        try {
            return (int) SCHED_GETCPU.invokeExact();
        } catch (Throwable e) {
            return -1;
        }
    }

    private static java.lang.invoke.MethodHandle schedGetcpu() {
        if (!Platform.LINUX) {
            return null;
        }
        try {
            java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
            return linker.defaultLookup().find("sched_getcpu").map(a -> linker.downcallHandle(a,
                    java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT),
                    java.lang.foreign.Linker.Option.critical(false))).orElse(null);
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    /** The package id of the CPU the calling thread runs on, or 0 when unknown. */
    public static int currentPackage() {
        return packageOf(currentCpu(), Path.of("/sys/devices/system/cpu"));
    }

    /** The processor the calling thread last ran on, or -1 when unknown. */
    public static int currentCpu() {
        try {
            return cpuFromStat(Files.readString(Path.of("/proc/thread-self/stat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Field 39 of a {@code stat} line; the command name (field 2) may hold spaces and parentheses. */
    static int cpuFromStat(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
        // f[0] is field 3 (state), so field 39 is f[36]
        return Integer.parseInt(f[36]);
    }

    /** The package (socket) of processor {@code cpu}, 0 when unknown. */
    public static int packageOf(int cpu) {
        return packageOf(cpu, Path.of("/sys/devices/system/cpu"));
    }

    /**
     * The physical core of processor {@code cpu} as "package:core", so that hardware threads of one
     * core share it; the processor itself when the topology files are missing.
     */
    public static String coreOf(int cpu) {
        try {
            return packageOf(cpu) + ":" + Files.readString(Path.of("/sys/devices/system/cpu", "cpu" + cpu, "topology",
                    "core_id")).trim();
        } catch (IOException | RuntimeException e) {
            return "cpu" + cpu;
        }
    }

    /** The package of {@code cpu} under a sysfs cpu directory, 0 when unknown. */
    static int packageOf(int cpu, Path sysCpu) {
        if (cpu < 0) {
            return 0;
        }
        try {
            return Integer.parseInt(Files.readString(sysCpu.resolve("cpu" + cpu).resolve("topology")
                    .resolve("physical_package_id")).trim());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}

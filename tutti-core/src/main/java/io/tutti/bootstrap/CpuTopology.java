package io.tutti.bootstrap;

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
    private CpuTopology() {
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

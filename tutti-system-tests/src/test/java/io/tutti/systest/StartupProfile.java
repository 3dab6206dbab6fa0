package io.tutti.systest;

import io.tutti.Tutti;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link FirstBarrier} with a profile: each rank prints one line with its JVM's start, the wall
 * clock and process CPU time (from /proc) at main, after {@code Tutti.init} and after the first
 * barrier, and the CPU time of its threads by name. With {@code --late-ms N} the last rank waits N ms
 * between init and the barrier, so that the others' CPU in the barrier is the cost of waiting.
 * Run by {@link StartupProfileBenchmark}.
 */
public final class StartupProfile {
    /** /proc reports CPU in clock ticks of 10 ms (USER_HZ 100 on Linux). */
    private static final long TICK_MS = 10;

    private StartupProfile() {
    }

    public static void main(String[] args) throws InterruptedException {
        long main = System.currentTimeMillis();
        long cpuMain = cpuMillis(Path.of("/proc/self/stat"));
        long late = args.length == 2 && args[0].equals("--late-ms") ? Long.parseLong(args[1]) : 0;
        try (Tutti tutti = Tutti.init(args)) {
            int rank = tutti.world().rank();
            if (rank == tutti.world().size() - 1) {
                Thread.sleep(late);
            }
            long init = System.currentTimeMillis();
            long cpuInit = cpuMillis(Path.of("/proc/self/stat"));
            tutti.world().barrier();
            long done = System.currentTimeMillis();
            long cpuDone = cpuMillis(Path.of("/proc/self/stat"));
            if (rank == 0) {
                System.out.println("barrier-done " + done);
            }
            long start = ProcessHandle.current().info().startInstant().map(i -> i.toEpochMilli()).orElse(-1L);
            System.out.println("profile rank=" + rank + " start=" + start + " main=" + main + " init=" + init + " done="
                    + done + " cpuMain=" + cpuMain + " cpuInit=" + cpuInit + " cpuDone=" + cpuDone + " threads: "
                    + threads());
        }
    }

    /** User plus system CPU of a /proc stat file, in ms. */
    static long cpuMillis(Path stat) {
        try {
            String s = Files.readString(stat);
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_MS;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** CPU ms of this JVM's threads, by name with digits folded ("C2 CompilerThread0" and 1 together). */
    private static String threads() {
        Map<String, Long> byName = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                String s = Files.readString(t.resolve("stat"));
                String name = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                byName.merge(name.replace(' ', '_'), cpuMillis(t.resolve("stat")), Long::sum);
            }
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
        StringBuilder b = new StringBuilder();
        byName.forEach((k, v) -> b.append(v > 0 ? k + "=" + v + " " : ""));
        return b.toString().strip();
    }
}

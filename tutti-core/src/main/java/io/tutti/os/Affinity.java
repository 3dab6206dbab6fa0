package io.tutti.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The processors the calling thread may run on ({@code sched_getaffinity} and
 * {@code sched_setaffinity} of thread 0, i.e. the caller): a rank binds its main thread, and the
 * threads it starts afterwards, to one core as mpirun's {@code --bind-to core} does, while the
 * JVM's compiler and collector threads, started earlier, keep every processor. Elsewhere than on
 * Linux, or where native access is denied, {@link #allowed()} is empty and {@link #bind} does nothing.
 */
public final class Affinity {
    /** glibc's cpu_set_t: 1024 processors. */
    private static final int SET_BYTES = 128;
    private static final MethodHandle GET = handle("sched_getaffinity");
    private static final MethodHandle SET = handle("sched_setaffinity");

    private Affinity() {
    }

    /** The processors the calling thread may run on, ascending; empty when unknown. */
    public static List<Integer> allowed() {
        List<Integer> cpus = new ArrayList<>();
        if (GET == null) {
            return cpus;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(SET_BYTES, 8);
            if ((int) GET.invokeExact(0, (long) SET_BYTES, set) != 0) {
                return cpus;
            }
            for (int cpu = 0; cpu < SET_BYTES * 8; cpu++) {
                if ((set.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    cpus.add(cpu);
                }
            }
        } catch (Throwable e) {
            cpus.clear();
        }
        return cpus;
    }

    /** Restricts the calling thread to {@code cpus}; false if the system refused or cannot. */
    public static boolean bind(List<Integer> cpus) {
        if (SET == null || cpus.isEmpty()) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(SET_BYTES, 8);
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= SET_BYTES * 8) {
                    return false;
                }
                set.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (set.get(ValueLayout.JAVA_BYTE, cpu / 8) | (1 << (cpu % 8))));
            }
            return (int) SET.invokeExact(0, (long) SET_BYTES, set) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle handle(String name) {
        if (!Platform.LINUX) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name).map(a -> linker.downcallHandle(a, FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException | Error e) {
            return null;
        }
    }
}

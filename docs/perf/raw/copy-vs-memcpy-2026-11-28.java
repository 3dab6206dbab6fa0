// The 1 MiB copies of a put window (64 MiB, as OSU's putbw streams it): MemorySegment.copy against
// glibc's memcpy through the FFM API. Run: java --enable-native-access=ALL-UNNAMED copy-vs-memcpy-2026-11-28.java 1048576
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
public class Mc {
    public static void main(String[] a) throws Throwable {
        long chunk = Long.parseLong(a[0]), region = 64L << 20;
        Arena arena = Arena.ofShared();
        MemorySegment src = arena.allocate(region, 4096), dst = arena.allocate(region, 4096);
        src.fill((byte) 1); dst.fill((byte) 2);
        Linker l = Linker.nativeLinker();
        MethodHandle memcpy = l.downcallHandle(l.defaultLookup().find("memcpy").get(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
            Linker.Option.critical(false));
        int n = (int) (region / chunk);
        for (int round = 0; round < 8; round++) {
            for (int mode = 0; mode < 2; mode++) {
                long best = Long.MAX_VALUE;
                for (int rep = 0; rep < 5; rep++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        long off = i * chunk;
                        if (mode == 0) MemorySegment.copy(src, off, dst, off, chunk);
                        else { MemorySegment r = (MemorySegment) memcpy.invokeExact(dst.asSlice(off), src.asSlice(off), chunk); }
                    }
                    best = Math.min(best, System.nanoTime() - t0);
                }
                if (round >= 2) System.out.printf("%s %d B: %.0f MB/s%n", mode == 0 ? "MemorySegment.copy" : "memcpy", chunk, region * 1e3 / best);
            }
        }
    }
}

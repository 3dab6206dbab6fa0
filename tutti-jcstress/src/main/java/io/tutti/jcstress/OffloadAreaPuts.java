package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.offload.Counter;
import io.tutti.offload.OffloadArea;
import io.tutti.offload.OffloadAreaDescriptor;
import io.tutti.os.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The ordering {@link OffloadAreaDescriptor} states for a node's offload area: two peers each copy
 * a short vector into the owner's temporary buffer of one parity, then add 1 to its counter there
 * ({@link Counter#add(long)} on the shared word, a volatile read-modify-write); whoever sees the
 * level reach 2 ({@link Counter#level()}, acquire) sees both vectors, and no add is lost. Each
 * side reaches the area through its own {@link OffloadArea} view, as separate processes do; the
 * second peer reads the level after its own add, as the owner's progress would.
 * Result: the level the second peer read, then how many of the first peer's two words it saw if
 * that level was 2 (else -1), then the final level, then 1 if both vectors are whole and the other
 * parity untouched.
 */
@JCStressTest
@Outcome(id = "1, -1, 2, 1", expect = ACCEPTABLE,
        desc = "the second peer's add came first; both adds counted, both vectors whole")
@Outcome(id = "2, 2, 2, 1", expect = ACCEPTABLE,
        desc = "the first peer's add came first and its vector was seen with the level")
@Outcome(id = "2, [01], .*", expect = FORBIDDEN,
        desc = "the level reached 2 but the first peer's vector was not (all) there")
@Outcome(id = "[12], -?[0-9], [^2], .*", expect = FORBIDDEN, desc = "an add was lost")
@Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "a vector was damaged, or the other parity was written")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class OffloadAreaPuts {
    private static final int COUNTERS = 2;
    private static final long TEMP = 64;
    private static final long A0 = 0x0102_0304_0506_0708L;
    private static final long A1 = 0x1112_1314_1516_1718L;
    private static final long B0 = 0x2122_2324_2526_2728L;
    private static final long B1 = 0x3132_3334_3536_3738L;
    private static final MemorySegment VECTORS = vectors();

    private final int parity = ThreadLocalRandom.current().nextInt(2);
    private final OffloadArea owner;
    private final OffloadArea peerA;
    private final OffloadArea peerB;
    private final Counter ownerCounter;
    private final Counter counterA;
    private final Counter counterB;

    public OffloadAreaPuts() {
        MemorySegment file = Arena.ofAuto().allocate(OffloadAreaDescriptor.fileLength(COUNTERS, TEMP), 4096);
        OffloadArea.format(file, COUNTERS, TEMP);
        owner = new OffloadArea(file);
        peerA = new OffloadArea(file);
        peerB = new OffloadArea(file);
        ownerCounter = new Counter(owner.segment(), owner.counterOffset(parity, 1));
        counterA = new Counter(peerA.segment(), peerA.counterOffset(parity, 1));
        counterB = new Counter(peerB.segment(), peerB.counterOffset(parity, 1));
    }

    private static MemorySegment vectors() {
        MemorySegment s = Arena.global().allocate(32, 8);
        s.set(ValueLayout.JAVA_LONG, 0, A0);
        s.set(ValueLayout.JAVA_LONG, 8, A1);
        s.set(ValueLayout.JAVA_LONG, 16, B0);
        s.set(ValueLayout.JAVA_LONG, 24, B1);
        return s;
    }

    /** As {@code OffloadedCollective} writes into a peer's area: copy, then add. */
    private static void put(OffloadArea area, Counter counter, int parity, long from, long to) {
        Memory.copy(Memory.via(VECTORS), Memory.base(VECTORS) + from, area.via(), area.tempAt(parity) + to, 16);
        counter.add(1);
    }

    @Actor
    public void peerA() {
        put(peerA, counterA, parity, 0, 0);
    }

    @Actor
    public void peerB(IIII_Result r) {
        put(peerB, counterB, parity, 16, 32);
        int level = (int) ownerCounter.level();
        r.r1 = level;
        if (level == 2) {
            MemorySegment temp = owner.temp(parity);
            r.r2 = (temp.get(ValueLayout.JAVA_LONG, 0) == A0 ? 1 : 0)
                    + (temp.get(ValueLayout.JAVA_LONG, 8) == A1 ? 1 : 0);
        } else {
            r.r2 = -1;
        }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r3 = (int) ownerCounter.level();
        MemorySegment temp = owner.temp(parity);
        MemorySegment other = owner.temp(1 - parity);
        boolean whole = temp.get(ValueLayout.JAVA_LONG, 0) == A0 && temp.get(ValueLayout.JAVA_LONG, 8) == A1
                && temp.get(ValueLayout.JAVA_LONG, 32) == B0 && temp.get(ValueLayout.JAVA_LONG, 40) == B1;
        boolean untouched = other.asSlice(0, TEMP).mismatch(MemorySegment.ofArray(new byte[(int) TEMP])) == -1
                && new Counter(owner.segment(), owner.counterOffset(1 - parity, 1)).level() == 0
                && new Counter(owner.segment(), owner.counterOffset(parity, 0)).level() == 0;
        r.r4 = whole && untouched ? 1 : 0;
    }
}

package io.tutti.rma;

import static io.tutti.rma.WindowAreaDescriptor.ACCUMULATE_LOCK_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.COMPLETE_IN_LINE;
import static io.tutti.rma.WindowAreaDescriptor.EXCLUSIVE_LOCK_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.FENCE_OFFSET;
import static io.tutti.rma.WindowAreaDescriptor.POST_IN_LINE;
import static io.tutti.rma.WindowAreaDescriptor.SHARED_IN_LINE;
import static io.tutti.rma.WindowAreaDescriptor.line;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.IntPredicate;

/**
 * The synchronisation words of one rank's window area ({@link WindowAreaDescriptor}), shared by
 * every rank of the window, each access with its memory ordering named. The passive-target lock is
 * a Dekker handshake: a shared locker raises its flag, then reads the exclusive word; an exclusive
 * locker takes the word by CAS, then reads the flags. Both pairs are volatile (sequentially
 * consistent), so at least one side sees the other and never both proceed (jcstress:
 * {@code WindowLockExclusion}). Fence, post and complete are counters with one writer each:
 * release when published, acquire when read, so what was written to the window before is seen after.
 * Methods never block; the window's waits poll them.
 */
public final class WindowArea {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;

    public WindowArea(MemorySegment segment) {
        this.segment = segment;
    }

    // ------------------------------------------------------------ accumulate lock (element atomicity)

    /** CAS (volatile) 0 to {@code rank + 1}: true when {@code rank} now holds the accumulate lock. */
    public boolean tryLockAccumulate(int rank) {
        return LONG.compareAndSet(segment, (long) ACCUMULATE_LOCK_OFFSET, 0L, rank + 1L);
    }

    /** Release store: the accumulate's writes happen before the next holder's reads. */
    public void unlockAccumulate() {
        LONG.setRelease(segment, (long) ACCUMULATE_LOCK_OFFSET, 0L);
    }

    /** Acquire: the rank holding the accumulate lock, or -1. */
    public int accumulateHolder() {
        return (int) ((long) LONG.getAcquire(segment, (long) ACCUMULATE_LOCK_OFFSET) - 1);
    }

    // ------------------------------------------------------------ passive-target lock

    /** CAS (volatile) 0 to {@code rank + 1} on the exclusive word; the caller then waits for {@link #sharedHolder}. */
    public boolean tryLockExclusive(int rank) {
        return LONG.compareAndSet(segment, (long) EXCLUSIVE_LOCK_OFFSET, 0L, rank + 1L);
    }

    /** Release store: the epoch's writes happen before the next locker's. */
    public void unlockExclusive() {
        LONG.setRelease(segment, (long) EXCLUSIVE_LOCK_OFFSET, 0L);
    }

    /** Volatile read: the rank holding (or taking) the exclusive lock, or -1. */
    public int exclusiveHolder() {
        return (int) ((long) LONG.getVolatile(segment, (long) EXCLUSIVE_LOCK_OFFSET) - 1);
    }

    /** Volatile store of {@code rank}'s shared flag; the caller then checks {@link #exclusiveHolder}. */
    public void raiseShared(int rank) {
        LONG.setVolatile(segment, line(rank) + SHARED_IN_LINE, 1L);
    }

    /** Release store: lowers {@code rank}'s shared flag, after the epoch's accesses. */
    public void lowerShared(int rank) {
        LONG.setRelease(segment, line(rank) + SHARED_IN_LINE, 0L);
    }

    /** Volatile reads: the lowest rank of {@code ranks} whose shared flag is raised, or -1. */
    public int sharedHolder(int ranks) {
        for (int r = 0; r < ranks; r++) {
            if ((long) LONG.getVolatile(segment, line(r) + SHARED_IN_LINE) != 0) {
                return r;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------ holders that died

    /**
     * Releases what ranks {@code dead} names hold here (of the first {@code ranks}): the accumulate
     * and exclusive words by CAS from the holder's value, so a word a live rank took since is never
     * cleared, and shared flags by a release store (a dead rank never raises its flag again). Who
     * waits for a lock calls it, after a liveness check: ULFM's rule that a failure fails only the
     * operations involving the failed rank. Slow path: {@code dead} is asked about holders only.
     *
     * @return how many holds were released
     */
    public int releaseDead(int ranks, IntPredicate dead) {
        int released = 0;
        int a = accumulateHolder();
        if (a >= 0 && dead.test(a) && LONG.compareAndSet(segment, (long) ACCUMULATE_LOCK_OFFSET, a + 1L, 0L)) {
            released++;
        }
        int e = exclusiveHolder();
        if (e >= 0 && dead.test(e) && LONG.compareAndSet(segment, (long) EXCLUSIVE_LOCK_OFFSET, e + 1L, 0L)) {
            released++;
        }
        for (int r = 0; r < ranks; r++) {
            if ((long) LONG.getVolatile(segment, line(r) + SHARED_IN_LINE) != 0 && dead.test(r)) {
                lowerShared(r);
                released++;
            }
        }
        return released;
    }

    // ------------------------------------------------------------ fence, post, complete

    /** Acquire: fences the owner has entered. */
    public long fences() {
        return (long) LONG.getAcquire(segment, (long) FENCE_OFFSET);
    }

    /** Release store by the owner: its earlier accesses to every window happen before a reader's later ones. */
    public void publishFences(long count) {
        LONG.setRelease(segment, (long) FENCE_OFFSET, count);
    }

    /** Acquire: exposure epochs rank {@code from} has posted to the owner. */
    public long posts(int from) {
        return (long) LONG.getAcquire(segment, line(from) + POST_IN_LINE);
    }

    /** Release store by rank {@code from}: it has posted {@code count} exposure epochs to the owner. */
    public void publishPosts(int from, long count) {
        LONG.setRelease(segment, line(from) + POST_IN_LINE, count);
    }

    /** Acquire: access epochs rank {@code from} has completed on the owner. */
    public long completes(int from) {
        return (long) LONG.getAcquire(segment, line(from) + COMPLETE_IN_LINE);
    }

    /** Release store by rank {@code from}: its accesses of {@code count} epochs happen before the owner's wait returns. */
    public void publishCompletes(int from, long count) {
        LONG.setRelease(segment, line(from) + COMPLETE_IN_LINE, count);
    }
}

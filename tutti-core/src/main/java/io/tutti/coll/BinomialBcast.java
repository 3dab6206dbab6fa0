package io.tutti.coll;

/**
 * Broadcast down a binomial tree rooted at {@code root}: ⌈log2 P⌉ rounds; a rank receives once
 * from its parent, then forwards to its children, largest subtree first.
 */
public final class BinomialBcast {
    private BinomialBcast() {
    }

    public static Schedule build(int rank, int size, long bytes, int root) {
        ScheduleBuilder b = new ScheduleBuilder("bcast/binomial", rank, size);
        int vr = (rank - root + size) % size;
        int mask = 1;
        int received = -1;
        while (mask < size) {
            if ((vr & mask) != 0) {
                received = b.recv(((vr - mask) + root) % size, 0, Schedule.RECV_BUFFER, 0, bytes);
                break;
            }
            mask <<= 1;
        }
        int[] after = received < 0 ? new int[0] : new int[] {received};
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < size) {
                b.send((vr + mask + root) % size, 0, Schedule.RECV_BUFFER, 0, bytes, after);
            }
        }
        return b.build();
    }
}

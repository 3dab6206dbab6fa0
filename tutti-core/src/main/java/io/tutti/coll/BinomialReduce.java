package io.tutti.coll;

/**
 * Reduction up a binomial tree: in round k a rank whose bit k is set sends its partial result to
 * the rank 2^k below it and leaves; the others receive and fold it in. Ranks are taken in order
 * from the root, so for a non-commutative operation the tree is rooted at rank 0 (which keeps
 * every partial a contiguous range of ranks in order) and rank 0 passes the result on to the root.
 *
 * <p>Buffers: the accumulator is the receive buffer at the root, scratch elsewhere; a second
 * scratch area takes what children send.
 */
public final class BinomialReduce {
    private BinomialReduce() {
    }

    public static Schedule build(int rank, int size, long bytes, int root, boolean inPlace, boolean commutative) {
        ScheduleBuilder b = new ScheduleBuilder("reduce/binomial", rank, size);
        int treeRoot = commutative ? root : 0;
        int vr = (rank - treeRoot + size) % size;
        boolean accInRecv = rank == treeRoot && rank == root;
        byte acc = accInRecv ? Schedule.RECV_BUFFER : Schedule.TEMP_BUFFER;
        long accOff = 0;
        long scratch = accInRecv ? 0 : bytes;
        b.temp(accInRecv ? bytes : 2 * bytes);
        int last = -1;
        if (!(accInRecv && inPlace)) {
            last = b.copy(acc, accOff, rank == root && inPlace ? Schedule.RECV_BUFFER : Schedule.SEND_BUFFER, 0, bytes);
        }
        int mask = 1;
        while (mask < size) {
            if ((vr & mask) != 0) {
                int parent = (vr - mask + treeRoot) % size;
                last = b.send(parent, 0, acc, accOff, bytes, after(last));
                break;
            }
            if (vr + mask < size) {
                int child = (vr + mask + treeRoot) % size;
                int got = b.recv(child, 0, Schedule.TEMP_BUFFER, scratch, bytes, after(last));
                // the child's partial covers higher ranks: it is the right operand
                last = b.reduce(acc, accOff, Schedule.TEMP_BUFFER, scratch, bytes, false, after(last, got));
            }
            mask <<= 1;
        }
        if (treeRoot != root) {
            if (rank == treeRoot) {
                b.send(root, 1, acc, accOff, bytes, after(last));
            } else if (rank == root) {
                b.recv(treeRoot, 1, Schedule.RECV_BUFFER, 0, bytes, after(last));
            }
        }
        return b.build();
    }

    static int[] after(int... steps) {
        int n = 0;
        for (int s : steps) {
            n += s >= 0 ? 1 : 0;
        }
        int[] out = new int[n];
        int k = 0;
        for (int s : steps) {
            if (s >= 0) {
                out[k++] = s;
            }
        }
        return out;
    }
}

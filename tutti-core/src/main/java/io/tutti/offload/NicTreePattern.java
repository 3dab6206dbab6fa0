package io.tutti.offload;

import io.tutti.offload.OffloadCompiler.Refused;
import io.tutti.reduce.OffloadAlu;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The NIC reduction tree of [NIC-reduce] for {@link OffloadCompiler#nicTree}, on a binomial tree of
 * ranks relative to the root. It is built from the collective's kind, size, rank and root rather
 * than from a schedule: the accumulation of Branch inputs in the NIC's register, in whatever order
 * they arrive, and the root's triggered broadcast have no counterpart among a schedule's
 * SEND/RECV/REDUCE steps, which name host buffers and a fixed operand order.
 */
final class NicTreePattern {
    private NicTreePattern() {
    }

    /** Binomial tree on ranks relative to the root: the parent clears the lowest set bit. */
    static int treeParent(int v) {
        return v == 0 ? -1 : v & (v - 1);
    }

    static int[] treeChildren(int v, int size) {
        int low = v == 0 ? Integer.highestOneBit(Math.max(size - 1, 1)) << 1 : Integer.lowestOneBit(v);
        List<Integer> c = new ArrayList<>();
        for (int bit = 1; bit < low && v + bit < size; bit <<= 1) {
            c.add(v + bit);
        }
        return c.stream().mapToInt(Integer::intValue).toArray();
    }

    /** See {@link OffloadCompiler#nicTree}. */
    static OffloadProgram compile(boolean allreduce, int size, int rank, int root, long bytes, OffloadAlu.Op op,
                                  OffloadAlu.Type type) {
        OffloadAlu.check(op, type);
        int item = OffloadAlu.itemBytes(op, type);
        if (bytes <= 0 || bytes % item != 0) {
            throw new Refused("the NIC reduces whole " + item + "-byte " + type + " items; " + bytes
                    + " bytes is not a positive multiple");
        }
        int d = ReductionDescriptor.parts(bytes);
        if ((long) d > 0xFFFF) {
            throw new Refused(bytes + " bytes need " + d + " descriptors; the Part field counts at most 65535");
        }
        int v = (rank - root + size) % size;
        int[] kids = treeChildren(v, size);
        int c = kids.length;
        int depth = 0;
        for (int x = v; x != 0; x = treeParent(x)) {
            depth++;
        }
        int height = 32 - Integer.numberOfLeadingZeros(Math.max(size - 1, 0));
        String name = (allreduce ? "allreduce" : "reduce") + "/nic-tree";
        OffloadProgram.Builder b = new OffloadProgram.Builder(name, "nic-reduction-tree", rank, size)
                .alu(op, type).rounds(allreduce ? 2 * height : height);
        b.buffer(OffloadProgram.RECV_BUFFER, v == 0 || allreduce ? bytes : 0);
        b.buffer(OffloadProgram.ACC_BUFFER, (long) d * ReductionDescriptor.PAYLOAD);
        long up = (long) c * d;
        long fin;
        if (v == 0) {
            b.arrivals(c * d);
            b.nicReduce(up, (int) up, -1, OffloadProgram.SEND_BUFFER, 0, bytes, 0, 0, c, -1);
            // the completion value written to host memory
            b.copy(up, (int) up, OffloadProgram.RECV_BUFFER, 0, OffloadProgram.ACC_BUFFER, 0, bytes);
            if (allreduce) {
                for (int k : kids) {
                    int kc = treeChildren(k, size).length;
                    b.bcast(up, (int) up, abs(k, root, size), OffloadProgram.ACC_BUFFER, 0, bytes,
                            OffloadProgram.RECV_BUFFER, 0, kc * d);
                }
            } else {
                release(b, up, kids, size, root, d);
            }
            fin = up;
        } else {
            int pv = treeParent(v);
            int[] siblings = treeChildren(pv, size);
            int index = Arrays.binarySearch(siblings, v);
            b.arrivals(c * d + (allreduce ? d : 1));
            b.nicReduce(up, (int) up, abs(pv, root, size), OffloadProgram.SEND_BUFFER, 0, bytes, 0, 0,
                    siblings.length, index * d);
            if (!allreduce) {
                release(b, up, kids, size, root, d);
                fin = up + 1;
            } else {
                fin = up + d;
                for (int k : kids) {
                    int kc = treeChildren(k, size).length;
                    b.bcast(fin, (int) fin, abs(k, root, size), OffloadProgram.RECV_BUFFER, 0, bytes,
                            OffloadProgram.RECV_BUFFER, 0, kc * d);
                }
            }
        }
        b.complete(fin, (int) fin);
        if (fin != 0) {
            b.counterAdd(fin, (int) fin, -fin).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    // a reduce sends no result down, so without this a leaf could start run k+2 while its parent still
    // accumulates run k: the release (a counter add of 1) says the parent's accumulator is free again
    private static void release(OffloadProgram.Builder b, long th, int[] kids, int size, int root, int d) {
        for (int k : kids) {
            int kc = treeChildren(k, size).length;
            b.remoteAdd(th, (int) th, abs(k, root, size), 1, kc * d);
        }
    }

    private static int abs(int v, int root, int size) {
        return (v + root) % size;
    }
}

package io.tutti.p2p;

import java.util.Arrays;

/**
 * Maps 64-bit handles carried in RTS/CTS/FIN packets to operations. A handle is the slot index in
 * its low half and the slot's generation in its high half, so a stale or forged handle finds nothing.
 */
final class RequestTable {
    private Operation[] slots = new Operation[64];
    private int[] generations = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int used;

    long register(Operation op) {
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (used == slots.length) {
                slots = Arrays.copyOf(slots, used * 2);
                generations = Arrays.copyOf(generations, used * 2);
                free = Arrays.copyOf(free, used * 2);
            }
            index = used++;
        }
        slots[index] = op;
        int generation = ++generations[index];
        if (generation == 0) {
            generation = ++generations[index];
        }
        return ((long) generation << 32) | index;
    }

    Operation lookup(long handle) {
        int index = (int) handle;
        int generation = (int) (handle >>> 32);
        if (index < 0 || index >= used || generations[index] != generation) {
            return null;
        }
        return slots[index];
    }

    void release(long handle) {
        int index = (int) handle;
        if (lookup(handle) != null) {
            slots[index] = null;
            generations[index]++;
            free[freeCount++] = index;
        }
    }
}

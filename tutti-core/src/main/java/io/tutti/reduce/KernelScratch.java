package io.tutti.reduce;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One thread's staging arrays, created on first use of each primitive type: a process that only
 * reduces doubles holds 16 KiB of doubles, not scratch for every type.
 */
final class KernelScratch {
    byte[] bytes0;
    byte[] bytes1;
    short[] shorts0;
    short[] shorts1;
    char[] chars0;
    char[] chars1;
    int[] ints0;
    int[] ints1;
    long[] longs0;
    long[] longs1;
    MemorySegment longsView0;
    MemorySegment longsView1;
    float[] floats0;
    float[] floats1;
    double[] doubles0;
    double[] doubles1;
    /** Native, two operands of {@link Reduction#DIRECT_ELEMENTS} elements of up to 8 bytes; held to stay allocated. */
    MemorySegment staging;
    long stagingAddress;

    long staging() {
        if (staging == null) {
            staging = Arena.ofAuto().allocate(2L * Reduction.DIRECT_ELEMENTS * Long.BYTES, Long.BYTES);
            stagingAddress = staging.address();
        }
        return stagingAddress;
    }

    byte[] bytes0() {
        if (bytes0 == null) {
            bytes1 = new byte[Reduction.CHUNK_BYTES];
            bytes0 = new byte[Reduction.CHUNK_BYTES];
        }
        return bytes0;
    }

    short[] shorts0() {
        if (shorts0 == null) {
            shorts1 = new short[Reduction.CHUNK_BYTES / Short.BYTES];
            shorts0 = new short[Reduction.CHUNK_BYTES / Short.BYTES];
        }
        return shorts0;
    }

    char[] chars0() {
        if (chars0 == null) {
            chars1 = new char[Reduction.CHUNK_BYTES / Character.BYTES];
            chars0 = new char[Reduction.CHUNK_BYTES / Character.BYTES];
        }
        return chars0;
    }

    int[] ints0() {
        if (ints0 == null) {
            ints1 = new int[Reduction.CHUNK_BYTES / Integer.BYTES];
            ints0 = new int[Reduction.CHUNK_BYTES / Integer.BYTES];
        }
        return ints0;
    }

    long[] longs0() {
        if (longs0 == null) {
            longs1 = new long[Reduction.CHUNK_BYTES / Long.BYTES];
            longs0 = new long[Reduction.CHUNK_BYTES / Long.BYTES];
            longsView1 = MemorySegment.ofArray(longs1);
            longsView0 = MemorySegment.ofArray(longs0);
        }
        return longs0;
    }

    float[] floats0() {
        if (floats0 == null) {
            floats1 = new float[Reduction.CHUNK_BYTES / Float.BYTES];
            floats0 = new float[Reduction.CHUNK_BYTES / Float.BYTES];
        }
        return floats0;
    }

    double[] doubles0() {
        if (doubles0 == null) {
            doubles1 = new double[Reduction.CHUNK_BYTES / Double.BYTES];
            doubles0 = new double[Reduction.CHUNK_BYTES / Double.BYTES];
        }
        return doubles0;
    }
}

package io.tutti.coll.schedule;

import java.util.Arrays;

/**
 * One rank's part of a collective, compiled to a small DAG of steps of seven kinds: SEND and RECV of
 * a buffer region to or from a peer, REDUCE of one region into another, COPY between regions, INC
 * (an exchange with the in-network aggregation switches), and SLOTS and SLOTS_REDUCE (an allgather or
 * allreduce through the shared-memory slots of a communicator on one node). A step may start when
 * every step it depends on has completed.
 *
 * <p>Plain data, built once per (operation, communicator size, rank, count, datatype, root,
 * algorithm) and cached: no reference to transports, threads or user buffers, so that the host
 * executor, the offload compiler and the simulator can all run the same object. Regions name one
 * of three buffers ({@link #SEND_BUFFER}, {@link #RECV_BUFFER}, {@link #TEMP_BUFFER}) with a byte
 * offset and length.
 *
 * <p>A SEND and the RECV that matches it carry the same {@code tag} (below {@link #MAX_TAG}); the
 * executor makes the wire tag unique per collective call, so matching never depends on the order
 * in which independent steps happen to be posted.
 */
public final class Schedule implements ScheduleSteps {
    public static final byte SEND = 1;
    public static final byte RECV = 2;
    /** dst = src ∘ dst (src is the left operand), or dst = dst ∘ src; see {@link #srcIsLeft}. */
    public static final byte REDUCE = 3;
    public static final byte COPY = 4;
    /**
     * Exchange of a region with the in-network aggregation switches: the region is this leader's
     * contribution and is replaced by the result of the whole group (see {@code InNetworkGroup}).
     */
    public static final byte INC = 5;
    /**
     * Allgather through shared memory among all ranks of the communicator (every one on this
     * node): this rank's contribution is {@code length} bytes at (srcBuffer, srcOffset); when the
     * step completes, (buffer, offset) holds every rank's contribution in rank order, {@code length}
     * bytes each. At most {@link #SLOT_BYTES} bytes; a
     * length of 0 is a barrier. See {@code NodeSlots}.
     */
    public static final byte SLOTS = 6;
    /**
     * Allreduce through shared memory among all ranks of the communicator (every one on this node),
     * with the call's operation: this rank's contribution is {@code length} bytes at (srcBuffer,
     * srcOffset); when the step completes, (buffer, offset) holds t0 ∘ (t1 ∘ (… ∘ t(P−1))) of the
     * ranks' contributions t_r, the same bits on every rank. (buffer, offset) may be the
     * contribution. At most {@link #SLOT_BYTES} bytes.
     * Shares the generations of SLOTS steps: one exchange each. See {@code NodeSlots}.
     */
    public static final byte SLOTS_REDUCE = 7;

    public static final byte SEND_BUFFER = 0;
    public static final byte RECV_BUFFER = 1;
    public static final byte TEMP_BUFFER = 2;

    /** Step tags are below this, so that the executor can add a per-call sequence above them. */
    public static final int MAX_TAG = 1 << 11;

    /**
     * The most bytes one SLOTS or SLOTS_REDUCE step carries per rank: a 4 KiB slot less its 16-byte
     * header (the slot area's layout is sized by it: {@code io.tutti.coll.slots.SlotAreaDescriptor}).
     */
    public static final int SLOT_BYTES = 4096 - 16;

    final String name;
    final int rank;
    final int size;
    final int steps;
    final byte[] kind;
    final int[] peer;
    final int[] tag;
    final byte[] buffer;
    final long[] offset;
    final long[] length;
    final byte[] srcBuffer;
    final long[] srcOffset;
    final boolean[] srcIsLeft;
    final int[] depStart;
    final int[] deps;
    final int[] succStart;
    final int[] succ;
    final long tempBytes;

    Schedule(String name, int rank, int size, int steps, byte[] kind, int[] peer, int[] tag, byte[] buffer,
             long[] offset, long[] length, byte[] srcBuffer, long[] srcOffset, boolean[] srcIsLeft, int[] depStart,
             int[] deps, long tempBytes) {
        this.name = name;
        this.rank = rank;
        this.size = size;
        this.steps = steps;
        this.kind = kind;
        this.peer = peer;
        this.tag = tag;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.srcBuffer = srcBuffer;
        this.srcOffset = srcOffset;
        this.srcIsLeft = srcIsLeft;
        this.depStart = depStart;
        this.deps = deps;
        this.tempBytes = tempBytes;
        // successors: the executor walks them when a step completes
        int[] count = new int[steps + 1];
        for (int d : deps) {
            count[d + 1]++;
        }
        for (int i = 0; i < steps; i++) {
            count[i + 1] += count[i];
        }
        this.succStart = count;
        int[] fill = Arrays.copyOf(count, steps);
        this.succ = new int[deps.length];
        for (int i = 0; i < steps; i++) {
            for (int k = depStart[i]; k < depStart[i + 1]; k++) {
                succ[fill[deps[k]]++] = i;
            }
        }
    }

    /** How many steps {@code step} waits for. */
    public int dependencyCount(int step) {
        return depStart[step + 1] - depStart[step];
    }

    @Override
    public int dependenciesFrom(int step) {
        return depStart[step];
    }

    @Override
    public int dependency(int k) {
        return deps[k];
    }

    /**
     * Where the successors of {@code step} start among {@link #successor}'s indices; those of step
     * {@code i} run from {@code successorsFrom(i)} to {@code successorsFrom(i + 1)}.
     */
    public int successorsFrom(int step) {
        return succStart[step];
    }

    /** The {@code k}-th entry of the successor lists (see {@link #successorsFrom}). */
    public int successor(int k) {
        return succ[k];
    }

    /** Which algorithm built it, for reports. */
    @Override
    public String name() {
        return name;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    /** Number of steps. */
    @Override
    public int steps() {
        return steps;
    }

    @Override
    public byte kind(int step) {
        return kind[step];
    }

    /** SEND/RECV: the peer's rank in the communicator. */
    @Override
    public int peer(int step) {
        return peer[step];
    }

    /** SEND/RECV: the tag that pairs a send with its receive. */
    @Override
    public int tag(int step) {
        return tag[step];
    }

    /** The buffer sent from, received into, or reduced/copied into. */
    public byte buffer(int step) {
        return buffer[step];
    }

    public long offset(int step) {
        return offset[step];
    }

    /** Bytes. */
    @Override
    public long length(int step) {
        return length[step];
    }

    /** REDUCE/COPY: the buffer read. */
    public byte srcBuffer(int step) {
        return srcBuffer[step];
    }

    public long srcOffset(int step) {
        return srcOffset[step];
    }

    /** REDUCE: whether the source is the left operand (dst = src ∘ dst) or the right one. */
    public boolean srcIsLeft(int step) {
        return srcIsLeft[step];
    }

    /** The steps {@code step} waits for. */
    public int[] dependencies(int step) {
        return Arrays.copyOfRange(deps, depStart[step], depStart[step + 1]);
    }

    /** Bytes of scratch memory the schedule needs. */
    public long tempBytes() {
        return tempBytes;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(name + " rank " + rank + "/" + size + ", temp " + tempBytes + " B\n");
        for (int i = 0; i < steps; i++) {
            sb.append(String.format("  %3d %-6s", i, switch (kind[i]) {
                case SEND -> "SEND";
                case RECV -> "RECV";
                case REDUCE -> "REDUCE";
                case INC -> "INC";
                case SLOTS -> "SLOTS";
                case SLOTS_REDUCE -> "SLOTS_REDUCE";
                default -> "COPY";
            }));
            if (kind[i] == INC) {
                sb.append(" switch");
            } else if (kind[i] == SLOTS || kind[i] == SLOTS_REDUCE) {
                sb.append(" shared memory from ").append(srcBuffer[i]).append('@').append(srcOffset[i]);
            } else if (kind[i] == SEND || kind[i] == RECV) {
                sb.append(" peer ").append(peer[i]).append(" tag ").append(tag[i]);
            } else {
                sb.append(" from ").append(srcBuffer[i]).append('@').append(srcOffset[i]);
            }
            sb.append(' ').append(buffer[i]).append('@').append(offset[i]).append(" len ").append(length[i]);
            sb.append(" after ").append(Arrays.toString(dependencies(i))).append('\n');
        }
        return sb.toString();
    }
}

package io.tutti.coll;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.lang.foreign.MemorySegment;

/**
 * One collective call's arguments in bytes: the operation, the buffers, the datatype and reduction,
 * the root and the per-rank block layout. A communicator fills its instance ({@link
 * Collectives#call}) for every call and hands it to {@link Collectives#run}, which reads it before
 * anything else runs: one object per communicator, so a loop of calls allocates nothing.
 * Fields left unset are zero, null or false.
 */
public final class Invocation {
    Kind kind;
    MemorySegment send;
    MemorySegment recv;
    Datatype type;
    ReduceOp op;
    UserOp userOp;
    long bytes;
    int root;
    boolean inPlace;
    long[] blocks;
    long[] displs;
    long[] sendBlocks;
    long[] sendDispls;
    boolean irregular;

    Invocation() {
    }

    /** Starts a call: everything else back to unset. */
    Invocation reset(Kind kind, MemorySegment send, MemorySegment recv, Datatype type) {
        this.kind = kind;
        this.send = send;
        this.recv = recv;
        this.type = type;
        this.op = null;
        this.userOp = null;
        this.bytes = 0;
        this.root = 0;
        this.inPlace = false;
        this.blocks = null;
        this.displs = null;
        this.sendBlocks = null;
        this.sendDispls = null;
        this.irregular = false;
        return this;
    }

    /** The reduction: a predefined operation, or a user's (the other null). */
    public Invocation reduction(ReduceOp op, UserOp userOp) {
        this.op = op;
        this.userOp = userOp;
        return this;
    }

    /** The message length in bytes (per rank) of a call with one block size. */
    public Invocation bytes(long bytes) {
        this.bytes = bytes;
        return this;
    }

    public Invocation root(int root) {
        this.root = root;
        return this;
    }

    /** The send buffer is the receive buffer ({@code Communicator.IN_PLACE}). */
    public Invocation inPlace(boolean inPlace) {
        this.inPlace = inPlace;
        return this;
    }

    /**
     * Per-rank block sizes and offsets in bytes: the receive side (gather, allgather, alltoall,
     * reduceScatter) or the send side (scatter). Kept only until the call has found its schedule.
     */
    public Invocation blocks(long[] blocks, long[] displs) {
        this.blocks = blocks;
        this.displs = displs;
        return this;
    }

    /** Alltoall's send side, as {@link #blocks}. */
    public Invocation sendBlocks(long[] sendBlocks, long[] sendDispls) {
        this.sendBlocks = sendBlocks;
        this.sendDispls = sendDispls;
        return this;
    }

    /** A call whose layout not every rank knows (gatherv, scatterv, alltoallv), so no algorithm may depend on it. */
    public Invocation irregular(boolean irregular) {
        this.irregular = irregular;
        return this;
    }
}

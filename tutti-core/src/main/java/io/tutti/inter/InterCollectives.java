package io.tutti.inter;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.TuttiException;
import io.tutti.UserOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The collectives of an intercommunicator, with MPI's meaning, built as MPI libraries build them: a
 * collective of the group's own communicator ({@code local}, a communicator of the local group with
 * a context of its own) and messages between the groups over the {@link Bridge}, mostly between the
 * two leaders (local rank 0 of each group). Rooted calls: the root passes
 * {@link Intercommunicator#ROOT}, the rest of its group {@link Intercommunicator#PROC_NULL} (they
 * return at once), the other group the root's rank. Reductions and gathers go through a scratch
 * segment at the leader, kept and grown as needed; buffers are arrays of the datatype's element
 * type or segments, as for {@link Communicator}'s collectives, and IN_PLACE is refused (MPI has
 * none on intercommunicators).
 */
public final class InterCollectives {
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final Communicator local;
    private final Bridge bridge;
    private final int remoteSize;
    private MemorySegment scratch = EMPTY;

    public InterCollectives(Communicator local, Bridge bridge, int remoteSize) {
        this.local = local;
        this.bridge = bridge;
        this.remoteSize = remoteSize;
    }

    private boolean leader() {
        return local.rank() == 0;
    }

    /** Returns once every rank of both groups has entered: each group's barrier, the leaders' exchange, again. */
    public void barrier() {
        local.barrier();
        if (leader()) {
            exchange(EMPTY, EMPTY);
        }
        local.barrier();
    }

    /** The root sends to the remote leader, which broadcasts in its group. */
    public void bcast(Object buf, int count, Datatype type, int root) {
        switch (role(root)) {
            case ROOT -> bridge.send(view(buf, count, type, "buffer"), 0);
            case IDLE -> { }
            default -> {
                MemorySegment b = view(buf, count, type, "buffer");
                if (leader()) {
                    bridge.recv(b, root);
                }
                local.bcast(b, (int) b.byteSize(), Datatype.BYTE, 0);
            }
        }
    }

    /** The remote group gathers at its leader, which sends the whole to the root. */
    public void gather(Object send, Object recv, int count, Datatype type, int root) {
        switch (role(root)) {
            case ROOT -> bridge.recv(view(recv, (long) count * remoteSize, type, "receive buffer"), 0);
            case IDLE -> { }
            default -> {
                MemorySegment mine = view(send, count, type, "send buffer");
                MemorySegment all = leader() ? scratch(mine.byteSize() * local.size()) : EMPTY;
                local.gather(mine, all, (int) mine.byteSize(), Datatype.BYTE, 0);
                if (leader()) {
                    bridge.send(all, root);
                }
            }
        }
    }

    /** The root sends every block to the remote leader, which scatters them in its group. */
    public void scatter(Object send, Object recv, int count, Datatype type, int root) {
        switch (role(root)) {
            case ROOT -> bridge.send(view(send, (long) count * remoteSize, type, "send buffer"), 0);
            case IDLE -> { }
            default -> {
                MemorySegment mine = view(recv, count, type, "receive buffer");
                MemorySegment all = leader() ? scratch(mine.byteSize() * local.size()) : EMPTY;
                if (leader()) {
                    bridge.recv(all, root);
                }
                local.scatter(all, mine, (int) mine.byteSize(), Datatype.BYTE, 0);
            }
        }
    }

    /** Each group gathers at its leader; the leaders swap; each leader broadcasts the other group's blocks. */
    public void allgather(Object send, Object recv, int count, Datatype type) {
        MemorySegment mine = view(send, count, type, "send buffer");
        MemorySegment theirs = view(recv, (long) count * remoteSize, type, "receive buffer");
        MemorySegment all = leader() ? scratch(mine.byteSize() * local.size()) : EMPTY;
        local.gather(mine, all, (int) mine.byteSize(), Datatype.BYTE, 0);
        if (leader()) {
            exchange(all, theirs);
        }
        local.bcast(theirs, (int) theirs.byteSize(), Datatype.BYTE, 0);
    }

    /** Block q of {@code send} to remote rank q, block q of {@code recv} from it: every pair at once. */
    public void alltoall(Object send, Object recv, int count, Datatype type) {
        MemorySegment s = view(send, (long) count * remoteSize, type, "send buffer");
        MemorySegment r = view(recv, (long) count * remoteSize, type, "receive buffer");
        long block = (long) count * type.extent();
        Request[] requests = new Request[2 * remoteSize];
        for (int q = 0; q < remoteSize; q++) {
            requests[q] = bridge.irecv(r.asSlice(q * block, block), q);
        }
        for (int q = 0; q < remoteSize; q++) {
            requests[remoteSize + q] = bridge.isend(s.asSlice(q * block, block), q);
        }
        Request.waitAll(requests);
    }

    /** The remote group reduces at its leader (in rank order), which sends the result to the root. */
    public void reduce(Object send, Object recv, int count, Datatype type, ReduceOp op, UserOp userOp, int root) {
        switch (role(root)) {
            case ROOT -> bridge.recv(view(recv, count, type, "receive buffer"), 0);
            case IDLE -> { }
            default -> {
                MemorySegment sum = reduceLocally(send, count, type, op, userOp);
                if (leader()) {
                    bridge.send(sum, root);
                }
            }
        }
    }

    /** Each group reduces at its leader; the leaders swap; each leader broadcasts the other group's result. */
    public void allreduce(Object send, Object recv, int count, Datatype type, ReduceOp op, UserOp userOp) {
        MemorySegment theirs = view(recv, count, type, "receive buffer");
        MemorySegment sum = reduceLocally(send, count, type, op, userOp);
        if (leader()) {
            exchange(sum, theirs);
        }
        local.bcast(theirs, (int) theirs.byteSize(), Datatype.BYTE, 0);
    }

    /** The local group's reduction of {@code send}, in the scratch segment at the leader (empty elsewhere). */
    private MemorySegment reduceLocally(Object send, int count, Datatype type, ReduceOp op, UserOp userOp) {
        MemorySegment mine = view(send, count, type, "send buffer");
        MemorySegment sum = leader() ? scratch(mine.byteSize()) : EMPTY;
        if (userOp != null) {
            local.reduce(mine, sum, count, type, userOp, 0);
        } else {
            local.reduce(mine, sum, count, type, op, 0);
        }
        return sum;
    }

    /** The leaders' swap: {@code out} to the remote leader, its message into {@code in}. */
    private void exchange(MemorySegment out, MemorySegment in) {
        Request sent = bridge.isend(out, 0);
        bridge.recv(in, 0);
        sent.waitFor();
    }

    private enum Role { ROOT, IDLE, REMOTE }

    /** What {@code root} makes this rank in a rooted call. */
    private Role role(int root) {
        if (root == Intercommunicator.ROOT) {
            return Role.ROOT;
        }
        if (root == Intercommunicator.PROC_NULL) {
            return Role.IDLE;
        }
        if (root < 0 || root >= remoteSize) {
            throw new TuttiException.InvalidArgument("invalid root " + root + " on an intercommunicator: the root"
                    + " passes Intercommunicator.ROOT, the other ranks of its group Intercommunicator.PROC_NULL, and"
                    + " the other group the root's rank there (0.." + (remoteSize - 1) + ")");
        }
        return Role.REMOTE;
    }

    /** The scratch segment's first {@code bytes} bytes, grown (doubled at least) when too small. */
    private MemorySegment scratch(long bytes) {
        if (scratch.byteSize() < bytes) {
            scratch = Arena.ofAuto().allocate(Math.max(bytes, 2 * scratch.byteSize()), 16);
        }
        return scratch.asSlice(0, bytes);
    }

    /** The first {@code count} items of {@code buf} as bytes, checked. */
    static MemorySegment view(Object buf, long count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        long bytes = count * type.extent();
        Datatype base = type.base();
        MemorySegment s = switch (buf) {
            case null -> bytes == 0 ? EMPTY : null;
            case MemorySegment m -> m;
            case byte[] a when base == Datatype.BYTE -> MemorySegment.ofArray(a);
            case short[] a when base == Datatype.SHORT -> MemorySegment.ofArray(a);
            case char[] a when base == Datatype.CHAR -> MemorySegment.ofArray(a);
            case int[] a when base == Datatype.INT -> MemorySegment.ofArray(a);
            case long[] a when base == Datatype.LONG -> MemorySegment.ofArray(a);
            case float[] a when base == Datatype.FLOAT -> MemorySegment.ofArray(a);
            case double[] a when base == Datatype.DOUBLE -> MemorySegment.ofArray(a);
            default -> {
                if (buf == Communicator.IN_PLACE) {
                    throw new TuttiException.Unsupported("IN_PLACE on an intercommunicator: MPI has no in-place"
                            + " form of its collectives there; give separate send and receive buffers");
                }
                throw new TuttiException.InvalidArgument("the " + what + " must be an array of " + base
                        + " elements or a MemorySegment, not " + buf.getClass().getSimpleName());
            }
        };
        if (s == null) {
            throw new TuttiException.InvalidArgument("the " + what + " is null");
        }
        if (s.byteSize() < bytes) {
            throw new TuttiException.InvalidArgument("the " + what + " holds " + s.byteSize() + " bytes; the call"
                    + " needs " + bytes + " (" + count + " " + type + ")");
        }
        return s.asSlice(0, bytes);
    }
}

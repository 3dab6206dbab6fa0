package io.tutti.runtime;

import static io.tutti.runtime.CollectiveArguments.bytes;
import static io.tutti.runtime.CollectiveArguments.extentOf;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.UserOp;
import io.tutti.Window;
import io.tutti.coll.Collectives;
import io.tutti.coll.Invocation;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.inter.Handshake;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;

/**
 * An intercommunicator of one rank, on four contexts agreed by both groups: the program's messages
 * on the first, its collectives on the second (the {@link Collectives} of both groups, running
 * {@code io.tutti.coll.algo.InterSchedules}), and a communicator of the local group on the third
 * (its collectives on the fourth), with which dup and merge agree. Point-to-point calls go to the
 * engine as a communicator's do, with the remote group's world ranks.
 */
final class RankIntercommunicator extends Intercommunicator {
    private final Rank tutti;
    private final Engine engine;
    private final int context;
    private final int[] localGroup;
    private final int[] remoteGroup;
    private final int[] worldToRemote;
    /** The local group with a message space of its own. */
    private final RankCommunicator local;
    private final Collectives collectives;
    /** Counts and displacements of the collectives name remote ranks... */
    private final CollectiveArguments args;
    /** ...but reduceScatter's, this group's. */
    private final CollectiveArguments localArgs;

    RankIntercommunicator(Rank tutti, Engine engine, int context, int[] localGroup, int[] remoteGroup) {
        super(context, localGroup, remoteGroup, engine.rank(), engine.size());
        this.tutti = tutti;
        this.engine = engine;
        this.context = context;
        this.localGroup = localGroup;
        this.remoteGroup = remoteGroup;
        this.worldToRemote = worldToComm();
        this.local = new RankCommunicator(tutti, engine, context + 2, localGroup);
        this.collectives = Collectives.inter(engine, context + 1, localGroup, remoteGroup, local.rank());
        this.args = new CollectiveArguments(remoteGroup.length, local.rank(), "the remote group has");
        this.localArgs = new CollectiveArguments(localGroup.length, local.rank(), "the local group has");
    }

    // ------------------------------------------------------------ point to point

    @Override
    protected void sendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset, long length) {
        engine.send(context, worldDest, tag, array, segment, offset, length);
    }

    @Override
    protected void recvBuffer(int worldSource, int tag, Object array, MemorySegment segment, long offset, long length,
                              int[] worldToComm, Status status) {
        engine.recv(context, worldSource, tag, array, segment, offset, length, worldToComm, status);
    }

    @Override
    protected Request isendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                  long length) {
        return engine.isend(context, worldDest, tag, array, segment, offset, length);
    }

    @Override
    protected Request issendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                   long length) {
        return engine.issend(context, worldDest, tag, array, segment, offset, length);
    }

    @Override
    protected Request ssendInitBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                      long length) {
        return engine.ssendInit(context, worldDest, tag, array, segment, offset, length);
    }

    @Override
    protected Request irecvBuffer(int worldSource, int tag, Object array, MemorySegment segment, long offset,
                                  long length, int[] worldToComm) {
        return engine.irecv(context, worldSource, tag, array, segment, offset, length, worldToComm);
    }

    @Override
    protected Request sendInitBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                     long length) {
        return engine.sendInit(context, worldDest, tag, array, segment, offset, length);
    }

    @Override
    protected Request recvInitBuffer(int worldSource, int tag, Object array, MemorySegment segment, long offset,
                                     long length, int[] worldToComm) {
        return engine.recvInit(context, worldSource, tag, array, segment, offset, length, worldToComm);
    }

    @Override
    protected void probeBuffer(int worldSource, int tag, Status status, int[] worldToComm) {
        engine.probe(context, worldSource, tag, status, worldToComm);
    }

    @Override
    protected boolean iprobeBuffer(int worldSource, int tag, Status status, int[] worldToComm) {
        return engine.iprobe(context, worldSource, tag, status, worldToComm);
    }

    // ------------------------------------------------------------ new communicators

    /**
     * Both groups' largest next context, and a pair of values of each group ({@code mine[1..2]},
     * combined by maximum over the group): {context, this group's pair, the other group's pair},
     * from the group's allreduce and the intercommunicator's (which gives the other group's).
     */
    private long[] agree(long[] mine) {
        long[] group = mine.clone();
        local.allreduce(group, ReduceOp.MAX);
        long[] theirs = new long[3];
        allreduce(mine, theirs, ReduceOp.MAX);
        return new long[] {Math.max(group[0], theirs[0]), group[1], group[2], theirs[1], theirs[2]};
    }

    @Override
    public Intercommunicator dup() {
        long[] agreed = agree(new long[] {tutti.nextContext(), 0, 0});
        tutti.contextUsed((int) agreed[0] + 2);
        return new RankIntercommunicator(tutti, engine, (int) agreed[0], localGroup, remoteGroup);
    }

    @Override
    public Communicator merge(boolean high) {
        long[] agreed = agree(new long[] {tutti.nextContext(), high ? 1 : 0, high ? 0 : 1});
        long mine = Handshake.highCode(agreed[1], agreed[2]);
        long theirs = Handshake.highCode(agreed[3], agreed[4]);
        String why = Handshake.mergeDisagrees(mine, theirs);
        if (why != null) {
            throw new TuttiException.InvalidArgument(why);
        }
        boolean first = Handshake.localFirst(mine, theirs, localGroup[0], remoteGroup[0]);
        tutti.contextUsed((int) agreed[0]);
        return new RankCommunicator(tutti, engine, (int) agreed[0], Handshake.merged(localGroup, remoteGroup, first));
    }

    @Override
    public Communicator split(int color, int key) {
        throw unsupported("split", "merge it, then split the intracommunicator");
    }

    @Override
    public Communicator createGroup(int[] ranks, int tag) {
        throw unsupported("createGroup", "merge it, then create the group on the intracommunicator");
    }

    @Override
    public Intercommunicator createIntercomm(int localLeader, Communicator peer, int remoteLeader, int tag) {
        throw unsupported("createIntercomm", "its local group is an intracommunicator of the ranks; make it with"
                + " split on the communicator the intercommunicator was made from");
    }

    @Override
    public Intercommunicator spawn(java.util.List<Program> programs, int root) {
        throw unsupported("spawn", "spawn from an intracommunicator (merge this one first)");
    }

    @Override
    public Intercommunicator accept(String port, int root) {
        throw unsupported("accept", "accept on an intracommunicator (merge this one first)");
    }

    @Override
    public Intercommunicator connect(String port, int root) {
        throw unsupported("connect", "connect from an intracommunicator (merge this one first)");
    }

    private static TuttiException unsupported(String call, String instead) {
        return new TuttiException.Unsupported(call + " is not supported on an intercommunicator: " + instead);
    }

    // ------------------------------------------------------------ collectives

    @Override
    public void setAlgorithm(String operation, String algorithm) {
        collectives.setAlgorithm(operation, algorithm);
    }

    /**
     * A call refused on this rank before it ran (its arguments): it keeps its place in the sequence
     * and the other ranks of both groups are told not to wait for this one in it.
     */
    private TuttiException refused(Call how, int issued, TuttiException e) {
        if (how != Call.PERSISTENT && collectives.issued() == issued) {
            collectives.failed(issued, null);
        }
        return e;
    }

    private Request run(Call how, Invocation call) {
        return collectives.run(switch (how) {
            case BLOCKING -> Collectives.Mode.BLOCKING;
            case NONBLOCKING -> Collectives.Mode.NONBLOCKING;
            case PERSISTENT -> Collectives.Mode.PERSISTENT;
        }, call);
    }

    /** Fails a buffer that is IN_PLACE: MPI has no in-place form of the collectives on an intercommunicator. */
    private static void notInPlace(Object buf) {
        if (buf == IN_PLACE) {
            throw new TuttiException.Unsupported("IN_PLACE on an intercommunicator: MPI has no in-place form of its"
                    + " collectives there; give separate send and receive buffers");
        }
    }

    /** Checks a rooted call's root: {@link #ROOT}, {@link #PROC_NULL} or a remote rank. */
    private int root(int root) {
        if (root != ROOT && root != PROC_NULL && (root < 0 || root >= remoteGroup.length)) {
            throw new TuttiException.InvalidArgument("invalid root " + root + " on an intercommunicator: the root"
                    + " passes Intercommunicator.ROOT, the other ranks of its group Intercommunicator.PROC_NULL, and"
                    + " the other group the root's rank there (0.." + (remoteGroup.length - 1) + ")");
        }
        return root;
    }

    /** A rank of the root's group other than the root: it takes no part, and its arguments are not read. */
    private Invocation idle(Kind kind, int root) {
        return collectives.call(kind, MemorySegment.NULL, MemorySegment.NULL, Datatype.BYTE).root(root);
    }

    private MemorySegment view(Object buf, long count, Datatype type, String what) {
        notInPlace(buf);
        if (buf == null && count == 0) {
            return MemorySegment.NULL;
        }
        return args.view(buf, count, type, what);
    }

    @Override
    protected Request runBarrier(Call how) {
        return run(how, collectives.call(Kind.BARRIER, MemorySegment.NULL, MemorySegment.NULL, Datatype.BYTE));
    }

    @Override
    protected Request runBcast(Call how, Object buf, int count, Datatype type, int root) {
        int issued = collectives.issued();
        try {
            if (root(root) == PROC_NULL) {
                return run(how, idle(Kind.BCAST, root));
            }
            MemorySegment b = view(buf, count, type, "buffer");
            return run(how, collectives.call(Kind.BCAST, b, b, type).bytes(bytes(count, type)).root(root));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runReduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                UserOp userOp, int root) {
        int issued = collectives.issued();
        try {
            if (root(root) == PROC_NULL) {
                return run(how, idle(Kind.REDUCE, root));
            }
            CollectiveArguments.checkOp(op, userOp, type);
            MemorySegment snd = root == ROOT ? MemorySegment.NULL : view(send, count, type, "send buffer");
            MemorySegment r = root == ROOT ? view(recv, count, type, "receive buffer") : MemorySegment.NULL;
            return run(how, collectives.call(Kind.REDUCE, snd, r, type).reduction(op, userOp)
                    .bytes(bytes(count, type)).root(root));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected void runReduceLocal(Object in, Object inout, int count, Datatype type, ReduceOp op, UserOp userOp) {
        args.reduceLocal(in, inout, count, type, op, userOp);
    }

    @Override
    protected Request runAllreduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                   UserOp userOp) {
        int issued = collectives.issued();
        try {
            CollectiveArguments.checkOp(op, userOp, type);
            MemorySegment snd = view(send, count, type, "send buffer");
            MemorySegment r = view(recv, count, type, "receive buffer");
            return run(how, collectives.call(Kind.ALLREDUCE, snd, r, type).reduction(op, userOp)
                    .bytes(bytes(count, type)));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runScan(Call how, boolean exclusive, Object send, Object recv, int count, Datatype type,
                              ReduceOp op, UserOp userOp) {
        throw unsupported(exclusive ? "exscan" : "scan", "MPI defines prefix reductions on intracommunicators only");
    }

    /**
     * {@code counts} (or {@code count} each) are this group's blocks; every rank's send buffer holds
     * their sum, which must be the same in both groups; this group gets the other's reduction.
     */
    @Override
    protected Request runReduceScatter(Call how, Object send, Object recv, int[] counts, int count, Datatype type,
                                       ReduceOp op, UserOp userOp) {
        int issued = collectives.issued();
        try {
            CollectiveArguments.checkOp(op, userOp, type);
            notInPlace(send);
            long[] blocks = localArgs.blocks(counts, count, type, "counts");
            long total = CollectiveArguments.prefix(blocks, localArgs.prefixDispls());
            MemorySegment snd = args.viewBytes(send, total, type, "send buffer");
            MemorySegment r = view(recv, blocks[local.rank()] / type.extent(), type, "receive buffer");
            return run(how, collectives.call(Kind.REDUCE_SCATTER, snd, r, type).reduction(op, userOp).bytes(total)
                    .blocks(blocks, null));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    /** {@code vector}: scatterv, the root's {@code counts} and {@code displs} naming remote ranks. */
    @Override
    protected Request runScatter(Call how, Object send, int[] counts, int[] displs, Object recv, int recvCount,
                                 Datatype type, int root, boolean vector) {
        return runRooted(how, Kind.SCATTER, send, counts, displs, recv, recvCount, type, root, vector);
    }

    /** {@code vector}: gatherv, the root's {@code counts} and {@code displs} naming remote ranks. */
    @Override
    protected Request runGather(Call how, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                Datatype type, int root, boolean vector) {
        return runRooted(how, Kind.GATHER, recv, counts, displs, send, sendCount, type, root, vector);
    }

    /**
     * Scatter(v) and gather(v): {@code all} is the root's buffer of every remote rank's block ({@code
     * count} each, or laid out by {@code counts} and {@code displs}), {@code own} and {@code count}
     * a remote-group rank's block.
     */
    private Request runRooted(Call how, Kind kind, Object all, int[] counts, int[] displs, Object own, int count,
                              Datatype type, int root, boolean vector) {
        boolean scatter = kind == Kind.SCATTER;
        int issued = collectives.issued();
        try {
            if (root(root) == PROC_NULL) {
                return run(how, idle(kind, root).irregular(vector));
            }
            MemorySegment rooted = MemorySegment.NULL;
            MemorySegment mine = MemorySegment.NULL;
            long[] blocks = null;
            long[] dis = null;
            if (root == ROOT && vector) {
                blocks = args.blocks(counts, 0, type, "counts");
                dis = args.displacements(displs, blocks, 0, type, "displs");
                notInPlace(all);
                rooted = args.viewBytes(all, extentOf(blocks, dis), type, scatter ? "send buffer" : "receive buffer");
            } else if (root == ROOT) {
                rooted = view(all, (long) count * remoteGroup.length, type, scatter ? "send buffer" : "receive buffer");
            } else {
                mine = view(own, count, type, scatter ? "receive buffer" : "send buffer");
            }
            return run(how, collectives.call(kind, scatter ? rooted : mine, scatter ? mine : rooted, type)
                    .bytes(root == ROOT && vector ? 0 : bytes(count, type)).root(root).blocks(blocks, dis)
                    .irregular(vector));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    /** {@code counts} non-null: allgatherv, {@code counts} and {@code displs} naming remote ranks. */
    @Override
    protected Request runAllgather(Call how, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                   Datatype type) {
        int issued = collectives.issued();
        try {
            MemorySegment snd = view(send, sendCount, type, "send buffer");
            long[] blocks = counts == null ? null : args.blocks(counts, 0, type, "counts");
            long[] dis = counts == null ? null : args.displacements(displs, blocks, 0, type, "displs");
            MemorySegment r = counts == null ? view(recv, (long) sendCount * remoteGroup.length, type, "receive buffer")
                    : args.viewBytes(recv, extentOf(blocks, dis), type, "receive buffer");
            return run(how, collectives.call(Kind.ALLGATHER, snd, r, type).bytes(bytes(sendCount, type))
                    .blocks(blocks, dis).irregular(counts != null));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runAlltoall(Call how, Object send, int[] sendCounts, int[] sendDispls, Object recv,
                                  int[] recvCounts, int[] recvDispls, int count, Datatype type) {
        int issued = collectives.issued();
        try {
            notInPlace(send);
            long[] rb = args.blocks(recvCounts, count, type, "recvCounts");
            long[] rd = args.displacements(recvDispls, rb, count, type, "recvDispls");
            long[] sb = args.blocks2(sendCounts, count, type, "sendCounts");
            long[] sd = args.displacements2(sendDispls, sb, count, type, "sendDispls");
            MemorySegment r = args.viewBytes(recv, extentOf(rb, rd), type, "receive buffer");
            MemorySegment snd = args.viewBytes(send, extentOf(sb, sd), type, "send buffer");
            return run(how, collectives.call(Kind.ALLTOALL, snd, r, type).blocks(rb, rd).sendBlocks(sb, sd)
                    .irregular(sendCounts != null || recvCounts != null));
        } catch (TuttiException.InvalidArgument | TuttiException.Unsupported e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request offloadBarrier() {
        throw unsupported("an offloaded collective", "Offload.HOST");
    }

    @Override
    protected Request offloadBcast(Object buf, int count, Datatype type, int root) {
        return offloadBarrier();
    }

    @Override
    protected Request offloadAllgather(Object send, Object recv, int count, Datatype type) {
        return offloadBarrier();
    }

    @Override
    protected Request offloadReduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root) {
        return offloadBarrier();
    }

    @Override
    protected Request offloadAllreduce(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        return offloadBarrier();
    }

    @Override
    protected Window openWindow(WindowKind kind, MemorySegment memory, long bytes, int dispUnit) {
        throw unsupported("a window", "merge it and make the window on the intracommunicator");
    }

    // ------------------------------------------------------------ surviving failed ranks

    @Override
    public void revoke() {
        throw unsupported("revoke", "revoke the communicators it was made from");
    }

    @Override
    public boolean isRevoked() {
        return false;
    }

    @Override
    public Communicator shrink() {
        throw unsupported("shrink", "shrink the communicators it was made from");
    }

    @Override
    public int agree(int flag) {
        throw unsupported("agree", "agree on the communicators it was made from");
    }

    @Override
    public int[] failedRanks() {
        throw unsupported("failedRanks", "ask the communicators it was made from");
    }

    @Override
    public int[] ackFailed() {
        throw unsupported("ackFailed", "acknowledge on the communicators it was made from");
    }
}

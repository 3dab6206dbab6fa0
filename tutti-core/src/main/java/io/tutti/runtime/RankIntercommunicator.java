package io.tutti.runtime;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.UserOp;
import io.tutti.Window;
import io.tutti.inter.Bridge;
import io.tutti.inter.Handshake;
import io.tutti.inter.InterCollectives;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;

/**
 * An intercommunicator of one rank, on four contexts agreed by both groups: the program's messages
 * on the first, the {@link Bridge} between the groups on the second, and a communicator of the
 * local group on the third (its collectives on the fourth), which the {@link InterCollectives} use.
 * Point-to-point calls go to the engine as a communicator's do, with the remote group's world ranks.
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
    private final Bridge bridge;
    private final InterCollectives collectives;

    RankIntercommunicator(Rank tutti, Engine engine, int context, int[] localGroup, int[] remoteGroup) {
        super(context, localGroup, remoteGroup, engine.rank(), engine.size());
        this.tutti = tutti;
        this.engine = engine;
        this.context = context;
        this.localGroup = localGroup;
        this.remoteGroup = remoteGroup;
        this.worldToRemote = worldToComm();
        this.local = new RankCommunicator(tutti, engine, context + 2, localGroup);
        this.bridge = new EngineBridge();
        this.collectives = new InterCollectives(local, bridge, remoteGroup.length);
    }

    /** The bridge: the engine on the second context, one tag, remote ranks to world ranks. */
    private final class EngineBridge implements Bridge {
        @Override
        public void send(MemorySegment data, int remoteRank) {
            engine.send(context + 1, remoteGroup[remoteRank], 0, null, data, 0, data.byteSize());
        }

        @Override
        public void recv(MemorySegment into, int remoteRank) {
            engine.recv(context + 1, remoteGroup[remoteRank], 0, null, into, 0, into.byteSize(), worldToRemote, null);
        }

        @Override
        public Request isend(MemorySegment data, int remoteRank) {
            return engine.isend(context + 1, remoteGroup[remoteRank], 0, null, data, 0, data.byteSize());
        }

        @Override
        public Request irecv(MemorySegment into, int remoteRank) {
            return engine.irecv(context + 1, remoteGroup[remoteRank], 0, null, into, 0, into.byteSize(),
                    worldToRemote);
        }
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
     * combined by maximum over the group): each group reduces at its leader, the leaders swap over the
     * bridge, each broadcasts {context, its group's pair, the other group's pair}.
     */
    private long[] agree(long[] mine) {
        long[] group = mine.clone();
        local.allreduce(group, ReduceOp.MAX);
        long[] both = new long[6];
        if (local.rank() == 0) {
            MemorySegment out = MemorySegment.ofArray(group);
            long[] theirs = new long[3];
            Request sent = bridge.isend(out, 0);
            bridge.recv(MemorySegment.ofArray(theirs), 0);
            sent.waitFor();
            both = new long[] {Math.max(group[0], theirs[0]), group[1], group[2], theirs[1], theirs[2], 0};
        }
        local.bcast(both, 0);
        return both;
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

    private static TuttiException unsupported(String call, String instead) {
        return new TuttiException.Unsupported(call + " is not supported on an intercommunicator: " + instead);
    }

    // ------------------------------------------------------------ collectives

    @Override
    public void setAlgorithm(String operation, String algorithm) {
        local.setAlgorithm(operation, algorithm);
    }

    /** Intercommunicator collectives run blocking only; {@code call} names the one refused otherwise. */
    private static Request blocking(Call how, String call) {
        if (how != Call.BLOCKING) {
            throw unsupported("a " + how.name().toLowerCase(java.util.Locale.ROOT) + " " + call,
                    "call the blocking form");
        }
        return null;
    }

    @Override
    protected Request runBarrier(Call how) {
        blocking(how, "barrier");
        collectives.barrier();
        return null;
    }

    @Override
    protected Request runBcast(Call how, Object buf, int count, Datatype type, int root) {
        blocking(how, "bcast");
        collectives.bcast(buf, count, type, root);
        return null;
    }

    @Override
    protected Request runReduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                UserOp userOp, int root) {
        blocking(how, "reduce");
        collectives.reduce(send, recv, count, type, op, userOp, root);
        return null;
    }

    @Override
    protected Request runAllreduce(Call how, Object send, Object recv, int count, Datatype type, ReduceOp op,
                                   UserOp userOp) {
        blocking(how, "allreduce");
        collectives.allreduce(send, recv, count, type, op, userOp);
        return null;
    }

    @Override
    protected Request runScan(Call how, boolean exclusive, Object send, Object recv, int count, Datatype type,
                              ReduceOp op, UserOp userOp) {
        throw unsupported(exclusive ? "exscan" : "scan", "MPI defines prefix reductions on intracommunicators only");
    }

    @Override
    protected Request runReduceScatter(Call how, Object send, Object recv, int[] counts, int count, Datatype type,
                                       ReduceOp op, UserOp userOp) {
        throw unsupported("reduceScatter", "allreduce, then keep this rank's part");
    }

    @Override
    protected Request runScatter(Call how, Object send, int[] counts, int[] displs, Object recv, int recvCount,
                                 Datatype type, int root, boolean vector) {
        blocking(how, vector ? "scatterv" : "scatter");
        if (vector) {
            throw unsupported("scatterv", "scatter blocks of one size");
        }
        collectives.scatter(send, recv, recvCount, type, root);
        return null;
    }

    @Override
    protected Request runGather(Call how, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                Datatype type, int root, boolean vector) {
        blocking(how, vector ? "gatherv" : "gather");
        if (vector) {
            throw unsupported("gatherv", "gather blocks of one size");
        }
        collectives.gather(send, recv, sendCount, type, root);
        return null;
    }

    @Override
    protected Request runAllgather(Call how, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                   Datatype type) {
        blocking(how, counts != null ? "allgatherv" : "allgather");
        if (counts != null) {
            throw unsupported("allgatherv", "allgather blocks of one size");
        }
        collectives.allgather(send, recv, sendCount, type);
        return null;
    }

    @Override
    protected Request runAlltoall(Call how, Object send, int[] sendCounts, int[] sendDispls, Object recv,
                                  int[] recvCounts, int[] recvDispls, int count, Datatype type) {
        blocking(how, "alltoall");
        if (sendCounts != null || recvCounts != null) {
            throw unsupported("alltoallv", "point-to-point messages to each remote rank");
        }
        collectives.alltoall(send, recv, count, type);
        return null;
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

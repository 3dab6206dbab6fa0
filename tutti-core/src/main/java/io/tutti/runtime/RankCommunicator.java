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
import io.tutti.coll.ft.Agreement;
import io.tutti.coll.ft.AgreementRun;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.inter.Handshake;
import io.tutti.offload.OffloadPlans;
import io.tutti.offload.OffloadProgram;
import io.tutti.offload.OffloadedCollective;
import io.tutti.p2p.Engine;
import io.tutti.reduce.OffloadAlu;
import io.tutti.rma.ShmWindow;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A communicator of one rank: its point-to-point calls go to the rank's engine on the
 * communicator's context, its collectives to its {@link Collectives} on the next context (or, for
 * offloaded persistent ones, to the software NIC), after {@link CollectiveArguments} has checked
 * them and turned them into byte regions.
 */
final class RankCommunicator extends Communicator {
    /** Above every collective's wire tags (see {@code io.tutti.coll.HostExecutor}). */
    private static final int INTERNAL_TAG_SPLIT = 1 << 30;
    /** The leaders' messages of {@link #createIntercomm}, on the peer communicator. */
    private static final int INTERNAL_TAG_INTERCOMM = INTERNAL_TAG_SPLIT + 1;
    /** The members' messages of {@link #createGroup}. */
    private static final int INTERNAL_TAG_GROUP = INTERNAL_TAG_SPLIT + 2;

    private final Rank tutti;
    private final Engine engine;
    private final int context;
    private final int rank;
    private final int[] group;
    private final int[] worldToComm;
    private final Collectives collectives;
    private final CollectiveArguments args;
    /** Offloaded collectives created on this communicator so far: the next one's endpoint tag. */
    private int offloadedInits;
    /** Windows created on this communicator so far: the next one's number (its files' names). */
    private int windows;
    /** Agreements (agree, shrink) run on this communicator so far: the next one's number (its tags). */
    private int agreements;
    /** Members this rank knows to have failed: noticed here, or in a failed set the survivors agreed on. */
    private final boolean[] knownFailed;
    /** Members whose failure this rank has acknowledged ({@link #ackFailed()}). */
    private final boolean[] acknowledged;

    RankCommunicator(Rank tutti, Engine engine, int context, int[] group) {
        super(context, group, engine.rank(), engine.size());
        this.tutti = tutti;
        this.engine = engine;
        this.context = context;
        this.rank = rank();
        this.group = group();
        this.worldToComm = worldToComm();
        this.collectives = new Collectives(engine, context + 1, group, rank, tutti.selector(),
                () -> tutti.topologyOf(group), tutti.settings().asMap(), tutti.collConfig().check());
        this.args = new CollectiveArguments(group.length, rank);
        this.knownFailed = new boolean[group.length];
        this.acknowledged = new boolean[group.length];
        engine.registerGroup(context, group);
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

    // ------------------------------------------------------------ one-sided

    @Override
    protected Window openWindow(WindowKind kind, MemorySegment memory, long bytes, int dispUnit) {
        boolean anyRemote = false;
        for (int r = 0; r < group.length; r++) {
            anyRemote |= !engine.sharesMemoryWith(group[r]);
        }
        // every rank of a communicator that spans hosts has a peer on another: all decide alike
        long[] sizes = null;
        if (anyRemote) {
            // peers across the network learn each other's window bytes and units here, not from the areas
            sizes = new long[2 * group.length];
            allgather(new long[] {bytes, dispUnit}, sizes, 2, Datatype.LONG);
        }
        if (kind == WindowKind.DYNAMIC) {
            return ShmWindow.openDynamic(engine, context, windows++, group, rank, this::barrier, sizes,
                    tutti.rmaConfig());
        }
        return ShmWindow.open(engine, context, windows++, group, rank, memory, bytes, dispUnit,
                kind == WindowKind.SHARED, this::barrier, sizes, tutti.rmaConfig());
    }

    // ------------------------------------------------------------ collectives

    @Override
    public void setAlgorithm(String operation, String algorithm) {
        collectives.setAlgorithm(operation, algorithm);
    }

    private static Collectives.Mode mode(Call how) {
        return switch (how) {
            case BLOCKING -> Collectives.Mode.BLOCKING;
            case NONBLOCKING -> Collectives.Mode.NONBLOCKING;
            case PERSISTENT -> Collectives.Mode.PERSISTENT;
        };
    }

    /**
     * A blocking or nonblocking collective that failed on this rank before it ran (its arguments):
     * the call still takes its place in the communicator's sequence, and the other ranks are told
     * not to wait for this one in it ({@link Collectives#failed}), so every rank can go on.
     */
    private TuttiException refused(Call how, int issued, TuttiException.InvalidArgument e) {
        if (how != Call.PERSISTENT && collectives.issued() == issued) {
            collectives.failed(issued, null);
        }
        return e;
    }

    @Override
    protected Request runBarrier(Call how) {
        int issued = collectives.issued();
        try {
            return collectives.run(mode(how), collectives.call(Kind.BARRIER, MemorySegment.NULL, MemorySegment.NULL,
                    Datatype.BYTE));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runBcast(Call how, Object buf, int count, Datatype type, int root) {
        int issued = collectives.issued();
        try {
            checkRank(root, "root");
            MemorySegment b = args.view(buf, count, type, "buffer");
            return collectives.run(mode(how), collectives.call(Kind.BCAST, b, b, type)
                    .bytes(bytes(count, type)).root(root));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runReduce(Call how, Object send, Object recv, int count, Datatype type,
                                ReduceOp op, UserOp userOp, int root) {
        int issued = collectives.issued();
        try {
            checkRank(root, "root");
            CollectiveArguments.checkOp(op, userOp, type);
            boolean inPlace = send == IN_PLACE;
            if (inPlace && rank != root) {
                throw new TuttiException.InvalidArgument("IN_PLACE is the root's send buffer only in reduce");
            }
            MemorySegment r = rank == root ? args.view(recv, count, type, "receive buffer") : MemorySegment.NULL;
            MemorySegment snd = inPlace ? r : args.view(send, count, type, "send buffer");
            return collectives.run(mode(how), collectives.call(Kind.REDUCE, snd, r, type).reduction(op, userOp)
                    .bytes(bytes(count, type)).root(root).inPlace(inPlace));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runAllreduce(Call how, Object send, Object recv, int count, Datatype type,
                                   ReduceOp op, UserOp userOp) {
        int issued = collectives.issued();
        try {
            CollectiveArguments.checkOp(op, userOp, type);
            boolean inPlace = send == IN_PLACE;
            MemorySegment r = args.view(recv, count, type, "receive buffer");
            MemorySegment snd = inPlace ? r : args.view(send, count, type, "send buffer");
            return collectives.run(mode(how), collectives.call(Kind.ALLREDUCE, snd, r, type).reduction(op, userOp)
                    .bytes(bytes(count, type)).inPlace(inPlace));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected void runReduceLocal(Object in, Object inout, int count, Datatype type, ReduceOp op, UserOp userOp) {
        args.reduceLocal(in, inout, count, type, op, userOp);
    }

    @Override
    protected Request runScan(Call how, boolean exclusive, Object send, Object recv, int count, Datatype type,
                              ReduceOp op, UserOp userOp) {
        int issued = collectives.issued();
        try {
            CollectiveArguments.checkOp(op, userOp, type);
            boolean inPlace = send == IN_PLACE;
            MemorySegment r = args.view(recv, count, type, "receive buffer");
            MemorySegment snd = inPlace ? r : args.view(send, count, type, "send buffer");
            return collectives.run(mode(how), collectives.call(exclusive ? Kind.EXSCAN : Kind.SCAN, snd, r, type)
                    .reduction(op, userOp).bytes(bytes(count, type)).inPlace(inPlace));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    /** {@code counts} null: {@code count} elements per rank. */
    @Override
    protected Request runReduceScatter(Call how, Object send, Object recv, int[] counts, int count,
                                       Datatype type, ReduceOp op, UserOp userOp) {
        int issued = collectives.issued();
        try {
            CollectiveArguments.checkOp(op, userOp, type);
            long[] blocks = args.blocks(counts, count, type, "counts");
            long total = CollectiveArguments.prefix(blocks, args.prefixDispls());
            boolean inPlace = send == IN_PLACE;
            MemorySegment r = inPlace ? args.viewBytes(recv, total, type, "receive buffer")
                    : args.viewBytes(recv, blocks[rank], type, "receive buffer");
            MemorySegment snd = inPlace ? r : args.viewBytes(send, total, type, "send buffer");
            return collectives.run(mode(how), collectives.call(Kind.REDUCE_SCATTER, snd, r, type).reduction(op, userOp)
                    .bytes(total).inPlace(inPlace).blocks(blocks, null));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    /** {@code vector}: scatterv (counts read at the root only); else scatter. */
    @Override
    protected Request runScatter(Call how, Object send, int[] counts, int[] displs, Object recv, int recvCount,
                                 Datatype type, int root, boolean vector) {
        return runRooted(how, Kind.SCATTER, send, counts, displs, recv, recvCount, type, root, vector);
    }

    /** {@code vector}: gatherv (counts read at the root only); else gather. */
    @Override
    protected Request runGather(Call how, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                                Datatype type, int root, boolean vector) {
        return runRooted(how, Kind.GATHER, recv, counts, displs, send, sendCount, type, root, vector);
    }

    /**
     * Scatter(v) and gather(v), mirror images: {@code all} is the root's buffer of every rank's block
     * (laid out by {@code counts} and {@code displs}, read at the root only), {@code own} and
     * {@code count} this rank's block (IN_PLACE at the root: its block stays where it is in {@code all}).
     */
    private Request runRooted(Call how, Kind kind, Object all, int[] counts, int[] displs, Object own, int count,
                              Datatype type, int root, boolean vector) {
        boolean scatter = kind == Kind.SCATTER;
        String ownSide = scatter ? "receive" : "send";
        int issued = collectives.issued();
        try {
            checkRank(root, "root");
            boolean inPlace = own == IN_PLACE;
            if (inPlace && rank != root) {
                throw new TuttiException.InvalidArgument("IN_PLACE is the root's " + ownSide + " buffer only in "
                        + (scatter ? "scatter" : "gather"));
            }
            // every rank must choose the same algorithm, and non-roots may pass no counts
            long[] blocks = args.rootedBlocks(vector, counts, count, type, root);
            long[] dis = rank == root ? args.displacements(displs, blocks, count, type, "displs")
                    : args.displacements(null, blocks, 0, type, "displs");
            // constant names: a concatenation here would allocate on every call
            MemorySegment rooted = rank == root ? args.viewBytes(all, extentOf(blocks, dis), type,
                    scatter ? "send buffer" : "receive buffer") : MemorySegment.NULL;
            if (rank == root && !inPlace && blocks[rank] != (long) count * type.extent()) {
                throw new TuttiException.InvalidArgument("the root's own block has " + blocks[rank] / type.extent()
                        + " elements but its " + ownSide + " count is " + count);
            }
            MemorySegment mine = inPlace ? MemorySegment.NULL : args.view(own, count, type,
                    scatter ? "receive buffer" : "send buffer");
            return collectives.run(mode(how), collectives.call(kind, scatter ? rooted : mine, scatter ? mine : rooted,
                    type).root(root).inPlace(inPlace).blocks(blocks, dis).irregular(vector));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runAllgather(Call how, Object send, int sendCount, Object recv, int[] counts,
                                   int[] displs, Datatype type) {
        int issued = collectives.issued();
        try {
            boolean inPlace = send == IN_PLACE;
            long[] blocks = args.blocks(counts, sendCount, type, "counts");
            long[] dis = args.displacements(displs, blocks, sendCount, type, "displs");
            if (!inPlace && blocks[rank] != (long) sendCount * type.extent()) {
                throw new TuttiException.InvalidArgument("counts[" + rank + "] is " + blocks[rank] / type.extent()
                        + " but this rank sends " + sendCount + " elements");
            }
            MemorySegment r = args.viewBytes(recv, extentOf(blocks, dis), type, "receive buffer");
            MemorySegment snd = inPlace ? r : args.view(send, (int) (blocks[rank] / type.extent()), type, "send buffer");
            return collectives.run(mode(how), collectives.call(Kind.ALLGATHER, snd, r, type).inPlace(inPlace)
                    .blocks(blocks, dis));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    @Override
    protected Request runAlltoall(Call how, Object send, int[] sendCounts, int[] sendDispls, Object recv,
                                  int[] recvCounts, int[] recvDispls, int count, Datatype type) {
        int issued = collectives.issued();
        try {
            boolean inPlace = send == IN_PLACE;
            long[] rb = args.blocks(recvCounts, count, type, "recvCounts");
            long[] rd = args.displacements(recvDispls, rb, count, type, "recvDispls");
            long[] sb = inPlace ? rb : args.blocks2(sendCounts, count, type, "sendCounts");
            long[] sd = inPlace ? rd : args.displacements2(sendDispls, sb, count, type, "sendDispls");
            MemorySegment r = args.viewBytes(recv, extentOf(rb, rd), type, "receive buffer");
            MemorySegment snd = inPlace ? r : args.viewBytes(send, extentOf(sb, sd), type, "send buffer");
            return collectives.run(mode(how), collectives.call(Kind.ALLTOALL, snd, r, type).inPlace(inPlace)
                    .blocks(rb, rd).sendBlocks(sb, sd).irregular(sendCounts != null || recvCounts != null));
        } catch (TuttiException.InvalidArgument e) {
            throw refused(how, issued, e);
        }
    }

    // ------------------------------------------------------------ offloaded persistent collectives

    @Override
    protected Request offloadBarrier() {
        return offloaded(OffloadPlans.Coll.BARRIER, MemorySegment.NULL, MemorySegment.NULL, 0, 0, null, null);
    }

    @Override
    protected Request offloadBcast(Object buf, int count, Datatype type, int root) {
        checkRank(root, "root");
        MemorySegment b = args.view(buf, count, type, "buffer");
        return offloaded(OffloadPlans.Coll.BCAST, MemorySegment.NULL, b, bytes(count, type), root,
                null, null);
    }

    @Override
    protected Request offloadAllgather(Object send, Object recv, int count, Datatype type) {
        notInPlace(send);
        MemorySegment r = args.view(recv, (long) count * group.length, type, "receive buffer");
        MemorySegment snd = args.view(send, count, type, "send buffer");
        return offloaded(OffloadPlans.Coll.ALLGATHER, snd, r, bytes(count, type), 0, null, null);
    }

    @Override
    protected Request offloadReduce(Object send, Object recv, int count, Datatype type, ReduceOp op, int root) {
        checkRank(root, "root");
        notInPlace(send);
        MemorySegment r = rank == root ? args.view(recv, count, type, "receive buffer") : MemorySegment.NULL;
        MemorySegment snd = args.view(send, count, type, "send buffer");
        return offloaded(OffloadPlans.Coll.REDUCE, snd, r, bytes(count, type), root, op, type);
    }

    @Override
    protected Request offloadAllreduce(Object send, Object recv, int count, Datatype type, ReduceOp op) {
        notInPlace(send);
        MemorySegment r = args.view(recv, count, type, "receive buffer");
        MemorySegment snd = args.view(send, count, type, "send buffer");
        return offloaded(OffloadPlans.Coll.ALLREDUCE, snd, r, bytes(count, type), 0, op, type);
    }

    private static void notInPlace(Object send) {
        if (send == IN_PLACE) {
            throw new TuttiException.InvalidArgument("IN_PLACE is not offloaded: give a send buffer, or use"
                    + " Offload.HOST");
        }
    }

    /**
     * An offloaded persistent collective: the offload package compiles this rank's program (its
     * scheme from {@link io.tutti.offload.OffloadConfig} and whether the ranks share this node),
     * which the software NIC then runs start after start.
     */
    private Request offloaded(OffloadPlans.Coll coll, MemorySegment send, MemorySegment recv, long bytes, int root,
                              ReduceOp op, Datatype type) {
        OffloadAlu.Op alu = null;
        OffloadAlu.Type aluType = null;
        if (op != null) {
            alu = OffloadAlu.of(op);
            aluType = OffloadAlu.of(type);
            OffloadAlu.check(alu, aluType);
            if (type.isPair() != alu.located()) {
                throw new TuttiException.InvalidArgument(op + " on " + type + " cannot be offloaded: MAXLOC and"
                        + " MINLOC take the pair types, the others plain ones");
            }
        }
        boolean sharedNode = true;
        for (int r = 0; r < group.length && sharedNode; r++) {
            sharedNode = engine.sharesMemoryWith(group[r]);
        }
        OffloadProgram program = OffloadPlans.compile(coll, tutti.offloadConfig(), group.length, rank, bytes, root, alu,
                aluType, sharedNode);
        // every rank makes its offloaded inits in the same order, so the count names the collective;
        // a bcast's root and a reduce's leaves may run ahead of the others, the other collectives go in lockstep
        boolean lockstep = coll != OffloadPlans.Coll.BCAST && coll != OffloadPlans.Coll.REDUCE;
        return new OffloadedCollective(engine, program, send, recv, context + 1, offloadedInits++, group, lockstep);
    }

    // ------------------------------------------------------------ communicators

    @Override
    public Communicator split(int color, int key) {
        int n = size();
        long[] mine = {color, key, tutti.nextContext()};
        long[][] all = new long[n][];
        Request[] reqs = new Request[2 * n];
        for (int r = 0; r < n; r++) {
            all[r] = r == rank ? mine : new long[3];
            if (r != rank) {
                reqs[r] = engine.irecv(context + 1, group[r], INTERNAL_TAG_SPLIT, all[r], null, 0, 24, worldToComm);
                reqs[n + r] = engine.isend(context + 1, group[r], INTERNAL_TAG_SPLIT, mine, null, 0, 24);
            }
        }
        Request.waitAll(reqs);
        long newContext = 0;
        for (long[] t : all) {
            newContext = Math.max(newContext, t[2]);
        }
        tutti.contextUsed((int) newContext);
        if (color < 0) {
            return null;
        }
        Integer[] members = java.util.stream.IntStream.range(0, n).filter(r -> all[r][0] == color).boxed()
                .toArray(Integer[]::new);
        Arrays.sort(members, (a, b) -> all[a][1] != all[b][1] ? Long.compare(all[a][1], all[b][1])
                : Integer.compare(a, b));
        int[] newGroup = new int[members.length];
        for (int i = 0; i < members.length; i++) {
            newGroup[i] = group[members[i]];
        }
        return new RankCommunicator(tutti, engine, (int) newContext, newGroup);
    }

    /**
     * The first member collects every other member's request (tag, group, next context) on this
     * communicator's collective context and answers each with the largest next context, or with why
     * they disagree; the other ranks take no part.
     */
    @Override
    public Communicator createGroup(int[] ranks, int tag) {
        String bad = Handshake.badMembers(ranks, group.length, rank);
        if (bad != null) {
            throw new TuttiException.InvalidArgument(bad);
        }
        if (tag < 0) {
            throw new TuttiException.InvalidArgument("createGroup: invalid tag " + tag + ": 0 or more");
        }
        int[] members = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            members[i] = group[ranks[i]];
        }
        long[] mine = Handshake.memberRequest(tag, members, tutti.nextContext());
        int first = ranks[0];
        long[] answer = new long[2];
        String why = null;
        if (rank == first) {
            long[][] requests = new long[ranks.length][Handshake.GROUP_FIELDS];
            Request[] reqs = new Request[ranks.length];
            for (int i = 1; i < ranks.length; i++) {
                reqs[i] = engine.irecv(context + 1, group[ranks[i]], INTERNAL_TAG_GROUP, requests[i], null, 0,
                        8L * Handshake.GROUP_FIELDS, worldToComm);
            }
            Request.waitAll(reqs);
            long next = mine[3];
            for (int i = 1; i < ranks.length && why == null; i++) {
                why = Handshake.memberDisagrees(mine, requests[i], ranks[i]);
                next = Math.max(next, requests[i][3]);
            }
            answer[0] = next;
            for (int i = 1; i < ranks.length; i++) {
                sendAnswer(engine, context + 1, group[ranks[i]], INTERNAL_TAG_GROUP, next, why);
            }
        } else {
            engine.send(context + 1, group[first], INTERNAL_TAG_GROUP, mine, null, 0, 8L * Handshake.GROUP_FIELDS);
            why = receiveAnswer(engine, context + 1, group[first], INTERNAL_TAG_GROUP, answer, worldToComm);
        }
        if (why != null) {
            throw new TuttiException.InvalidArgument(why);
        }
        tutti.contextUsed((int) answer[0]);
        return new RankCommunicator(tutti, engine, (int) answer[0], members);
    }

    /** Sends a creation's answer: the agreed context and why it failed (null: it did not), as a header and the text. */
    static void sendAnswer(Engine engine, int context, int worldDest, int tag, long agreed, String why) {
        byte[] text = why == null ? new byte[0] : why.getBytes(StandardCharsets.UTF_8);
        engine.send(context, worldDest, tag, new long[] {agreed, text.length}, null, 0, 16);
        if (text.length > 0) {
            engine.send(context, worldDest, tag, text, null, 0, text.length);
        }
    }

    /** Receives what {@link #sendAnswer} sent: the context into {@code answer[0]}; returns why it failed, or null. */
    static String receiveAnswer(Engine engine, int context, int worldSource, int tag, long[] answer,
                                int[] worldToComm) {
        engine.recv(context, worldSource, tag, answer, null, 0, 16, worldToComm, null);
        if (answer[1] == 0) {
            return null;
        }
        byte[] text = new byte[(int) answer[1]];
        engine.recv(context, worldSource, tag, text, null, 0, text.length, worldToComm, null);
        return new String(text, StandardCharsets.UTF_8);
    }

    /**
     * Every rank learns the largest next context of its group; the leaders swap it, their tag and
     * their groups over the peer (on its collective context), check each other and take the larger;
     * each leader broadcasts the outcome to its group. The intercommunicator's own contexts are the
     * agreed one and the three after it (see {@link RankIntercommunicator}).
     */
    /**
     * The root asks the launcher, and tells the others its answer or why it failed; then every rank
     * joins the new job as its rank of the same number, where the launcher's new processes wait.
     */
    @Override
    public Intercommunicator spawn(java.util.List<Program> programs, int root) {
        checkRank(root, "root");
        String answer = "";
        int count = 0;
        if (rank == root) {
            String invalid = programs == null || programs.isEmpty() ? "spawn needs at least one program" : null;
            for (int i = 0; invalid == null && i < programs.size(); i++) {
                Program p = programs.get(i);
                invalid = p == null ? "program " + i + " of the spawn is null"
                        : p.mainClass() == null || p.mainClass().isBlank() ? "spawn needs the name of a main class"
                        : p.count() < 1 ? "spawn of " + p.count() + " processes of " + p.mainClass()
                        + ": the count must be at least 1"
                        : p.args() == null || p.args().stream().anyMatch(java.util.Objects::isNull)
                        ? "spawn's arguments may not be or hold null" : null;
                count += invalid == null ? p.count() : 0;
            }
            answer = invalid != null ? "?" + invalid : tutti.requestSpawn(programs, size());
            answer = answer.startsWith("!") ? answer : answer + "\n" + count;
        }
        answer = rootsAnswer(answer, root, "spawn", TuttiException.Unsupported::new);
        int newline = answer.lastIndexOf('\n');
        return tutti.spawnJob(answer.substring(0, newline), rank, size(), Integer.parseInt(answer.substring(newline + 1)));
    }

    /**
     * The root's {@code answer} at every rank: one that starts with "?" (the root's call was invalid)
     * throws InvalidArgument, one that starts with "!" (the launcher refused) what {@code refused}
     * makes of the reason, at every rank alike.
     */
    private String rootsAnswer(String answer, int root, String call,
                               java.util.function.Function<String, TuttiException> refused) {
        byte[] text = answer.getBytes(StandardCharsets.UTF_8);
        int[] length = {text.length};
        bcast(length, root);
        text = rank == root ? text : new byte[length[0]];
        bcast(text, root);
        answer = new String(text, StandardCharsets.UTF_8);
        if (answer.startsWith("?")) {
            throw new TuttiException.InvalidArgument(answer.substring(1) + " (at the root, rank " + root + ")");
        }
        if (answer.startsWith("!")) {
            throw refused.apply(call + " from rank " + root + " failed: " + answer.substring(1));
        }
        return answer;
    }

    @Override
    public Intercommunicator accept(String port, int root) {
        return meet("accept", port, root);
    }

    @Override
    public Intercommunicator connect(String port, int root) {
        return meet("connect", port, root);
    }

    /**
     * The root asks the launcher to meet the other side at {@code port}, and tells the others its
     * answer; then every rank joins the joined job, the accepting group's ranks first.
     */
    private Intercommunicator meet(String call, String port, int root) {
        checkRank(root, "root");
        String answer = "";
        if (rank == root) {
            answer = port == null || port.isBlank() ? "?" + call + " needs a port name (from openPort)"
                    : tutti.requestPort(call, port, Integer.toString(size()));
        }
        answer = rootsAnswer(answer, root, call, TuttiException.InvalidArgument::new);
        return tutti.joinPort(answer, rank, call.equals("accept"));
    }

    @Override
    public Intercommunicator createIntercomm(int localLeader, Communicator peer, int remoteLeader, int tag) {
        checkRank(localLeader, "local leader");
        long[] next = {tutti.nextContext()};
        allreduce(next, ReduceOp.MAX);
        long[] header = {next[0], 0, 0};   // agreed context, remote size, length of why it failed
        int[] remote = null;
        String why = null;
        if (rank == localLeader) {
            why = leaderCheck(peer, remoteLeader, tag);
            if (why == null) {
                RankCommunicator p = (RankCommunicator) peer;
                int worldLeader = p.group[remoteLeader];
                long[] mine = {tag, next[0], group.length};
                long[] theirs = new long[3];
                Request sent = engine.isend(p.context + 1, worldLeader, INTERNAL_TAG_INTERCOMM, mine, null, 0, 24);
                engine.recv(p.context + 1, worldLeader, INTERNAL_TAG_INTERCOMM, theirs, null, 0, 24, p.worldToComm,
                        null);
                sent.waitFor();
                remote = new int[(int) theirs[2]];
                sent = engine.isend(p.context + 1, worldLeader, INTERNAL_TAG_INTERCOMM, group, null, 0,
                        4L * group.length);
                engine.recv(p.context + 1, worldLeader, INTERNAL_TAG_INTERCOMM, remote, null, 0, 4L * remote.length,
                        p.worldToComm, null);
                sent.waitFor();
                why = Handshake.leadersDisagree(tag, (int) theirs[0], group, remote);
                header[0] = Math.max(next[0], theirs[1]);
                header[1] = remote.length;
            }
        }
        byte[] text = why == null ? null : why.getBytes(StandardCharsets.UTF_8);
        header[2] = text == null ? 0 : text.length;
        bcast(header, localLeader);
        if (header[2] > 0) {
            text = rank == localLeader ? text : new byte[(int) header[2]];
            bcast(text, localLeader);
            throw new TuttiException.InvalidArgument(new String(text, StandardCharsets.UTF_8));
        }
        remote = rank == localLeader ? remote : new int[(int) header[1]];
        bcast(remote, localLeader);
        int agreed = (int) header[0];
        tutti.contextUsed(agreed + 2);
        return new RankIntercommunicator(tutti, engine, agreed, group, remote);
    }

    /** Why the local leader cannot reach the remote leader over {@code peer}, or null. */
    private String leaderCheck(Communicator peer, int remoteLeader, int tag) {
        if (!(peer instanceof RankCommunicator p) || peer.isInter()) {
            return "createIntercomm: the local leader (rank " + rank + ") has " + (peer == null ? "no peer"
                    + " communicator (null): the leader must be a member of the peer communicator" : "an"
                    + " intercommunicator as the peer: the leaders need an intracommunicator they both belong to");
        }
        if (remoteLeader < 0 || remoteLeader >= p.group.length) {
            return "createIntercomm: invalid remote leader " + remoteLeader + ": the peer communicator has "
                    + p.group.length + " ranks (0.." + (p.group.length - 1) + ")";
        }
        if (remoteLeader == p.rank) {
            return "createIntercomm: the remote leader " + remoteLeader + " is the local leader itself: the two groups"
                    + " must be disjoint";
        }
        if (tag < 0) {
            return "createIntercomm: invalid tag " + tag + ": 0 or more";
        }
        return null;
    }

    // ------------------------------------------------------------ surviving failed ranks

    @Override
    public void revoke() {
        engine.checkOpen();
        engine.revoke(context);
    }

    @Override
    public boolean isRevoked() {
        return engine.revoked(context);
    }

    @Override
    public Communicator shrink() {
        Agreement decided = agreement(-1, tutti.nextContext());
        boolean[] failed = decided.failed();
        if (failed[rank]) {
            // only a detector that took this live rank for dead (a network partition) gets here
            throw new TuttiException.PeerFailed("the other ranks have agreed that rank " + rank + " (this rank) has"
                    + " failed: it is cut off from them and cannot be part of the shrunk communicator");
        }
        int[] survivors = new int[group.length - count(failed)];
        for (int r = 0, i = 0; r < group.length; r++) {
            if (!failed[r]) {
                survivors[i++] = group[r];
            }
        }
        int newContext = (int) decided.context();
        tutti.contextUsed(newContext);
        return new RankCommunicator(tutti, engine, newContext, survivors);
    }

    @Override
    public int agree(int flag) {
        Agreement decided = agreement(flag, 0);
        int[] unacknowledged = ranksOf(decided.unacknowledged());
        if (unacknowledged.length > 0) {
            throw new TuttiException.PeerFailed("agree: rank(s) " + java.util.stream.IntStream.of(unacknowledged)
                    .mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(", ")) + " of this communicator failed and not every rank had acknowledged it before the call; the"
                    + " agreed flag was " + (int) decided.flag() + " (call ackFailed() and agree again)");
        }
        return (int) decided.flag();
    }

    /** Runs one fault-tolerant agreement on this communicator (see {@link AgreementRun}) and learns its failed set. */
    private Agreement agreement(long flag, long nextContext) {
        engine.checkOpen();
        AgreementRun run = new AgreementRun(engine, context, group, rank, agreements++, flag, nextContext,
                noticeFailures(), acknowledged);
        Agreement decided = run.await();
        boolean[] failed = decided.failed();
        for (int r = 0; r < group.length; r++) {
            knownFailed[r] |= failed[r];
        }
        return decided;
    }

    /** Asks the failure detector about every member not yet known failed; returns a copy of what is known. */
    private boolean[] noticeFailures() {
        for (int r = 0; r < group.length; r++) {
            if (!knownFailed[r] && r != rank && engine.failure(group[r]) != null) {
                knownFailed[r] = true;
            }
        }
        return knownFailed.clone();
    }

    @Override
    public int[] failedRanks() {
        engine.checkOpen();
        return ranksOf(noticeFailures());
    }

    @Override
    public int[] ackFailed() {
        engine.checkOpen();
        boolean[] failed = noticeFailures();
        for (int r = 0; r < group.length; r++) {
            if (failed[r] && !acknowledged[r]) {
                acknowledged[r] = true;
                engine.acknowledge(context, group[r]);
            }
        }
        return ranksOf(acknowledged);
    }

    private static int count(boolean[] set) {
        int n = 0;
        for (boolean b : set) {
            n += b ? 1 : 0;
        }
        return n;
    }

    private static int[] ranksOf(boolean[] set) {
        int[] ranks = new int[count(set)];
        for (int r = 0, i = 0; r < set.length; r++) {
            if (set[r]) {
                ranks[i++] = r;
            }
        }
        return ranks;
    }
}

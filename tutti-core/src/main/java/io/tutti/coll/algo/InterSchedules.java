package io.tutti.coll.algo;

import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

import io.tutti.Intercommunicator;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * An intercommunicator's collectives with MPI's meaning, as schedules: binomial trees inside the
 * local group plus messages across, between the leaders (local rank 0), or, where only each rank
 * knows its own block (the v-forms), straight between the root or leader and every remote rank.
 * Local rank r and remote rank q are schedule ranks {@code lo + r} and {@code ro + q}, the local
 * group first unless {@code localFirst} is false (the executor lists local then remote; a test
 * plays both groups' schedules at once).
 *
 * <p>Calls as the runtime fills them: {@code root} is {@link Intercommunicator#ROOT},
 * {@link Intercommunicator#PROC_NULL} (an empty schedule) or a remote rank; {@code bytes} this
 * rank's block (reduceScatter's whole vector); {@code blocks}/{@code displs} the remote group's
 * layout (reduceScatter's: the local group's), {@code sendBlocks}/{@code sendDispls} alltoall's send
 * side; {@code irregular} marks a v-form. Tags: 0-1 the local fan-in, 8 across, 16 the fan-out.
 */
public final class InterSchedules {
    /** The algorithm's name in reports and signatures. */
    public static final String NAME = "inter";
    private static final int ACROSS = 8;
    private static final int OUT = 16;

    private InterSchedules() {
    }

    /**
     * What both groups' ranks agree on in a call, compared when it stalls: the operation and the
     * algorithm only, as the root and the block sizes differ between the groups.
     */
    public static long[] signature(Kind kind) {
        return new long[] {(long) kind.ordinal() << 32, -1, NAME.hashCode()};
    }

    /** Local rank {@code rank}'s schedule of {@code call} on groups of {@code localSize} and {@code remoteSize}. */
    public static Schedule build(CollectiveCall call, int rank, int localSize, int remoteSize, boolean localFirst) {
        int lo = localFirst ? 0 : remoteSize;
        int ro = localFirst ? localSize : 0;
        int[] ranks = new int[localSize];
        for (int r = 0; r < localSize; r++) {
            ranks[r] = lo + r;
        }
        return new Layout(new ScheduleBuilder(call.kind().methodName() + "/" + NAME, lo + rank, localSize + remoteSize),
                new Group(ranks, rank, 0), ro, remoteSize, call).emit();
    }

    /** One rank's schedule in the making. */
    private record Layout(ScheduleBuilder b, Group local, int ro, int remoteSize, CollectiveCall call) {
        boolean leader() {
            return local.me() == 0;
        }

        int localSize() {
            return local.size();
        }

        /** The builder's rank of remote rank {@code q}. */
        int remote(int q) {
            return ro + q;
        }

        Group out() {
            return local.withTagBase(OUT);
        }

        Schedule emit() {
            int root = call.root();
            if (root == Intercommunicator.PROC_NULL) {
                return b.build();
            }
            boolean isRoot = root == Intercommunicator.ROOT;
            switch (call.kind()) {
                case BARRIER -> barrier();
                case BCAST -> bcast(isRoot);
                case REDUCE -> reduce(isRoot);
                case ALLREDUCE -> allreduce();
                case REDUCE_SCATTER -> reduceScatter();
                case GATHER -> gather(isRoot);
                case SCATTER -> scatter(isRoot);
                case ALLGATHER -> allgather();
                case ALLTOALL -> alltoall();
                default -> throw new IllegalArgumentException(call.kind().methodName()
                        + " has no intercommunicator schedule");
            }
            return b.build();
        }

        /** The leaders' swap after {@code ready}: {@code len} bytes out, {@code inLen} in; the receive's step, or NONE off the leader. */
        int swap(byte buf, long off, long len, byte into, long intoOff, long inLen, int ready) {
            if (!leader()) {
                return ScheduleBuilder.NONE;
            }
            b.send(remote(0), ACROSS, buf, off, len, ready);
            return b.recv(remote(0), ACROSS, into, intoOff, inLen);
        }

        /** Fan-in to the leader, the leaders' empty swap, fan-out: no rank leaves before all of both groups came. */
        void barrier() {
            int in = BinomialReduce.emit(b, local, 0, 1, 0, true, true, RECV_BUFFER, 0, 0, ScheduleBuilder.NONE);
            int across = swap(TEMP_BUFFER, 0, 0, TEMP_BUFFER, 0, 0, in);
            // the leader's fan-out waits for its own group as well as for the other's
            BinomialBcast.emit(b, out(), 0, 0, RECV_BUFFER, 0, leader() ? b.join(across, in) : in);
        }

        /** The root sends to the remote leader, which broadcasts in its group. */
        void bcast(boolean isRoot) {
            long bytes = call.bytes();
            if (isRoot) {
                b.send(remote(0), ACROSS, RECV_BUFFER, 0, bytes);
                return;
            }
            int got = leader() ? b.recv(remote(call.root()), ACROSS, RECV_BUFFER, 0, bytes) : ScheduleBuilder.NONE;
            BinomialBcast.emit(b, out(), bytes, 0, RECV_BUFFER, 0, got);
        }

        /** The group's reduction, in rank order, into scratch at its leader; returns its last step. */
        int reduceLocally() {
            long bytes = call.bytes();
            b.temp(bytes);
            return BinomialReduce.emit(b, local, bytes, call.extent(), 0, false, call.commutative(), TEMP_BUFFER, 0,
                    align(bytes), ScheduleBuilder.NONE);
        }

        /** The remote group reduces at its leader, which sends the result to the root. */
        void reduce(boolean isRoot) {
            if (isRoot) {
                b.recv(remote(0), ACROSS, RECV_BUFFER, 0, call.bytes());
                return;
            }
            int reduced = reduceLocally();
            if (leader()) {
                b.send(remote(call.root()), ACROSS, TEMP_BUFFER, 0, call.bytes(), reduced);
            }
        }

        /** Each group reduces at its leader; the leaders swap; each broadcasts the other group's result. */
        void allreduce() {
            long bytes = call.bytes();
            int got = swap(TEMP_BUFFER, 0, bytes, RECV_BUFFER, 0, bytes, reduceLocally());
            BinomialBcast.emit(b, out(), bytes, 0, RECV_BUFFER, 0, got);
        }

        /**
         * Each group reduces its vectors at its leader; the leaders swap; each scatters the other
         * group's result in its group by its own blocks.
         */
        void reduceScatter() {
            long bytes = call.bytes();
            // after the reduction's result and its scratch (at most twice the vector)
            long theirs = align(bytes) + align(2 * bytes);
            b.temp(theirs + bytes);
            int got = swap(TEMP_BUFFER, 0, bytes, TEMP_BUFFER, theirs, bytes, reduceLocally());
            long[] blocks = call.blocks();
            BinomialScatter.emit(b, out(), blocks, Blocks.offsets(blocks), 0, false, TEMP_BUFFER, theirs,
                    theirs + align(bytes), got);
        }

        /** The group's blocks of {@code call.bytes()}, in rank order, into scratch at its leader; returns its last step. */
        int gatherLocally() {
            long[] blocks = uniform(localSize(), call.bytes());
            long all = call.bytes() * localSize();
            b.temp(all);
            return BinomialGather.emit(b, local, blocks, Blocks.offsets(blocks), 0, false, TEMP_BUFFER, 0, align(all),
                    ScheduleBuilder.NONE);
        }

        /**
         * Regular: the remote group gathers at its leader, which sends the whole to the root. V-form:
         * every remote rank sends its block to the root, which places each at its displacement.
         */
        void gather(boolean isRoot) {
            if (isRoot) {
                if (call.irregular()) {
                    for (int q = 0; q < remoteSize; q++) {
                        b.recv(remote(q), ACROSS, RECV_BUFFER, call.displs()[q], call.blocks()[q]);
                    }
                } else {
                    b.recv(remote(0), ACROSS, RECV_BUFFER, 0, call.bytes() * remoteSize);
                }
                return;
            }
            if (call.irregular()) {
                b.send(remote(call.root()), ACROSS, SEND_BUFFER, 0, call.bytes());
                return;
            }
            int gathered = gatherLocally();
            if (leader()) {
                b.send(remote(call.root()), ACROSS, TEMP_BUFFER, 0, call.bytes() * localSize(), gathered);
            }
        }

        /**
         * Regular: the root sends every block to the remote leader, which scatters them in its group.
         * V-form: the root sends each remote rank its block.
         */
        void scatter(boolean isRoot) {
            if (isRoot) {
                if (call.irregular()) {
                    for (int q = 0; q < remoteSize; q++) {
                        b.send(remote(q), ACROSS, SEND_BUFFER, call.displs()[q], call.blocks()[q]);
                    }
                } else {
                    b.send(remote(0), ACROSS, SEND_BUFFER, 0, call.bytes() * remoteSize);
                }
                return;
            }
            if (call.irregular()) {
                b.recv(remote(call.root()), ACROSS, RECV_BUFFER, 0, call.bytes());
                return;
            }
            long[] blocks = uniform(localSize(), call.bytes());
            long all = call.bytes() * localSize();
            b.temp(all);
            int got = leader() ? b.recv(remote(call.root()), ACROSS, TEMP_BUFFER, 0, all) : ScheduleBuilder.NONE;
            BinomialScatter.emit(b, local, blocks, Blocks.offsets(blocks), 0, false, TEMP_BUFFER, 0, align(all), got);
        }

        /**
         * Regular: each group gathers at its leader, the leaders swap, each broadcasts the other
         * group's blocks. V-form (each rank knows the remote blocks, not its own group's): every rank
         * sends its block to the remote leader, each leader broadcasts the blocks it got, packed, and
         * every rank places them.
         */
        void allgather() {
            if (!call.irregular()) {
                long theirs = call.bytes() * remoteSize;
                int got = swap(TEMP_BUFFER, 0, call.bytes() * localSize(), RECV_BUFFER, 0, theirs, gatherLocally());
                BinomialBcast.emit(b, out(), theirs, 0, RECV_BUFFER, 0, got);
                return;
            }
            long[] blocks = call.blocks();
            long[] packed = Blocks.offsets(blocks);
            long all = packed[remoteSize - 1] + blocks[remoteSize - 1];
            b.temp(all);
            b.send(remote(0), ACROSS, SEND_BUFFER, 0, call.bytes());
            Blocks.Steps got = new Blocks.Steps();
            if (leader()) {
                for (int q = 0; q < remoteSize; q++) {
                    got.add(b.recv(remote(q), ACROSS, TEMP_BUFFER, packed[q], blocks[q]));
                }
            }
            int have = BinomialBcast.emit(b, out(), all, 0, TEMP_BUFFER, 0, got.join(b, ScheduleBuilder.NONE));
            for (int q = 0; q < remoteSize; q++) {
                b.copy(RECV_BUFFER, call.displs()[q], TEMP_BUFFER, packed[q], blocks[q], have);
            }
        }

        /** Block q to remote rank q and block q from it, every pair at once (regular and v-form alike). */
        void alltoall() {
            for (int q = 0; q < remoteSize; q++) {
                b.recv(remote(q), ACROSS, RECV_BUFFER, call.displs()[q], call.blocks()[q]);
            }
            for (int q = 0; q < remoteSize; q++) {
                b.send(remote(q), ACROSS, SEND_BUFFER, call.sendDispls()[q], call.sendBlocks()[q]);
            }
        }
    }

    private static long[] uniform(int n, long bytes) {
        long[] blocks = new long[n];
        java.util.Arrays.fill(blocks, bytes);
        return blocks;
    }

    /** Scratch after {@code bytes} of a result, at an offset that keeps the algorithm's elements aligned. */
    private static long align(long bytes) {
        return (bytes + 15) & ~15L;
    }
}

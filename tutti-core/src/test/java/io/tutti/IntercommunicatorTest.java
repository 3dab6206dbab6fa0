package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Intercommunicators of uneven groups (ranks 0, 2, 4 against 1, 3 of five): creation from a split,
 * remote-rank messages, each collective with ROOT and PROC_NULL, merge and dup, the calls they lack;
 * and createGroup by some ranks only while the others go on with their own work.
 */
@Timeout(120)
class IntercommunicatorTest {
    private static final int N = 5;

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(100), body);
    }

    private static int[] parity(int p) {
        return IntStream.range(0, N).filter(r -> r % 2 == p).toArray();
    }

    @Test
    void unevenGroupsTalkAcrossAndRunEachCollective() {
        job(N, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                int colour = rank % 2;
                int[] mine = parity(colour);
                int[] theirs = parity(1 - colour);
                Communicator local = world.split(colour, rank);
                Intercommunicator inter = local.createIntercomm(0, rank == colour ? world : null, 1 - colour, 4);
                assertTrue(inter.isInter());
                assertEquals(mine.length, inter.size());
                assertEquals(rank / 2, inter.rank());
                assertEquals(theirs.length, inter.remoteSize());
                for (int j = 0; j < theirs.length; j++) {
                    assertEquals(theirs[j], inter.remoteWorldRank(j));
                }
                assertEquals(rank, inter.worldRank(inter.rank()), "worldRank names the local group");

                // every rank sends its world rank to each remote rank; each receives them from anyone
                for (int j = 0; j < theirs.length; j++) {
                    inter.isend(new int[] {rank}, 0, 1, j, 1).waitFor();
                }
                int[] from = new int[theirs.length];
                for (int j = 0; j < theirs.length; j++) {
                    int[] got = new int[1];
                    Status s = inter.recv(got, 0, 1, Communicator.ANY_SOURCE, 1);
                    assertEquals(theirs[s.source()], got[0], "the source is the sender's remote rank");
                    from[s.source()]++;
                }
                assertArrayEquals(IntStream.generate(() -> 1).limit(theirs.length).toArray(), from);
                assertThrows(TuttiException.InvalidArgument.class, () -> inter.send(new int[1], theirs.length, 1));

                boolean even = colour == 0;
                int last = (even ? mine : theirs).length - 1;
                int root = even ? (inter.rank() == last ? Intercommunicator.ROOT : Intercommunicator.PROC_NULL)
                        : last;
                boolean isRoot = root == Intercommunicator.ROOT;

                inter.barrier();
                long[] b = {isRoot ? 99 : -1};
                inter.bcast(b, root);
                assertEquals(even && !isRoot ? -1 : 99, b[0], "bcast");

                int[] sum = new int[1];
                inter.allreduce(new int[] {rank}, sum, ReduceOp.SUM);
                assertEquals(Arrays.stream(theirs).sum(), sum[0], "allreduce: the other group's sum");

                int[] all = new int[theirs.length];
                inter.allgather(new int[] {rank}, all);
                assertArrayEquals(theirs, all, "allgather");

                int[] gathered = new int[theirs.length];
                inter.gather(new int[] {rank * 3}, isRoot ? gathered : new int[0], root);
                assertArrayEquals(isRoot ? Arrays.stream(theirs).map(w -> 3 * w).toArray()
                        : new int[theirs.length], gathered, "gather, typed: a block per remote rank at the root");

                double[] blocks = IntStream.range(0, 2 * mine.length).asDoubleStream().toArray();
                double[] block = {-1, -1};
                inter.scatter(isRoot ? IntStream.range(0, 2 * theirs.length).asDoubleStream().toArray() : blocks,
                        block, 2, Datatype.DOUBLE, root);
                assertArrayEquals(even ? new double[] {-1, -1}
                        : new double[] {2 * inter.rank(), 2 * inter.rank() + 1}, block, "scatter");

                // a non-commutative user operation sees the remote group in its rank order
                long[] order = {-1};
                UserOp append = new UserOp() {
                    @Override
                    public void apply(MemorySegment inout, long inoutOffset, MemorySegment left, long leftOffset,
                                      long count, Datatype type) {
                        long right = inout.get(ValueLayout.JAVA_LONG_UNALIGNED, inoutOffset);
                        long shift = 1;
                        while (shift <= right) {
                            shift *= 10;
                        }
                        long l = left.get(ValueLayout.JAVA_LONG_UNALIGNED, leftOffset);
                        inout.set(ValueLayout.JAVA_LONG_UNALIGNED, inoutOffset, l * shift + right);
                    }

                    @Override
                    public boolean commutative() {
                        return false;
                    }
                };
                inter.reduce(new long[] {inter.rank() + 1}, order, 1, Datatype.LONG, append, root);
                long expected = 0;
                for (int j = 0; j < theirs.length; j++) {
                    expected = expected * 10 + j + 1;
                }
                assertEquals(isRoot ? expected : -1, order[0], "reduce in the remote group's rank order");

                MemorySegment out = MemorySegment.ofArray(IntStream.range(0, theirs.length).map(j -> 10 * rank + j)
                        .toArray());
                int[] in = new int[theirs.length];
                inter.alltoall(out, in, 1, Datatype.INT);
                for (int j = 0; j < theirs.length; j++) {
                    assertEquals(10 * theirs[j] + inter.rank(), in[j], "alltoall block " + j);
                }

                assertThrows(TuttiException.Unsupported.class, () -> inter.allreduce(sum, ReduceOp.SUM),
                        "no in-place collective on an intercommunicator");
                assertThrows(TuttiException.Unsupported.class, () -> inter.scan(sum, ReduceOp.SUM));
                assertThrows(TuttiException.Unsupported.class, () -> inter.iexscan(new int[1], sum, 1, Datatype.INT,
                        ReduceOp.SUM));
                assertThrows(TuttiException.Unsupported.class, () -> inter.split(0, 0));
                assertThrows(TuttiException.Unsupported.class, () -> inter.setAlgorithm("bcast", "binomial"));
                assertThrows(TuttiException.Unsupported.class, () -> inter.allocateWindow(8, 1));
                assertThrows(TuttiException.InvalidArgument.class, () -> inter.bcast(b, theirs.length));

                // merge: the odds low, so first; dup: the same groups, messages apart
                Communicator merged = inter.merge(even);
                assertEquals(N, merged.size());
                assertEquals(even ? theirs.length + rank / 2 : rank / 2, merged.rank());
                assertEquals(rank, merged.worldRank(merged.rank()));
                int[] total = {rank};
                merged.allreduce(total, ReduceOp.SUM);
                assertEquals(N * (N - 1) / 2, total[0]);
                Intercommunicator dup = inter.dup();
                assertEquals(theirs.length, dup.remoteSize());
                if (inter.rank() == 0) {
                    inter.send(new int[] {1}, 0, 1);
                    dup.send(new int[] {2}, 0, 1);
                    int[] got = new int[1];
                    dup.recv(got, 0, 1);
                    assertEquals(2, got[0]);
                    inter.recv(got, 0, 1);
                    assertEquals(1, got[0]);
                }
                TuttiException mixed = assertThrows(TuttiException.InvalidArgument.class,
                        () -> inter.merge(rank == 2));
                assertTrue(mixed.getMessage().contains(even ? "this group" : "remote group"), mixed.getMessage());
                world.barrier();
            }
        });
    }

    /**
     * One rank's bad argument fails its call there at once; the ranks of both groups that would wait
     * for it fail too instead of waiting for ever; the next calls work, nonblocking ones included.
     */
    @Test
    void oneRanksBadArgumentFailsTheCallEverywhereAndTheNextOneWorks() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                int colour = rank % 2;
                Communicator local = world.split(colour, rank);
                Intercommunicator inter = local.createIntercomm(0, world, 1 - colour, 6);
                int[] theirs = new int[2];
                // world rank 3 (the odds' second) gives a receive buffer too small for the other group's blocks
                TuttiException e = assertThrows(TuttiException.InvalidArgument.class,
                        () -> inter.allgather(new int[] {rank}, rank == 3 ? new int[1] : theirs, 1, Datatype.INT));
                assertTrue(rank == 3 ? e.getMessage().contains("receive buffer") : e.getMessage().contains("failed"),
                        e.getMessage());
                int[] sum = new int[1];
                inter.iallreduce(new int[] {rank}, sum, 1, Datatype.INT, ReduceOp.SUM).waitFor();
                assertEquals(colour == 0 ? 1 + 3 : 0 + 2, sum[0], "the next call, nonblocking, works");
                inter.allgather(new int[] {rank}, theirs, 1, Datatype.INT);
                assertArrayEquals(new int[] {1 - colour, 3 - colour}, theirs);
            }
        });
    }

    @Test
    void mismatchedTagsOrALeaderWithoutPeerFailBothGroups() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                int colour = rank % 2;
                Communicator local = world.split(colour, rank);
                TuttiException tags = assertThrows(TuttiException.InvalidArgument.class,
                        () -> local.createIntercomm(0, world, 1 - colour, 30 + colour));
                assertTrue(tags.getMessage().contains("different tags"), tags.getMessage());
                TuttiException noPeer = assertThrows(TuttiException.InvalidArgument.class,
                        () -> local.createIntercomm(0, null, 1 - colour, 5));
                assertTrue(noPeer.getMessage().contains("peer"), noPeer.getMessage());
                // after the failures, a good one still works
                Intercommunicator inter = local.createIntercomm(0, world, 1 - colour, 5);
                inter.barrier();
            }
        });
    }

    @Test
    void createGroupIsCalledByItsMembersOnly() {
        job(N, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                int[] members = {3, 1, 4};
                boolean member = rank == 1 || rank == 3 || rank == 4;
                if (member) {
                    Communicator g = world.createGroup(members, 8);
                    assertEquals(3, g.size());
                    assertEquals(rank == 3 ? 0 : rank == 1 ? 1 : 2, g.rank(), "the group's order");
                    int[] sum = {rank};
                    g.allreduce(sum, ReduceOp.SUM);
                    assertEquals(8, sum[0]);
                    TuttiException tag = assertThrows(TuttiException.InvalidArgument.class,
                            () -> world.createGroup(members, rank == 4 ? 9 : 8));
                    assertTrue(tag.getMessage().contains("rank 4 passed tag 9"), tag.getMessage());
                } else {
                    // the others are busy with messages among themselves meanwhile
                    int peer = rank == 0 ? 2 : 0;
                    int[] got = new int[1];
                    world.sendrecv(new int[] {rank}, 0, 1, peer, 3, got, 0, 1, peer, 3);
                    assertEquals(peer, got[0]);
                    assertThrows(TuttiException.InvalidArgument.class, () -> world.createGroup(members, 8),
                            "a rank not in the group does not call");
                }
                world.barrier();
            }
        });
    }
}

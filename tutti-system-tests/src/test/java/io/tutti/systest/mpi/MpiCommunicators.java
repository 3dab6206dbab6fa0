package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import mpi.Comm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Making communicators and groups: dup, iDup, clone, split (with keys, MPI.UNDEFINED), splitType,
 * create, createGroup of the whole group (MpiIntercomm has a part's), compare, free, names; every
 * Group call with its edge cases (empty groups, PROC_NULL, ranks not in the other group, bad ranks);
 * and the messages and collectives of the new communicators staying apart from their parent's.
 */
public final class MpiCommunicators {
    private MpiCommunicators() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        // dup: the same ranks, congruent, a message space of its own
        Intracomm dup = world.dup();
        equal(size, dup.getSize(), "dup's size");
        equal(rank, dup.getRank(), "dup's rank");
        equal(MPI.CONGRUENT, Comm.compare(world, dup), "world and its dup");
        equal(MPI.IDENT, Comm.compare(world, world), "world and world");
        equal(MPI.ERRORS_RETURN, dup.getErrhandler(), "dup takes the error handler");
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        world.send(new int[] {1}, 1, MPI.INT, next, 7);
        dup.send(new int[] {2}, 1, MPI.INT, next, 7);
        int[] got = new int[1];
        dup.recv(got, 1, MPI.INT, prev, 7);
        equal(2, got[0], "the dup's message, not the world's");
        Status s = world.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
        equal(1, got[0], "then the world's");
        equal(prev, s.getSource(), "from the previous rank");

        Intracomm idup = world.iDup();
        idup.getRequest().waitFor();
        equal(MPI.CONGRUENT, Comm.compare(world, idup), "world and its iDup");
        Intracomm cloned = dup.clone();
        equal(MPI.CONGRUENT, Comm.compare(dup, cloned), "a clone");
        equal(MPI.UNDEFINED, world.getTopology(), "no topology");
        that(!world.isInter(), "an intracommunicator");

        // split: by parity, keys reversing the order
        Intracomm parity = world.split(rank % 2, size - rank);
        int half = (size + 1 - rank % 2) / 2;
        equal(half, parity.getSize(), "size of my parity's communicator");
        equal((half - 1) - rank / 2, parity.getRank(), "rank by reversed key");
        int[] sum = {rank};
        parity.allReduce(sum, 1, MPI.INT, MPI.SUM);
        int expected = 0;
        for (int r = rank % 2; r < size; r += 2) {
            expected += r;
        }
        equal(expected, sum[0], "allReduce over my parity");
        Intracomm reversed = world.split(0, size - rank);
        equal(size - 1 - rank, reversed.getRank(), "reversed rank");
        equal(size == 1 ? MPI.CONGRUENT : MPI.SIMILAR, Comm.compare(world, reversed), "world and reversed");
        equal(size == 1 ? MPI.CONGRUENT : MPI.UNEQUAL, Comm.compare(world, MPI.COMM_SELF), "world and self");
        Intracomm some = world.split(rank == 0 ? 0 : MPI.UNDEFINED, 0);
        if (rank == 0) {
            equal(1, some.getSize(), "rank 0 alone");
        } else {
            that(some.isNull(), "MPI.UNDEFINED gives a null communicator");
            fails(MPI.ERR_COMM, "a call on a null communicator", some::getSize);
        }
        fails(MPI.ERR_ARG, "split with colour -5", () -> world.split(-5, 0));

        // splitType: the ranks on this host (tutti run starts them all here)
        Intracomm shared = world.splitType(Comm.TYPE_SHARED, rank, MPI.INFO_NULL);
        equal(size, shared.getSize(), "ranks on this host");
        equal(rank, shared.getRank(), "rank on this host");
        that(world.splitType(MPI.UNDEFINED, 0, MPI.INFO_NULL).isNull(), "splitType with MPI.UNDEFINED");
        fails(MPI.ERR_ARG, "splitType of type 9", () -> world.splitType(9, 0, MPI.INFO_NULL));

        // groups
        Group all = world.getGroup();
        equal(size, all.getSize(), "world group's size");
        equal(rank, all.getRank(), "world group's rank");
        int[] backwards = new int[size];
        for (int i = 0; i < size; i++) {
            backwards[i] = size - 1 - i;
        }
        Group back = all.incl(backwards);
        equal(size - 1 - rank, back.getRank(), "rank in the reversed group");
        equal(size == 1 ? MPI.IDENT : MPI.SIMILAR, Group.compare(all, back), "reversed group");
        equal(MPI.IDENT, Group.compare(back, reversed.getGroup()), "the reversed communicator's group");
        Group evens = all.rangeIncl(new int[][] {{0, size - 1, 2}});
        equal((size + 1) / 2, evens.getSize(), "even ranks");
        equal(rank % 2 == 0 ? rank / 2 : MPI.UNDEFINED, evens.getRank(), "my rank among the evens");
        Group odds = all.rangeExcl(new int[][] {{0, size - 1, 2}});
        equal(size / 2, odds.getSize(), "odd ranks");
        equal(size / 2, all.excl(evensOf(size)).getSize(), "excl of the evens");
        equal(MPI.IDENT, Group.compare(Group.union(evens, odds).incl(ranksOf(size)), Group.union(evens, odds)),
                "incl of every rank");
        equal(size <= 2 ? MPI.IDENT : MPI.SIMILAR, Group.compare(Group.union(evens, odds), all), "evens, then odds");
        equal(0, Group.intersection(evens, odds).getSize(), "evens and odds meet nowhere");
        equal(MPI.IDENT, Group.compare(Group.union(all, evens), all), "all and the evens");
        equal(MPI.IDENT, Group.compare(Group.intersection(all, evens), evens), "all meets the evens in the evens");
        equal(MPI.IDENT, Group.compare(Group.difference(all, odds), evens), "all but the odds");
        equal(MPI.UNEQUAL, Group.compare(evens, all), "evens and all");
        Group down = all.rangeIncl(new int[][] {{size - 1, 0, -1}});
        equal(MPI.IDENT, Group.compare(down, back), "a range going down");
        int[] t = Group.translateRanks(all, new int[] {0, MPI.PROC_NULL, size - 1}, evens);
        equal(0, t[0], "rank 0 among the evens");
        equal(MPI.PROC_NULL, t[1], "PROC_NULL stays");
        equal((size - 1) % 2 == 0 ? (size - 1) / 2 : MPI.UNDEFINED, t[2], "the last rank among the evens");
        equal(0, MPI.GROUP_EMPTY.getSize(), "the empty group");
        equal(MPI.UNDEFINED, MPI.GROUP_EMPTY.getRank(), "no rank in the empty group");
        equal(0, Group.intersection(all, MPI.GROUP_EMPTY).getSize(), "all and nothing");
        equal(0, all.incl(new int[0]).getSize(), "incl of no rank");
        fails(MPI.ERR_RANK, "incl of rank size", () -> all.incl(new int[] {size}));
        fails(MPI.ERR_RANK, "incl of a rank twice", () -> all.incl(new int[] {0, 0}));
        fails(MPI.ERR_RANK, "excl of rank -1", () -> all.excl(new int[] {-1}));
        fails(MPI.ERR_ARG, "a range of stride 0", () -> all.rangeIncl(new int[][] {{0, 0, 0}}));
        fails(MPI.ERR_RANK, "translating rank size", () -> Group.translateRanks(all, new int[] {size}, evens));
        fails(MPI.ERR_GROUP, "freeing GROUP_EMPTY", MPI.GROUP_EMPTY::free);
        Group gone = all.incl(new int[] {0});
        gone.free();
        that(gone.isNull(), "a freed group is null");
        fails(MPI.ERR_GROUP, "a freed group's size", gone::getSize);

        // create and createGroup
        Intracomm evenComm = world.create(evens);
        if (rank % 2 == 0) {
            equal(rank / 2, evenComm.getRank(), "rank among the evens' communicator");
            int[] n = {1};
            evenComm.allReduce(n, 1, MPI.INT, MPI.SUM);
            equal((size + 1) / 2, n[0], "allReduce among the evens");
        } else {
            that(evenComm.isNull(), "an odd rank is not in the evens' communicator");
        }
        Intracomm backComm = world.create(back);
        equal(size - 1 - rank, backComm.getRank(), "create keeps the group's order");
        Intracomm whole = world.createGroup(all, 5);
        equal(MPI.CONGRUENT, Comm.compare(world, whole), "createGroup of the whole group");
        fails(MPI.ERR_GROUP, "create with ranks not in the communicator", () -> parity.create(world.getGroup()));

        // names and free
        equal("MPI_COMM_WORLD", world.getName(), "the world's name");
        equal("MPI_COMM_SELF", MPI.COMM_SELF.getName(), "self's name");
        equal("", dup.getName(), "a new communicator's name");
        dup.setName("my dup");
        equal("my dup", dup.getName(), "the name set");
        dup.setName("x".repeat(100));
        equal(MPI.MAX_OBJECT_NAME - 1, dup.getName().length(), "a long name is cut");
        dup.free();
        that(dup.isNull(), "a freed communicator is null");
        fails(MPI.ERR_COMM, "a freed communicator's rank", dup::getRank);
        fails(MPI.ERR_COMM, "freeing it again", dup::free);
        fails(MPI.ERR_COMM, "freeing COMM_SELF", MPI.COMM_SELF::free);
        cloned.free();
        idup.free();

        System.out.println("rank " + rank + ": communicators ok");
        MPI.Finalize();
    }

    private static int[] evensOf(int size) {
        int[] e = new int[(size + 1) / 2];
        for (int i = 0; i < e.length; i++) {
            e[i] = 2 * i;
        }
        return e;
    }

    private static int[] ranksOf(int size) {
        int[] r = new int[size];
        for (int i = 0; i < size; i++) {
            r[i] = i;
        }
        return r;
    }
}

package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.that;

import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Dynamic processes as an Open MPI Java program spawns them: the job spawns two processes of this
 * class through {@code spawn("java", {options, class, arguments})}; they find their parents with
 * {@code Intercomm.getParent()} (the same object each time), take a bcast across (MPI.ROOT on the
 * parents' side), answer with a reduce back, and both sides merge for an allReduce. A program that
 * was not spawned has no parent. Every process prints "spawn ok".
 */
public final class MpiSpawn {
    private static final int CHILDREN = 2;

    private MpiSpawn() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intercomm parent = Intercomm.getParent();
        int rank = MPI.COMM_WORLD.getRank();
        if (parent == null) {
            parents(MPI.COMM_WORLD, rank);
        } else {
            that(parent == Intercomm.getParent(), "getParent gives the same object each time");
            child(parent, rank, args);
        }
        MPI.Finalize();
    }

    private static void parents(Intracomm world, int rank) throws MPIException {
        int[] errcodes = new int[CHILDREN];
        java.util.Arrays.fill(errcodes, -1);
        Intercomm kids = world.spawn("java", new String[] {"-cp", "ignored.jar", "-Xss1m", MpiSpawn.class.getName(),
            "child", "an argument"}, CHILDREN, MPI.INFO_NULL, 0, errcodes);
        equal(new int[] {MPI.SUCCESS, MPI.SUCCESS}, errcodes, "the error codes");
        equal(CHILDREN, kids.getRemoteSize(), "the remote group is the children");
        equal(world.getSize(), kids.getSize(), "the local group is the parents");
        int[] data = {rank == 0 ? 42 : -1};
        kids.bcast(data, 1, MPI.INT, rank == 0 ? MPI.ROOT : MPI.PROC_NULL);
        int[] sum = new int[1];
        kids.reduce(new int[1], sum, 1, MPI.INT, MPI.SUM, rank == 0 ? MPI.ROOT : MPI.PROC_NULL);
        if (rank == 0) {
            equal(CHILDREN * (CHILDREN + 1), sum[0], "the children's reduce: 1 + 2 + ... doubled");
        }
        Intracomm all = kids.merge(false);
        equal(rank, all.getRank(), "the parents come first after a low merge");
        mergedAllReduce(all);
        System.out.println("parent " + rank + ": spawn ok");
    }

    private static void child(Intercomm parent, int rank, String[] args) throws MPIException {
        equal(new String[] {"child", "an argument"}, args, "the arguments after the class");
        equal(CHILDREN, MPI.COMM_WORLD.getSize(), "the children's world");
        int[] data = new int[1];
        parent.bcast(data, 1, MPI.INT, 0);
        equal(42, data[0], "the parents' bcast");
        int[] mine = {2 * (rank + 1)};
        parent.reduce(mine, null, 1, MPI.INT, MPI.SUM, 0);
        Intracomm all = parent.merge(true);
        equal(parent.getRemoteSize() + rank, all.getRank(), "the children come after the parents");
        mergedAllReduce(all);
        System.out.println("child " + rank + ": spawn ok");
    }

    private static void mergedAllReduce(Intracomm all) throws MPIException {
        int[] one = {1};
        all.allReduce(one, 1, MPI.INT, MPI.SUM);
        equal(all.getSize(), one[0], "an allReduce over parents and children");
    }
}

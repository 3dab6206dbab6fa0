package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The errors of point-to-point as MPIExceptions with MPI's error classes: bad ranks, tags, counts,
 * types and buffers before anything is sent, and truncated messages (small, 1 MiB, and in
 * sendRecvReplace), after which both ranks go on.
 */
public final class MpiErrors {
    private MpiErrors() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Comm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        int[] ints = new int[3];

        fails(MPI.ERR_RANK, "send to rank size", () -> c.send(ints, 1, MPI.INT, size, 0));
        fails(MPI.ERR_RANK, "send to rank -3", () -> c.send(ints, 1, MPI.INT, -3, 0));
        fails(MPI.ERR_RANK, "recv from rank size + 1", () -> c.recv(ints, 1, MPI.INT, size + 1, 0));
        fails(MPI.ERR_RANK, "probe of rank -5", () -> c.probe(-5, 0));
        fails(MPI.ERR_TAG, "send with tag -1", () -> c.send(ints, 1, MPI.INT, rank, MPI.ANY_TAG));
        fails(MPI.ERR_TAG, "recv with tag -7", () -> c.recv(ints, 1, MPI.INT, rank, -7));
        fails(MPI.ERR_TAG, "iProbe with tag -2", () -> c.iProbe(rank, -2));
        fails(MPI.ERR_COUNT, "send of -1 items", () -> c.send(ints, -1, MPI.INT, rank, 0));
        fails(MPI.ERR_TYPE, "an int[] as MPI.DOUBLE", () -> c.send(ints, 1, MPI.DOUBLE, rank, 0));
        fails(MPI.ERR_TYPE, "a double[] as MPI.LONG", () -> c.recv(new double[2], 1, MPI.LONG, rank, 0));
        fails(MPI.ERR_TYPE, "MPI.DATATYPE_NULL", () -> c.send(ints, 1, MPI.DATATYPE_NULL, rank, 0));
        fails(MPI.ERR_BUFFER, "5 ints from an int[3]", () -> c.send(ints, 5, MPI.INT, rank, 0));
        fails(MPI.ERR_BUFFER, "3 ints from a slice of 2", () -> c.send(MPI.slice(ints, 1), 3, MPI.INT, rank, 0));
        fails(MPI.ERR_BUFFER, "5 doubles into a direct buffer of 4",
                () -> c.recv(MPI.newDoubleBuffer(4), 5, MPI.DOUBLE, rank, 0));
        fails(MPI.ERR_BUFFER, "a String as a buffer", () -> c.send("text", 4, MPI.CHAR, rank, 0));
        fails(MPI.ERR_BUFFER, "a null buffer of 1 item", () -> c.send(null, 1, MPI.INT, rank, 0));
        MPIException e = fails(MPI.ERR_RANK, "the code", () -> c.send(ints, 1, MPI.INT, size, 0));
        equal(e.getErrorClass(), e.getErrorCode(), "error code and class");

        int peer = rank ^ 1;
        if (peer < size) {
            int big = 1 << 20;
            if (rank % 2 == 0) {
                c.send(new int[10], 10, MPI.INT, peer, 1);
                c.send(MPI.newByteBuffer(big), big, MPI.BYTE, peer, 2);
                c.send(new long[] {5, 6, 7}, 3, MPI.LONG, peer, 3);
                c.sendRecvReplace(new long[] {1, 2, 3, 4}, 4, MPI.LONG, peer, 4, peer, 5);
            } else {
                int[] five = new int[5];
                fails(MPI.ERR_TRUNCATE, "10 ints into 5", () -> c.recv(five, 5, MPI.INT, peer, 1));
                fails(MPI.ERR_TRUNCATE, "1 MiB into half of it",
                        () -> c.recv(MPI.newByteBuffer(big / 2), big / 2, MPI.BYTE, peer, 2));
                long[] three = new long[3];
                equal(3, c.recv(three, 3, MPI.LONG, peer, 3).getCount(MPI.LONG), "a message after the truncations");
                equal(7L, three[2], "its content");
                long[] two = new long[2];
                fails(MPI.ERR_TRUNCATE, "sendRecvReplace receiving 4 longs into 2",
                        () -> c.sendRecvReplace(two, 2, MPI.LONG, peer, 5, peer, 4));
            }
            // both go on: a last exchange
            int[] token = {rank};
            c.sendRecvReplace(token, 1, MPI.INT, peer, 6, peer, 6);
            equal(peer, token[0], "an exchange after the errors");
        }
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": errors ok");
    }
}

package io.tutti.systest.mpi;

import mpi.MPI;
import mpi.MPIException;

/**
 * Errors under the default handler, MPI.ERRORS_ARE_FATAL: with argument "abort", the last rank
 * calls abort(3); otherwise it sends to a rank that does not exist. Either way the job ends, with
 * 3 or MPI.ERR_RANK, and a line naming the rank; no rank reaches its "not ended" line.
 */
public final class MpiFatal {
    private MpiFatal() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        if (rank == size - 1) {
            if (args.length > 0 && args[0].equals("abort")) {
                MPI.COMM_WORLD.abort(3);
            } else {
                MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, size, 0);
            }
            System.out.println("rank " + rank + ": not ended");
        }
        MPI.COMM_WORLD.barrier();
        System.out.println("rank " + rank + ": not ended");
        MPI.Finalize();
    }
}

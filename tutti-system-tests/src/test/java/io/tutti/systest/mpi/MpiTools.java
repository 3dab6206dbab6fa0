package io.tutti.systest.mpi;

import mpi.MPI;
import mpi.MPIException;

/** For the tools' test: prints what tutti-mpirun gave the rank (its -x variable, a -D property, its arguments). */
public final class MpiTools {
    private MpiTools() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        System.out.println("rank " + MPI.COMM_WORLD.getRank() + " of " + MPI.COMM_WORLD.getSize() + ": tools ok"
                + " x=" + System.getenv("MPI_TOOLS_X") + " d=" + System.getProperty("mpi.tools.d") + " args="
                + String.join(",", args));
        MPI.Finalize();
    }
}

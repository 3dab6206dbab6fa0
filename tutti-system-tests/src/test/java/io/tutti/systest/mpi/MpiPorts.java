package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * A client/server program as it is written for Open MPI's Java bindings: the world's first half
 * opens a port, publishes it under a service name and accepts; the second half looks the name up
 * and connects. A bcast goes each way over the intercommunicator (MPI.ROOT on the sending side),
 * both merge for an allReduce, then the server withdraws the name and closes the port. A name
 * published twice, an unknown name and a closed port fail with MPI_ERR_SERVICE, MPI_ERR_NAME and
 * MPI_ERR_PORT under MPI.ERRORS_RETURN. Every rank prints "ports ok".
 */
public final class MpiPorts {
    private MpiPorts() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        world.setErrhandler(MPI.ERRORS_RETURN);
        int rank = world.getRank();
        int half = world.getSize() / 2;
        boolean server = rank < half;
        Intracomm group = world.split(server ? 0 : 1, rank);
        group.setErrhandler(MPI.ERRORS_RETURN);
        String port = null;
        if (server && group.getRank() == 0) {
            port = Intracomm.openPort();
            Intracomm.publishName("ocean", port);
            String p = port;
            fails(MPI.ERR_SERVICE, "a name published twice", () -> Intracomm.publishName("ocean", MPI.INFO_NULL, p));
        }
        world.barrier();
        Intercomm other = server ? group.accept(port, 0)
                : group.connect(group.getRank() == 0 ? Intracomm.lookupName("ocean") : null, 0);
        equal(world.getSize() - group.getSize(), other.getRemoteSize(), "the remote group is the other half");
        // a bcast from each side's rank 0 to the other side
        for (int from = 0; from < 2; from++) {
            boolean sending = server == (from == 0);
            int[] data = {sending && group.getRank() == 0 ? 100 + from : -1};
            other.bcast(data, 1, MPI.INT, sending ? (group.getRank() == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
            if (!sending) {
                equal(100 + from, data[0], "the bcast from side " + from);
            }
        }
        Intracomm all = other.merge(!server);
        equal(rank, all.getRank(), "the accepting side comes first after the merge");
        int[] sum = new int[1];
        all.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
        int n = world.getSize();
        equal(n * (n - 1) / 2, sum[0], "the merged allReduce");
        if (server && group.getRank() == 0) {
            Intracomm.unpublishName("ocean", port);
            Intracomm.closePort(port);
        }
        world.barrier();
        fails(MPI.ERR_NAME, "a name withdrawn", () -> Intracomm.lookupName("ocean"));
        fails(MPI.ERR_SERVICE, "a name never published", () -> Intracomm.unpublishName("sea", "nowhere"));
        if (!server) {
            String closed = port == null ? "unknown" : port;
            MPIException e = fails(MPI.ERR_PORT, "a connect to a port never opened", () -> group.connect(closed, 0));
            that(e.getMessage().contains("no port"), "the error says why: " + e.getMessage());
        }
        System.out.println("rank " + rank + ": ports ok");
        MPI.Finalize();
    }
}

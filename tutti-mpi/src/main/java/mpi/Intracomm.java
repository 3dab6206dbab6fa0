package mpi;

/**
 * A communicator of one group of ranks, as {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are.
 * Its own calls (split, create, the scans, the topologies, ...) are later steps; what it has so far
 * it inherits from {@link Comm}.
 */
public class Intracomm extends Comm {
    Intracomm(String name) {
        super(name);
    }
}

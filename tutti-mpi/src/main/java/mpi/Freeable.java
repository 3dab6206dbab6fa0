package mpi;

/** An object that holds resources until it is freed ({@code free()}), as MPI's handles do. */
public interface Freeable {
    /** Releases what the object holds. */
    void free() throws MPIException;
}

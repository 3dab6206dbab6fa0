/**
 * The API of Open MPI 5.0's Java bindings ({@code import mpi.*}: {@link mpi.MPI}, {@link mpi.Comm},
 * {@link mpi.Intracomm}, {@link mpi.Group}, {@link mpi.CartComm}, {@link mpi.Datatype},
 * {@link mpi.Op}, {@link mpi.Status}, {@link mpi.MPIException}, ...) as a thin layer over
 * {@code io.tutti}, so that programs written for those bindings (or for MVAPICH2-J, which follows
 * them) compile unchanged and run on Tutti.
 *
 * <p>Its one job is translation: names, argument conventions, constants and error classes of the
 * bindings onto Tutti's own calls. It holds no communication logic of its own beyond what the API
 * asks for and Tutti has not (the {@code MPI.PROC_NULL} rank, the buffer of {@code bSend}, groups,
 * the packing of derived datatypes, topologies and their neighbourhood messages, error handlers,
 * attributes, the layouts of one-sided targets), and MPI-IO ({@link mpi.File}), which is positional
 * file I/O of its own, Tutti having none, with the shared file pointer in one of Tutti's windows.
 * What is there and what is not, with the reasons: {@code docs/guide/mpi-api.md}.
 *
 * <p>May import: {@code io.tutti} (the public API) only.
 */
package mpi;

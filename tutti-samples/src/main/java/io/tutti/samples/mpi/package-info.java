/**
 * Samples written for Open MPI's Java bindings (package {@code mpi}), as their users write them,
 * which run unchanged on Tutti through {@code tutti-mpijavac} and {@code tutti-mpirun}.
 *
 * <p>May import: {@code mpi} only (no {@code io.tutti} class at all).
 */
package io.tutti.samples.mpi;

/**
 * The point-to-point engine of one rank: matching with MPI's ordering, the eager and rendezvous
 * protocols over shared memory and the network transport, and progress; it also carries the
 * records of offloaded collectives and of windows across hosts to the endpoints registered for them.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.wire},
 * {@code io.tutti.transport}, {@code io.tutti.transport.shm}, {@code io.tutti.metrics}; never {@code io.tutti.bootstrap}.
 */
package io.tutti.p2p;

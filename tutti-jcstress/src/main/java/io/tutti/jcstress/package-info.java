/**
 * The memory-ordering tests (jcstress) of Tutti's lock-free structures: the inbound ring's claim,
 * commit, read, release and doorbell ({@code io.tutti.transport.shm.InboundRing}) and the offload
 * counters ({@code io.tutti.offload.Counter}, the offload area's shared counters, the engine's
 * arrival and progress threads), a window's passive lock and a dynamic window's region table
 * ({@code io.tutti.rma}). Each test checks the ordering one method documents, names it in
 * its class comment, and grades every outcome ACCEPTABLE or FORBIDDEN; {@link io.tutti.jcstress.RunAll}
 * runs them and fails the build on a forbidden or unknown outcome. They replace the hand-rolled
 * thread harnesses; single-threaded and cross-process tests stay with their classes in tutti-core.
 *
 * <p>May import: {@code io.tutti.transport.shm}, {@code io.tutti.offload}, {@code io.tutti.os}, {@code io.tutti.rma},
 * {@code io.tutti.coll.algo} (a program for the engine), {@code org.openjdk.jcstress}.
 */
package io.tutti.jcstress;

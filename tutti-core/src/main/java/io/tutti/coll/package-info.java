/**
 * Collectives of a communicator: the {@link io.tutti.coll.Selector} picks an algorithm, the
 * schedules it builds are cached and run by the {@link io.tutti.coll.HostExecutor} over
 * point-to-point messages, shared-memory slots or the in-network group.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.reduce},
 * {@code io.tutti.p2p}, {@code io.tutti.metrics} and the {@code coll} subpackages; never {@code io.tutti.transport} or
 * {@code io.tutti.bootstrap}.
 */
package io.tutti.coll;

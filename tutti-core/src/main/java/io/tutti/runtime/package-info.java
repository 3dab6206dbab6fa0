/**
 * One rank under the API: wires the job's {@code bootstrap.Node}, the point-to-point engine, the
 * collectives and the software NIC behind {@link io.tutti.Tutti} and {@link io.tutti.Communicator},
 * from the settings read once at init. Found by {@code Tutti.init} with {@link java.util.ServiceLoader}
 * ({@link io.tutti.runtime.RankProvider}); {@link io.tutti.runtime.Rank#of} gives harnesses the engine.
 *
 * <p>May import: anything in tutti-core; nothing imports it.
 */
package io.tutti.runtime;

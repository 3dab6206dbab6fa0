/**
 * The software NIC: persistent collectives compiled to deferred work on counters (the water tank
 * of [water-tank], the NIC reduction tree of [NIC-reduce]) by {@link io.tutti.offload.OffloadCompiler}
 * and run by the offload engine, with the shared-memory offload area of a node.
 * {@link io.tutti.offload.OffloadPlans} chooses what each offloaded collective is compiled from,
 * with the schemes of {@link io.tutti.offload.OffloadConfig}.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.reduce},
 * {@code io.tutti.p2p}, {@code io.tutti.coll.schedule}, {@code io.tutti.coll.algo}, {@code io.tutti.metrics} (its
 * counters).
 */
package io.tutti.offload;

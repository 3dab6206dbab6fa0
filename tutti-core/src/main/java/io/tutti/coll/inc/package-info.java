/**
 * The in-network allreduce of a communicator: its group on the aggregation switches
 * ({@link io.tutti.coll.inc.InNetworkGroup}) and the port a switch client implements
 * ({@link io.tutti.coll.inc.InNetworkAggregation}, module {@code tutti-switch}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.p2p}, {@code io.tutti.metrics} (the names of what a
 * switch client counts).
 */
package io.tutti.coll.inc;

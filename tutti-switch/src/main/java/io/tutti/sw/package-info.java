/**
 * In-network aggregation: the switch process ({@link io.tutti.sw.SwitchServer} around the packet
 * logic of {@link io.tutti.sw.AggregationSwitch}) and the leaders' client of it
 * ({@link io.tutti.sw.IncClient}, plugged into the collectives through
 * {@link io.tutti.coll.inc.InNetworkAggregation}), and who may use a switch: the key both sides tag
 * their control packets with ({@link io.tutti.sw.IncKey}). The packet logic has no socket and no
 * clock of its own, so the simulator (module {@code tutti-sim}) drives the same class in simulated
 * time, its leaders writing their requests with {@link io.tutti.sw.ControlPacket} and pacing their
 * packets with the client's own window ({@link io.tutti.sw.IncWindow}, which has no clock either);
 * nothing here imports the simulator.
 */
package io.tutti.sw;

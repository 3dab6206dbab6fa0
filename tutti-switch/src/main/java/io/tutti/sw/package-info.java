/**
 * In-network aggregation: the switch process ({@link io.tutti.sw.SwitchServer} around the packet
 * logic of {@link io.tutti.sw.AggregationSwitch}) and the leaders' client of it
 * ({@link io.tutti.sw.IncClient}, plugged into the collectives through
 * {@link io.tutti.coll.inc.InNetworkAggregation}), and who may use a switch: the key both sides tag
 * their control packets with ({@link io.tutti.sw.IncKey}).
 */
package io.tutti.sw;

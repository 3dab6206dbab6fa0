/**
 * The discrete-event simulator: rank models (host schedules, NIC offload programs, switch
 * aggregation) over network models (LogGP, packets over a fabric), driven by an event loop, and the
 * experiments that compare it with published tables ([NIC-reduce], [RoCE-INC]). Model parameters
 * are one record, {@link io.tutti.sim.SimParams}; results are written as JSON lines (jackson-core),
 * CSV and XChart plots.
 *
 * <p>May import: {@code io.tutti.coll} (the selector), {@code io.tutti.coll.schedule} (the schedules
 * it runs), {@code io.tutti.offload} (the NIC programs), {@code io.tutti.reduce} (the offload ALU),
 * {@code io.tutti.rails} (the striping policy the network transport uses), {@code io.tutti.sw}'s
 * packet logic ({@link io.tutti.sw.AggregationSwitch}, which switch mode drives in simulated time) and
 * {@code io.tutti.wire} (its packet layout), {@code io.tutti.coll.inc} (a leader's membership). Nothing
 * of the p2p engine, transports, bootstrap or the switch's sockets: it simulates, it does not
 * communicate.
 */
package io.tutti.sim;

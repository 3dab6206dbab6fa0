/**
 * The schedule language: one rank's part of a collective as a DAG of steps over three buffers
 * ({@link io.tutti.coll.schedule.Schedule}, built with {@link io.tutti.coll.schedule.ScheduleBuilder}),
 * and what a call asks for ({@link io.tutti.coll.schedule.CollectiveCall}) and where its ranks run
 * ({@link io.tutti.coll.schedule.Topology}). Plain data: the host executor, the offload compiler and
 * the simulator run the same objects.
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.coll.schedule;

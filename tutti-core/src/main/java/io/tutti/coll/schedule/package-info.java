/**
 * The schedule language: one rank's part of a collective as a DAG of steps over three buffers
 * ({@link io.tutti.coll.schedule.Schedule}, built with {@link io.tutti.coll.schedule.ScheduleBuilder}; both
 * read as {@link io.tutti.coll.schedule.ScheduleSteps}),
 * the ranks an algorithm runs over ({@link io.tutti.coll.schedule.Group}), what a call asks for
 * ({@link io.tutti.coll.schedule.CollectiveCall}) and where its ranks run
 * ({@link io.tutti.coll.schedule.Topology}). Plain data: the host executor, the offload compiler and
 * the simulator run the same objects.
 *
 * <p>May import: {@code io.tutti}, and the shared-memory slot size of {@code io.tutti.coll.slots}.
 */
package io.tutti.coll.schedule;

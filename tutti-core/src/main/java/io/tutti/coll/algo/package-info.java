/**
 * The collective algorithms, one file each, every one a {@link io.tutti.coll.algo.ScheduleAlgorithm}:
 * its operation, its name in settings, whether it can serve a call, and how it lays out one rank's
 * schedule on a group of ranks, with its cost and tags in the class comment. Algorithms compose on
 * parts of a communicator (the leader schedules of {@link io.tutti.coll.algo.HierarchicalSchedules},
 * reduce-bcast, the tree barrier, and an intercommunicator's schedules in
 * {@link io.tutti.coll.algo.InterSchedules}); {@link io.tutti.coll.algo.Blocks} holds their shared arithmetic.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.coll.schedule}, and the shared-memory slot size of
 * {@code io.tutti.coll.slots}.
 */
package io.tutti.coll.algo;

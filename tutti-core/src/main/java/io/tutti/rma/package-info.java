/**
 * One-sided communication: the windows of {@link io.tutti.Window} over shared memory, where every
 * rank of a window maps its peers' window areas and puts, gets and accumulates into them without
 * the target's CPU; the epochs' shared state and its lock words ({@link io.tutti.rma.WindowArea});
 * and, to ranks on other hosts, the same operations as RMA records that the target's progress
 * applies ({@code RemoteAccess}, {@code RmaWire}), small ones packed many to a record ({@code RmaBatch}),
 * the replies of gets and fetching operations matched by number ({@link io.tutti.rma.ReplyTable}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.reduce}, {@code io.tutti.p2p}
 * (the engine's shared files and waits); never {@code io.tutti.bootstrap} or {@code io.tutti.coll}.
 */
package io.tutti.rma;

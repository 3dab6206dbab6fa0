/**
 * The API a program uses: {@link io.tutti.Tutti} joins a job and {@link io.tutti.Communicator}
 * sends, receives and runs collectives, and creates the {@link io.tutti.Window}s of one-sided
 * communication, with the vocabulary around them ({@link io.tutti.AccumulateOp},
 * {@link io.tutti.Datatype}, {@link io.tutti.ReduceOp}, {@link io.tutti.UserOp}, {@link io.tutti.Request},
 * {@link io.tutti.Status}, {@link io.tutti.TuttiException}, the job's settings in
 * {@link io.tutti.Config}).
 *
 * <p>May import: nothing of Tutti but {@code io.tutti.idle}. Every other package imports this one.
 */
package io.tutti;

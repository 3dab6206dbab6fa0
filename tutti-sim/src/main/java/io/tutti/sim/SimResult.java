package io.tutti.sim;

/**
 * What one simulated collective took.
 *
 * @param completionNs the seed's completion time: all ranks start at t0 = 0, until the last one
 *                     finishes its last step (ns)
 * @param finishNs     per rank, when it finished its last step (ns; 0 for a rank without steps)
 * @param events       events the engine handled
 * @param messages     messages sent (each was received exactly once, or the run fails)
 * @param bytes        bytes sent over all messages
 * @param steps        steps executed over all ranks
 */
public record SimResult(long completionNs, long[] finishNs, long events, long messages, long bytes, long steps) {
}

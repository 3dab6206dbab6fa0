package io.tutti;

/**
 * Where a persistent collective runs: {@link #HOST}, the schedule executed by the rank's own
 * thread as it waits or tests; {@link #NIC}, a deferred-work program (counters and triggered
 * operations) executed by the offload engine, the software NIC, which the progress agent drives
 * without the application thread (set {@code TUTTI_PROGRESS_THREAD=true} for that; without an
 * agent, waits and tests drive it).
 */
public enum Offload {
    HOST,
    NIC
}

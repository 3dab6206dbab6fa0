package io.tutti.metrics;

import io.tutti.Config;

/**
 * Settings of the counters, read once from the job's {@link Config}: the property name
 * ({@code tutti.counters}, or {@code TUTTI_COUNTERS} in the environment) and its default here.
 * docs/guide/configuration.md lists it.
 *
 * @param enabled count messages, collectives, rails, errors and blocked calls in the rank's
 *                counters file, for {@code tutti status} and {@code Tutti.metrics()}, and emit the
 *                flight-recorder events of collectives, large messages and peer failures
 */
public record CountersConfig(boolean enabled) {
    public static final String ENABLED = "tutti.counters";
    /**
     * On by default: a count is a load and a release store of a line only this rank writes; the
     * switch exists to measure what that costs (8 B latency, np 4 allreduce) against none.
     */
    public static final boolean ENABLED_DEFAULT = true;

    /** The counters' settings of a job. */
    public static CountersConfig from(Config c) {
        return new CountersConfig(c.bool(ENABLED, ENABLED_DEFAULT));
    }
}

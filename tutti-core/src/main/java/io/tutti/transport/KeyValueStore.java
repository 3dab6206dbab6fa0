package io.tutti.transport;

import java.util.concurrent.TimeoutException;

/**
 * The rendezvous through which ranks exchange endpoint information at start-up. A key belongs to
 * the rank that put it, as in PMI and PMIx, whose key-value spaces are read per source rank: a rank
 * puts its own keys and reads another's by naming that rank.
 */
public interface KeyValueStore {
    /** Publishes this rank's value under {@code key}; a rank writes a key once. */
    void put(String key, String value);

    /** Waits for the value {@code rank} published under {@code key} and returns it. */
    String get(int rank, String key) throws TimeoutException;

    /** Returns once every rank has called fence as many times as this one. */
    void fence() throws TimeoutException;

    /**
     * Whether every rank of the job has finished starting, as far as this store can tell: the
     * launcher's rendezvous says so once all have; a store that cannot tell says true.
     */
    default boolean jobStarted() {
        return true;
    }
}

package io.tutti.transport;

import java.util.concurrent.TimeoutException;

/** The rendezvous through which ranks exchange endpoint information at start-up. */
public interface KeyValueStore {
    /** Publishes a value; a key is written once. */
    void put(String key, String value);

    /** Waits for a key to be published and returns its value. */
    String get(String key) throws TimeoutException;

    /** Returns once every rank has called fence as many times as this one. */
    void fence() throws TimeoutException;
}

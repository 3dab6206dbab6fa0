package io.tutti.transport;

import java.util.Map;

/**
 * Creates the {@link RemoteTransport} of a rank. Found with {@link java.util.ServiceLoader}, so
 * that the network rails (module {@code tutti-net}) plug into the engine without the engine
 * depending on them.
 */
public interface RemoteTransportProvider {
    /** The name that {@code TUTTI_NET_PROVIDER} selects this provider by. */
    String name();

    /**
     * Opens the transport of one rank and publishes its addresses in the context's key-value
     * store. Called by every rank that has remote peers during start-up; the engine then fences and
     * calls {@link RemoteTransport#connect()}.
     */
    RemoteTransport open(Context context);

    /**
     * What a transport is opened with.
     *
     * @param rank      this rank (world)
     * @param size      ranks in the job
     * @param remote    per rank, whether it is reached through this transport
     * @param wireJobId the job id every packet carries
     * @param secret    the job secret that authenticates first contact (may be empty when the
     *                  launcher handed none over)
     * @param host      the name of this rank's host
     * @param kvs       the start-up key-value store
     * @param settings  the environment and system properties ({@code TUTTI_*} / {@code tutti.*})
     * @param jobDir    this host's directory of the job
     * @param facing    this host's address toward the job's other hosts, as the start-up found it, or
     *                  null: what a transport uses when no interface is named
     * @param deathsReported whether the job's launcher reports a rank's death to the others
     *                  ({@link Fabric#reportedFailure}), so the transport's own silence bound only has
     *                  to catch what no launcher sees
     */
    record Context(int rank, int size, boolean[] remote, int wireJobId, byte[] secret, String host,
                   KeyValueStore kvs, Map<String, String> settings, java.nio.file.Path jobDir, String facing,
                   boolean deathsReported) {
        /** A context whose launcher does not report deaths. */
        public Context(int rank, int size, boolean[] remote, int wireJobId, byte[] secret, String host,
                       KeyValueStore kvs, Map<String, String> settings, java.nio.file.Path jobDir, String facing) {
            this(rank, size, remote, wireJobId, secret, host, kvs, settings, jobDir, facing, false);
        }

        /** A context with no address toward other hosts known. */
        public Context(int rank, int size, boolean[] remote, int wireJobId, byte[] secret, String host,
                       KeyValueStore kvs, Map<String, String> settings, java.nio.file.Path jobDir) {
            this(rank, size, remote, wireJobId, secret, host, kvs, settings, jobDir, null);
        }

        /**
         * Publishes a value under a key of this rank and transport; read with {@link #get}.
         */
        public void put(String name, String value) {
            kvs.put("transport-" + name, value);
        }

        /** Reads what rank {@code r} published under {@code name}. */
        public String get(String name, int r) throws java.util.concurrent.TimeoutException {
            return kvs.get(r, "transport-" + name);
        }
    }
}

package io.tutti;

import java.util.Map;
import java.util.Properties;

/**
 * Settings of the point-to-point engine. Each value comes from, in rising priority: the default
 * here, the environment ({@code TUTTI_EAGER_LIMIT}), a system property ({@code tutti.eager.limit}).
 * The README's configuration table lists them all.
 *
 * @param eagerLimit        largest message sent eagerly through the receiver's inbound ring (bytes)
 * @param ringCapacity      data capacity of each rank's inbound ring (bytes, power of two)
 * @param exchangeChunk     chunk size of the pairwise data-exchange rings (bytes, multiple of 64)
 * @param exchangeSlots     chunks per data-exchange ring
 * @param singleCopy        copy large messages once, process to process, where the OS allows it
 * @param spinTries         progress polls before a blocked rank starts yielding its core; -1 = automatic
 *                          (2000 when every local rank has a core of its own, 20 when oversubscribed)
 * @param yieldTries        yields before it starts parking; -1 = automatic (200 when every local rank has a
 *                          core of its own, 5000 when oversubscribed)
 * @param maxParkMicros     longest park of a blocked rank, in microseconds
 * @param livenessMillis    how often a blocked rank checks that its peers are alive
 * @param rendezvousSeconds how long start-up waits for every rank to arrive
 * @param progressThread    run a progress agent thread per rank, so that nonblocking and persistent
 *                          operations advance while the application computes
 * @param transport         {@code auto}: shared memory between ranks of one host, the network between
 *                          hosts; {@code net}: the network between every pair of ranks (benchmarks, tests)
 * @param netProvider       which network transport to use when several are installed (empty: the first)
 * @param idleSleep         when ranks outnumber cores, a blocked rank sleeps until a message wakes it
 *                          (a futex on its ring) instead of parking for fixed periods
 */
public record Config(int eagerLimit, int ringCapacity, int exchangeChunk, int exchangeSlots, boolean singleCopy,
                     int spinTries, int yieldTries, int maxParkMicros, int livenessMillis, int rendezvousSeconds,
                     boolean progressThread, String transport, String netProvider, boolean idleSleep) {

    public static final String EAGER_LIMIT = "tutti.eager.limit";
    public static final int EAGER_LIMIT_DEFAULT = 32 * 1024;
    public static final String RING_CAPACITY = "tutti.shm.ring.capacity";
    public static final int RING_CAPACITY_DEFAULT = 1 << 20;
    public static final String EXCHANGE_CHUNK = "tutti.shm.exchange.chunk";
    public static final int EXCHANGE_CHUNK_DEFAULT = 64 * 1024;
    public static final String EXCHANGE_SLOTS = "tutti.shm.exchange.slots";
    public static final int EXCHANGE_SLOTS_DEFAULT = 8;
    public static final String SINGLE_COPY = "tutti.shm.single.copy";
    /**
     * Off by default: measured on the reference machine (a KVM guest), the kernel's cross-process
     * copy ran at 10.5 GB/s and 98 us per MiB against 14.9 GB/s and 36 us for the pipelined two-copy
     * path (docs/perf/p2p.md).
     */
    public static final boolean SINGLE_COPY_DEFAULT = false;
    public static final String SPIN_TRIES = "tutti.idle.spin";
    public static final int SPIN_TRIES_DEFAULT = -1;
    public static final String YIELD_TRIES = "tutti.idle.yield";
    /**
     * Automatic: ranks that outnumber the cores yield for about 2 ms (5000 yields of ~0.5 µs) before
     * they park, because a park sleeps at least 16-73 µs here while the peer's answer is usually
     * one yield away (docs/perf/collectives.md).
     */
    public static final int YIELD_TRIES_DEFAULT = -1;
    public static final String MAX_PARK_MICROS = "tutti.idle.park.max.us";
    public static final int MAX_PARK_MICROS_DEFAULT = 200;
    public static final String LIVENESS_MILLIS = "tutti.liveness.ms";
    public static final int LIVENESS_MILLIS_DEFAULT = 100;
    public static final String RENDEZVOUS_SECONDS = "tutti.rendezvous.timeout.s";
    public static final int RENDEZVOUS_SECONDS_DEFAULT = 60;
    public static final String PROGRESS_THREAD = "tutti.progress.thread";
    /**
     * Off by default, as in MPICH (MPIR_CVAR_ASYNC_PROGRESS): the agent costs a lock on every call
     * and a thread that competes for cores; it pays off when ranks overlap long computation with
     * nonblocking collectives and have a core to spare.
     */
    public static final boolean PROGRESS_THREAD_DEFAULT = false;
    public static final String TRANSPORT = "tutti.transport";
    public static final String TRANSPORT_DEFAULT = "auto";
    public static final String NET_PROVIDER = "tutti.net.provider";
    public static final String NET_PROVIDER_DEFAULT = "";
    public static final String IDLE_SLEEP = "tutti.idle.sleep";
    public static final boolean IDLE_SLEEP_DEFAULT = true;

    public Config {
        if (ringCapacity < 4096 || Integer.bitCount(ringCapacity) != 1) {
            throw new TuttiException.InvalidArgument(RING_CAPACITY + " must be a power of two >= 4096, got "
                    + ringCapacity);
        }
        if (eagerLimit < 0 || eagerLimit > ringCapacity / 4 - 256) {
            throw new TuttiException.InvalidArgument(EAGER_LIMIT + " must be between 0 and a quarter of "
                    + RING_CAPACITY + " less 256 (" + (ringCapacity / 4 - 256) + "), got " + eagerLimit);
        }
        if (exchangeChunk < 4096 || exchangeChunk % 64 != 0) {
            throw new TuttiException.InvalidArgument(EXCHANGE_CHUNK + " must be a multiple of 64 >= 4096, got "
                    + exchangeChunk);
        }
        if (exchangeSlots < 2) {
            throw new TuttiException.InvalidArgument(EXCHANGE_SLOTS + " must be >= 2, got " + exchangeSlots);
        }
        if (spinTries < -1 || yieldTries < -1 || maxParkMicros < 1 || livenessMillis < 1 || rendezvousSeconds < 1) {
            throw new TuttiException.InvalidArgument("idle, liveness and rendezvous settings must be positive");
        }
        if (!transport.equals("auto") && !transport.equals("net")) {
            throw new TuttiException.InvalidArgument(TRANSPORT + " (or " + envName(TRANSPORT) + ") must be auto or net,"
                    + " got '" + transport + "'");
        }
    }

    /** Whether ranks of one host talk over the network too. */
    public boolean forceNetwork() {
        return transport.equals("net");
    }

    /** Defaults only. */
    public static Config defaults() {
        return from(Map.of(), new Properties());
    }

    /** Defaults, then the given environment, then the given properties. */
    public static Config from(Map<String, String> env, Properties props) {
        return new Config(
                integer(env, props, EAGER_LIMIT, EAGER_LIMIT_DEFAULT),
                integer(env, props, RING_CAPACITY, RING_CAPACITY_DEFAULT),
                integer(env, props, EXCHANGE_CHUNK, EXCHANGE_CHUNK_DEFAULT),
                integer(env, props, EXCHANGE_SLOTS, EXCHANGE_SLOTS_DEFAULT),
                bool(env, props, SINGLE_COPY, SINGLE_COPY_DEFAULT),
                integer(env, props, SPIN_TRIES, SPIN_TRIES_DEFAULT),
                integer(env, props, YIELD_TRIES, YIELD_TRIES_DEFAULT),
                integer(env, props, MAX_PARK_MICROS, MAX_PARK_MICROS_DEFAULT),
                integer(env, props, LIVENESS_MILLIS, LIVENESS_MILLIS_DEFAULT),
                integer(env, props, RENDEZVOUS_SECONDS, RENDEZVOUS_SECONDS_DEFAULT),
                bool(env, props, PROGRESS_THREAD, PROGRESS_THREAD_DEFAULT),
                text(env, props, TRANSPORT, TRANSPORT_DEFAULT).toLowerCase(java.util.Locale.ROOT),
                text(env, props, NET_PROVIDER, NET_PROVIDER_DEFAULT),
                bool(env, props, IDLE_SLEEP, IDLE_SLEEP_DEFAULT));
    }

    /** The environment variable for a property: {@code tutti.eager.limit} is {@code TUTTI_EAGER_LIMIT}. */
    public static String envName(String property) {
        return property.toUpperCase(java.util.Locale.ROOT).replace('.', '_');
    }

    private static String raw(Map<String, String> env, Properties props, String name) {
        String v = props.getProperty(name);
        return v != null ? v : env.get(envName(name));
    }

    private static String text(Map<String, String> env, Properties props, String name, String fallback) {
        String v = raw(env, props, name);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static int integer(Map<String, String> env, Properties props, String name, int fallback) {
        String v = raw(env, props, name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return parseSize(v.trim());
        } catch (NumberFormatException e) {
            throw new TuttiException.InvalidArgument(name + " (or " + envName(name) + ") must be a whole number"
                    + " (suffixes k, m allowed), got '" + v + "'");
        }
    }

    private static boolean bool(Map<String, String> env, Properties props, String name, boolean fallback) {
        String v = raw(env, props, name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new TuttiException.InvalidArgument(name + " (or " + envName(name)
                    + ") must be true or false, got '" + v + "'");
        };
    }

    static int parseSize(String v) {
        char last = Character.toLowerCase(v.charAt(v.length() - 1));
        long mult = switch (last) {
            case 'k' -> 1024;
            case 'm' -> 1024 * 1024;
            default -> 1;
        };
        String digits = mult == 1 ? v : v.substring(0, v.length() - 1);
        long value = Long.parseLong(digits) * mult;
        if (value > Integer.MAX_VALUE) {
            throw new NumberFormatException(v);
        }
        return (int) value;
    }

    /** The spin budget for {@code localRanks} ranks sharing this machine's cores. */
    public int effectiveSpinTries(int localRanks) {
        if (spinTries >= 0) {
            return spinTries;
        }
        return localRanks <= Runtime.getRuntime().availableProcessors() ? 20_000 : 20;
    }

    /** The yield budget for {@code localRanks} ranks sharing this machine's cores. */
    public int effectiveYieldTries(int localRanks) {
        if (yieldTries >= 0) {
            return yieldTries;
        }
        return localRanks <= Runtime.getRuntime().availableProcessors() ? 200 : 5000;
    }

    /** A copy with another eager limit. */
    public Config withEagerLimit(int limit) {
        return new Config(limit, ringCapacity, exchangeChunk, exchangeSlots, singleCopy, spinTries, yieldTries,
                maxParkMicros, livenessMillis, rendezvousSeconds, progressThread, transport, netProvider, idleSleep);
    }

    /** A copy with single copy switched on or off. */
    public Config withSingleCopy(boolean on) {
        return new Config(eagerLimit, ringCapacity, exchangeChunk, exchangeSlots, on, spinTries, yieldTries,
                maxParkMicros, livenessMillis, rendezvousSeconds, progressThread, transport, netProvider, idleSleep);
    }

    /** A copy with the progress agent on or off. */
    public Config withProgressThread(boolean on) {
        return new Config(eagerLimit, ringCapacity, exchangeChunk, exchangeSlots, singleCopy, spinTries, yieldTries,
                maxParkMicros, livenessMillis, rendezvousSeconds, on, transport, netProvider, idleSleep);
    }
}

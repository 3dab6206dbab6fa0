package io.tutti.p2p;

import io.tutti.Config;
import io.tutti.TuttiException;


/**
 * Settings of the point-to-point engine, read once from the job's {@link Config}: each a property
 * name ({@code tutti.eager.limit}, or {@code TUTTI_EAGER_LIMIT} in the environment) and its default
 * here. docs/guide/configuration.md lists them all.
 *
 * @param eagerLimit        largest message sent eagerly through the receiver's inbound ring, between ranks
 *                          that share memory (bytes)
 * @param netEagerLimit     largest message sent eagerly to a rank over the network (bytes; the network's
 *                          record length caps it too)
 * @param ringCapacity      data capacity of each rank's inbound ring (bytes, power of two)
 * @param exchangeChunk     chunk size of the pairwise data-exchange rings (bytes, multiple of 64)
 * @param exchangeSlots     chunks per data-exchange ring
 * @param singleCopy        copy large messages once, process to process, where the OS allows it
 * @param spinTries         progress polls before a blocked rank starts yielding its core; -1 = automatic
 *                          (20,000 when every local rank has a core of its own, 20 when oversubscribed:
 *                          {@link io.tutti.idle.Idle#blocked})
 * @param spinMicros        with a core per local rank, the least time a blocked rank spins before it yields
 * @param yieldTries        yields before it starts parking; -1 = automatic (200 when every local rank has a
 *                          core of its own, 5,000 when oversubscribed)
 * @param maxParkMicros     longest park of a blocked rank's doubling, in microseconds
 * @param longParkMicros    longest park of a blocked rank whose wait goes on, in microseconds: past
 *                          {@code maxParkMicros} each park is an eighth longer than the one before
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
public record P2pConfig(int eagerLimit, int netEagerLimit, int ringCapacity, int exchangeChunk, int exchangeSlots, boolean singleCopy,
                     int spinTries, int spinMicros, int yieldTries, int maxParkMicros, int longParkMicros, int livenessMillis, int rendezvousSeconds,
                     boolean progressThread, String transport, String netProvider, boolean idleSleep) {

    public static final String EAGER_LIMIT = "tutti.eager.limit";
    /**
     * Beside Open MPI's two-copy path, a 16 KiB limit took 32 KiB bandwidth from 0.68x to 1.18x and
     * latency from 0.69x to 0.81x, with 16 KiB unchanged (docs/perf/p2p.md, "16 KiB").
     */
    public static final int EAGER_LIMIT_DEFAULT = 16 * 1024;
    public static final String NET_EAGER_LIMIT = "tutti.net.eager.limit";
    /**
     * Over the rails the rendezvous's round trip costs more than the copy: a 32 KiB message took
     * 20.2 us by rendezvous against 15.2 us eager (docs/perf/p2p.md, "Over the rails").
     */
    public static final int NET_EAGER_LIMIT_DEFAULT = 32 * 1024;
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
    public static final String SPIN_MICROS = "tutti.idle.spin.us";
    /**
     * With another process taking a core, a rank that parked after the 20,000 polls (about 1 ms)
     * got its core back only scheduler slices later, on every wait: 1 MiB bandwidth fell to 0.06x
     * Open MPI's. Spinning SPIN_MICROS first keeps it (docs/perf/contention.md).
     */
    public static final int SPIN_MICROS_DEFAULT = 20_000;
    public static final String YIELD_TRIES = "tutti.idle.yield";
    /** Automatic: {@link io.tutti.idle.Idle#blocked} decides, with the measurements behind it. */
    public static final int YIELD_TRIES_DEFAULT = -1;
    public static final String MAX_PARK_MICROS = "tutti.idle.park.max.us";
    public static final int MAX_PARK_MICROS_DEFAULT = 200;
    public static final String LONG_PARK_MICROS = "tutti.idle.park.long.us";
    /**
     * 32 ranks on two cores (4 hosts of 8): with parks stopping at 200 us, the ranks waiting for the
     * first barrier took the cores from those still working (34 s to it); growing to 5 ms, 17-18 s,
     * and to 2 ms, 19-20 s (docs/perf/launch.md, 2026-11-27 night).
     */
    public static final int LONG_PARK_MICROS_DEFAULT = 5_000;
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

    public P2pConfig {
        if (ringCapacity < 4096 || Integer.bitCount(ringCapacity) != 1) {
            throw new TuttiException.InvalidArgument(RING_CAPACITY + " must be a power of two >= 4096, got "
                    + ringCapacity);
        }
        eagerWithin(EAGER_LIMIT, eagerLimit, ringCapacity);
        eagerWithin(NET_EAGER_LIMIT, netEagerLimit, ringCapacity);
        if (exchangeChunk < 4096 || exchangeChunk % 64 != 0) {
            throw new TuttiException.InvalidArgument(EXCHANGE_CHUNK + " must be a multiple of 64 >= 4096, got "
                    + exchangeChunk);
        }
        if (exchangeSlots < 2) {
            throw new TuttiException.InvalidArgument(EXCHANGE_SLOTS + " must be >= 2, got " + exchangeSlots);
        }
        atLeast(SPIN_TRIES, spinTries, -1);
        atLeast(SPIN_MICROS, spinMicros, 0);
        atLeast(YIELD_TRIES, yieldTries, -1);
        atLeast(MAX_PARK_MICROS, maxParkMicros, 1);
        atLeast(LONG_PARK_MICROS, longParkMicros, 1);
        atLeast(LIVENESS_MILLIS, livenessMillis, 1);
        atLeast(RENDEZVOUS_SECONDS, rendezvousSeconds, 1);
        if (!transport.equals("auto") && !transport.equals("net")) {
            throw new TuttiException.InvalidArgument(TRANSPORT + " (or " + Config.envName(TRANSPORT)
                    + ") must be auto or net,"
                    + " got '" + transport + "'");
        }
    }

    /** An eager record may take at most a quarter of a ring, so that a full window still moves. */
    private static void eagerWithin(String property, int limit, int ringCapacity) {
        if (limit < 0 || limit > ringCapacity / 4 - 256) {
            throw new TuttiException.InvalidArgument(Config.envName(property) + " (" + property
                    + ") must be between 0 and a quarter of " + RING_CAPACITY + " less 256 ("
                    + (ringCapacity / 4 - 256) + "), got " + limit);
        }
    }

    /** The eager limit toward a peer over the network ({@code remote}) or over shared memory. */
    public int eagerLimit(boolean remote) {
        return remote ? netEagerLimit : eagerLimit;
    }

    /** Both eager limits, as benchmark headers print them. */
    public String eagerLimits() {
        return "eager limit " + eagerLimit + " B (" + netEagerLimit + " B over the network)";
    }

    /** Fails, naming the setting by both its names, when {@code value} is below {@code least}. */
    private static void atLeast(String property, int value, int least) {
        if (value < least) {
            throw new TuttiException.InvalidArgument(Config.envName(property) + " (" + property + ") must be at least "
                    + least + ", got " + value);
        }
    }

    /** Whether ranks of one host talk over the network too. */
    public boolean forceNetwork() {
        return transport.equals("net");
    }

    /** Defaults only. */
    public static P2pConfig defaults() {
        return from(Config.defaults());
    }

    /** The engine's settings of a job. */
    public static P2pConfig from(Config c) {
        int ring = c.integer(RING_CAPACITY, RING_CAPACITY_DEFAULT);
        // a smaller ring lowers the eager limits it cannot hold, unless they are set: then they are checked
        int fits = Math.max(0, ring / 4 - 256);
        return new P2pConfig(
                c.integer(EAGER_LIMIT, Math.min(EAGER_LIMIT_DEFAULT, fits)),
                c.integer(NET_EAGER_LIMIT, Math.min(NET_EAGER_LIMIT_DEFAULT, fits)),
                ring,
                c.integer(EXCHANGE_CHUNK, EXCHANGE_CHUNK_DEFAULT),
                c.integer(EXCHANGE_SLOTS, EXCHANGE_SLOTS_DEFAULT),
                c.bool(SINGLE_COPY, SINGLE_COPY_DEFAULT),
                c.integer(SPIN_TRIES, SPIN_TRIES_DEFAULT),
                c.integer(SPIN_MICROS, SPIN_MICROS_DEFAULT),
                c.integer(YIELD_TRIES, YIELD_TRIES_DEFAULT),
                c.integer(MAX_PARK_MICROS, MAX_PARK_MICROS_DEFAULT),
                c.integer(LONG_PARK_MICROS, LONG_PARK_MICROS_DEFAULT),
                c.integer(LIVENESS_MILLIS, LIVENESS_MILLIS_DEFAULT),
                c.integer(RENDEZVOUS_SECONDS, RENDEZVOUS_SECONDS_DEFAULT),
                c.bool(PROGRESS_THREAD, PROGRESS_THREAD_DEFAULT),
                c.text(TRANSPORT, TRANSPORT_DEFAULT).toLowerCase(java.util.Locale.ROOT),
                c.text(NET_PROVIDER, NET_PROVIDER_DEFAULT),
                c.bool(IDLE_SLEEP, IDLE_SLEEP_DEFAULT));
    }
}

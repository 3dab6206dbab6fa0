package io.tutti.net;

import io.tutti.Config;
import io.tutti.wire.MessageHeaderDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Settings of the network rails, read once when the transport opens. Each is a property name and
 * its default below, with the reason for the default; the values come from the settings map of
 * the provider's context ({@link io.tutti.transport.RemoteTransportProvider.Context#settings()}),
 * keyed by environment name: the engine puts the {@code TUTTI_*} environment there and the
 * {@code tutti.*} system properties over it, so {@code tutti.net.mtu} and {@code TUTTI_NET_MTU}
 * name the same setting (a map keyed by the property name is read too, where the other is absent).
 *
 * <p>Fault injection (for tests and for measuring recovery, {@link FaultInjection}):
 * {@code TUTTI_NET_DROP} and {@code TUTTI_NET_CORRUPT} are probabilities (0..1) applied to every
 * datagram sent; {@code TUTTI_NET_DROP_RX} and {@code TUTTI_NET_CORRUPT_RX} apply to every datagram
 * received; a suffix {@code _R<i>} ({@code TUTTI_NET_DROP_R1}, {@code TUTTI_NET_CORRUPT_RX_R0}, ...)
 * sets the probability of rail {@code i} alone and wins over the setting without it. Corruption
 * flips one random bit after the checksum is computed (sent) or before it is checked (received).
 * {@code TUTTI_NET_REORDER} (and {@code _R<i>}) is the probability that a sent datagram is held back
 * and overtaken by the next one on its rail. UDP rails only: on TCP a fault is an error.
 *
 * @param net           the wire: {@code udp} (the rails repair loss) or {@code tcp}; the same on every rank
 * @param rails         interface names, one rail each, at most {@link DatagramDescriptor#MAX_RAILS}; a
 *                      name may repeat (two sockets on one interface) and an IPv4 literal is taken as
 *                      the address; none: one rail on the address the start-up found toward the other
 *                      hosts (tutti run's rendezvous, or the host name's address), else on 127.0.0.1
 * @param mtu           frame size in bytes, header included; 0: 65000 on loopback and on TCP, else 1472
 * @param maxRecord     largest record (engine header included) that one send takes; at least 128
 * @param windowBytes   unacknowledged bytes per peer before {@code canSend} says no; at least two
 *                      records' worth whatever is set
 * @param timeoutMillis a peer silent on every rail this long has failed; counted only while this
 *                      rank listens ({@link Liveness}), and only once the peer has been heard
 * @param startTimeoutMillis a peer never heard since the rails connected has failed after this long:
 *                      until its first frame it may still be starting, not dead
 * @param railTimeoutMillis a rail silent this long while another rail of the peer is heard is down;
 *                      the retransmission timeout is at most half of it and 200 ms (never below the floor)
 * @param heartbeatMillis a rail that has sent nothing for this long carries a heartbeat; the
 *                      keep-alive agent polls for an owner that has not polled for half of it
 * @param stripeMin     records larger than this are split over the rails that are up (the FREE
 *                      ones among them, if any) when there are two or more; smaller ones go whole
 * @param busyBytes     bytes in flight on a rail from all ranks of this host together (the node's
 *                      rail table) above which the rail is BUSY, so that records go to the others
 * @param rtoFloorMicros the retransmission timeout never goes below this; a gap that not every rail
 *                      has passed is asked for again after half of it
 * @param ackDelayMicros an acknowledgement that no rule sends at once waits this long for a DATA
 *                      going back to carry it, then the next poll sends it alone; at most half of
 *                      {@code rtoFloorMicros}; 0 acknowledges in the poll that received
 * @param gso           on the UDP rails (Linux), let the frames that one send produces for one rail
 *                      leave in one system call where the kernel can segment them ({@link UdpSegmentation})
 * @param place         on the UDP rails (Linux), receive the payload of a DATA record that a receive
 *                      waits for straight into the receive's buffer ({@link UdpVectorIo}), and send
 *                      an off-heap payload from the sender's buffer, not through the wire's buffers
 * @param macData       a DATA's MAC covers its payload too, not only its header (whose control fields
 *                      every datagram's MAC covers): integrity of the data against an attacker on
 *                      the path, at the price of a MAC over every byte sent
 * @param stats         each rank prints its rails' counters ({@link RailsTransport#statistics()}) to
 *                      standard error as it closes
 * @param settings      the raw settings, for the per-rail fault variants
 */
public record NetConfig(String net, List<String> rails, int mtu, int maxRecord, int windowBytes, int timeoutMillis,
                        int startTimeoutMillis, int railTimeoutMillis, int heartbeatMillis, int stripeMin, int busyBytes, int rtoFloorMicros,
                        int ackDelayMicros, boolean gso, boolean place, boolean macData, boolean stats,
                        Map<String, String> settings) {
    public static final String NET = "tutti.net";
    /**
     * UDP: the rails repair loss themselves and stripe and batch frame by frame; on loopback UDP
     * measured 6.8-7.6 µs (8 B) and 3.7-4.4 GB/s (1 MiB) against 10.0-10.3 µs and 3.0-3.5 GB/s on
     * TCP (docs/perf/net.md, "UDP and TCP rails").
     */
    public static final String NET_DEFAULT = "udp";
    public static final String RAILS = "tutti.rails";
    /**
     * None: one rail on this host's address toward the launcher's (under tutti run), else 127.0.0.1,
     * so that neither a job on one host nor one over a hostfile has to name an interface.
     */
    public static final String RAILS_DEFAULT = "";
    public static final String MTU = "tutti.net.mtu";
    /**
     * Chosen by the rails: 65000 on loopback and on TCP, where no path MTU bounds a frame, so that a
     * record of up to 64 908 bytes travels whole; 1472 elsewhere, a 1500-byte Ethernet packet less
     * the IP and UDP headers (docs/perf/net.md).
     */
    public static final int MTU_DEFAULT = 0;
    public static final String MAX_RECORD = "tutti.net.max.record";
    /** A 64 KiB message body with the engine's header ({@link MessageHeaderDescriptor#LENGTH}) goes as one record. */
    public static final int MAX_RECORD_DEFAULT = 65536 + MessageHeaderDescriptor.LENGTH;
    public static final String WINDOW = "tutti.net.window";
    /**
     * 2 MiB: larger windows changed little, 4 MB on loopback (the same spread) and 8 MiB on two
     * 1 Gbit/s rails (188 against 172-185 MB/s; docs/perf/net.md).
     */
    public static final int WINDOW_DEFAULT = 2 << 20;
    public static final String TIMEOUT_MS = "tutti.net.timeout.ms";
    /**
     * 1.5 s of silence (15 missed heartbeats) where no launcher reports deaths (srun, mpirun, a
     * hand-made launch): with the engine's liveness checks every 100 ms, a blocked rank learns of a
     * dead peer within 2 s (1.51-1.61 s measured, docs/perf/net.md).
     */
    public static final int TIMEOUT_MS_DEFAULT = 1500;
    /**
     * 10 s when a launcher reports deaths (tutti run): a killed rank is then known to the others
     * within milliseconds through the launcher, and the rails' silence only has to catch a host cut
     * off, which the launcher's own connection takes 10 s to judge. 32 ranks starting on the 4-host
     * test cluster left a live rank unheard for over 1.5 s and failed the job (docs/perf/launch.md).
     */
    public static final int REPORTED_TIMEOUT_MS_DEFAULT = 10_000;
    public static final String START_TIMEOUT_MS = "tutti.net.start.timeout.ms";
    /**
     * 60 s, the bound the start-up rendezvous gives every rank to arrive: a peer publishes its rails
     * and answers only later, and 32 JVMs starting on 2 cores left one silent for over 1.5 s
     * (docs/perf/launch.md); a peer that dies meanwhile is reported by its launcher. Under
     * {@code tutti run} it counts from when every rank has started ({@link Liveness}).
     */
    public static final int START_TIMEOUT_MS_DEFAULT = 60_000;
    public static final String RAIL_TIMEOUT_MS = "tutti.net.rail.timeout.ms";
    /**
     * Four missed heartbeats: a silent rail is taken out, and its data moved to the others, long
     * before its peer would be judged failed.
     */
    public static final int RAIL_TIMEOUT_MS_DEFAULT = 400;
    public static final String HEARTBEAT_MS = "tutti.net.heartbeat.ms";
    /**
     * 100 ms: 15 heartbeats fit in the peer timeout and 4 in the rail timeout, and the keep-alive
     * agent, which wakes every quarter of it, costs a rank that communicates nothing measurable
     * (docs/perf/net.md, "the keep-alive agent").
     */
    public static final int HEARTBEAT_MS_DEFAULT = 100;
    public static final String STRIPE_MIN = "tutti.net.stripe.min";
    /**
     * 16 KiB, about a dozen Ethernet frames: a smaller record goes whole on one rail, which spares
     * the receiver the reordering between rails. The design's value, not tuned by a measurement.
     */
    public static final int STRIPE_MIN_DEFAULT = 16384;
    public static final String BUSY_BYTES = "tutti.net.busy.bytes";
    /**
     * 1 MiB, half a default window in flight from the host: below it a rail is FREE, as in MNC's
     * NIC status table [MNC]. The design's value, not tuned by a measurement.
     */
    public static final int BUSY_BYTES_DEFAULT = 1 << 20;
    public static final String RTO_FLOOR_US = "tutti.net.rto.floor.us";
    /**
     * 1 ms: far above a round trip on loopback (8 B one way in 4-8 µs, docs/perf/net.md) with the
     * ack delay on top, so an acknowledgement held for the delay is not taken for a loss.
     */
    public static final int RTO_FLOOR_US_DEFAULT = 1000;
    public static final String ACK_DELAY_US = "tutti.net.ack.delay.us";
    /**
     * 50 µs: a reply computed within it carries the acknowledgement, and a rank that waits polls
     * again soon after it (the engine parks at most 200 µs at a time): far below the 1 ms RTO
     * floor, so the sender of a record that a polling rank holds the acknowledgement of does not
     * take it for lost.
     */
    public static final int ACK_DELAY_US_DEFAULT = 50;
    public static final String GSO = "tutti.net.gso";
    /**
     * On: two 1 Gbit/s rails carried 225 MB/s with it (and the gap rule), 194-196 MB/s without
     * (docs/perf/net.md, "UDP segmentation"). Off by itself where the kernel refuses it.
     */
    public static final boolean GSO_DEFAULT = true;
    public static final String PLACE = "tutti.net.place";
    /**
     * On: 1 MiB messages on loopback, median 3 070 MB/s with it against 2 700 without
     * (docs/perf/net.md, "payloads in place"). Off by itself where the calls cannot be made.
     */
    public static final boolean PLACE_DEFAULT = true;
    public static final String MAC_DATA = "tutti.net.mac.data";
    /**
     * Off: every datagram's header (the acknowledgements, sequence numbers, lengths) is MACed
     * anyway, which is what keeps the stream from being stalled or steered; the payload is checked
     * by the CRC against corruption, and against an attacker on the path only with this on. Its cost
     * on 1 MiB bandwidth is in the README's threat model.
     */
    public static final boolean MAC_DATA_DEFAULT = false;
    public static final String STATS = "tutti.net.stats";
    /** Off: a diagnostic line per rank on standard error. */
    public static final boolean STATS_DEFAULT = false;
    public static final String DROP = "tutti.net.drop";
    /** No injected loss: only tests and recovery measurements set it. */
    public static final double DROP_DEFAULT = 0;
    public static final String CORRUPT = "tutti.net.corrupt";
    /** No injected corruption: only tests and recovery measurements set it. */
    public static final double CORRUPT_DEFAULT = 0;
    public static final String REORDER = "tutti.net.reorder";
    /** No injected reordering: only tests (the chaos test) set it. */
    public static final double REORDER_DEFAULT = 0;

    /** Reads the settings; a value that does not parse is an error that names the setting. */
    public static NetConfig from(Map<String, String> settings) {
        return from(settings, false);
    }

    /**
     * The settings of a rank whose launcher reports deaths ({@code deathsReported}) or not: the peer
     * timeout's default is {@link #REPORTED_TIMEOUT_MS_DEFAULT} or {@link #TIMEOUT_MS_DEFAULT}.
     */
    public static NetConfig from(Map<String, String> settings, boolean deathsReported) {
        List<String> rails = new ArrayList<>();
        for (String r : text(settings, RAILS, RAILS_DEFAULT).split(",")) {
            if (!r.isBlank()) {
                rails.add(r.trim());
            }
        }
        String net = text(settings, NET, NET_DEFAULT).toLowerCase(Locale.ROOT);
        if (!net.equals("udp") && !net.equals("tcp")) {
            throw new IllegalArgumentException(envName(NET) + " must be udp or tcp, not '" + net + "'");
        }
        for (String timer : List.of(TIMEOUT_MS, START_TIMEOUT_MS, RAIL_TIMEOUT_MS, HEARTBEAT_MS, RTO_FLOOR_US)) {
            int v = integer(settings, timer, 1);
            if (v < 1) {
                // a timer of 0 or less would declare every peer failed, or spin, at once
                throw new IllegalArgumentException(envName(timer) + " must be a positive number, not " + v);
            }
        }
        return new NetConfig(net, List.copyOf(rails), integer(settings, MTU, MTU_DEFAULT),
                integer(settings, MAX_RECORD, MAX_RECORD_DEFAULT), integer(settings, WINDOW, WINDOW_DEFAULT),
                integer(settings, TIMEOUT_MS, deathsReported ? REPORTED_TIMEOUT_MS_DEFAULT : TIMEOUT_MS_DEFAULT),
                integer(settings, START_TIMEOUT_MS, START_TIMEOUT_MS_DEFAULT),
                integer(settings, RAIL_TIMEOUT_MS, RAIL_TIMEOUT_MS_DEFAULT),
                integer(settings, HEARTBEAT_MS, HEARTBEAT_MS_DEFAULT), integer(settings, STRIPE_MIN, STRIPE_MIN_DEFAULT),
                integer(settings, BUSY_BYTES, BUSY_BYTES_DEFAULT),
                integer(settings, RTO_FLOOR_US, RTO_FLOOR_US_DEFAULT),
                integer(settings, ACK_DELAY_US, ACK_DELAY_US_DEFAULT), bool(settings, GSO, GSO_DEFAULT),
                bool(settings, PLACE, PLACE_DEFAULT), bool(settings, MAC_DATA, MAC_DATA_DEFAULT),
                bool(settings, STATS, STATS_DEFAULT), Map.copyOf(settings));
    }

    /** Whether the rails run over TCP connections rather than UDP datagrams. */
    public boolean tcp() {
        return net.equals("tcp");
    }

    /**
     * A fault probability of one rail and direction: {@code base} ({@link #DROP}, {@link #CORRUPT} or
     * {@link #REORDER}) with {@code _RX} for received datagrams, then {@code _R<rail>}; the per-rail setting wins.
     */
    public double fault(String base, boolean receive, int rail) {
        String name = receive ? base + ".rx" : base;
        String v = text(settings, name + ".r" + rail, text(settings, name, ""));
        if (v.isEmpty()) {
            return base.equals(CORRUPT) ? CORRUPT_DEFAULT : base.equals(REORDER) ? REORDER_DEFAULT : DROP_DEFAULT;
        }
        double p;
        try {
            p = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(envName(name) + " must be a probability 0..1, not '" + v + "'");
        }
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(envName(name) + " must be a probability 0..1, not " + v);
        }
        return p;
    }

    /** The environment variable of a property: {@code tutti.net.mtu} is {@code TUTTI_NET_MTU}. */
    public static String envName(String property) {
        return Config.envName(property);
    }

    private static String text(Map<String, String> settings, String property, String fallback) {
        String v = settings.get(envName(property));
        if (v == null) {
            v = settings.get(property);
        }
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static boolean bool(Map<String, String> settings, String property, boolean fallback) {
        String v = text(settings, property, "").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "" -> fallback;
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new IllegalArgumentException(envName(property) + " must be true or false, not '" + v + "'");
        };
    }

    private static int integer(Map<String, String> settings, String property, int fallback) {
        String v = text(settings, property, "");
        if (v.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(envName(property) + " must be an integer, not '" + v + "'");
        }
    }
}

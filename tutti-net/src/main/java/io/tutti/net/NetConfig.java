package io.tutti.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Settings of the network rails. Each is a property with its default; it is read from the rank's
 * settings map, where the engine has put the {@code TUTTI_*} environment with the {@code tutti.*}
 * system properties over it (so {@code tutti.net.mtu} and {@code TUTTI_NET_MTU} name the same
 * setting).
 *
 * <p>Fault injection (for tests and for measuring recovery): {@code TUTTI_NET_DROP} and
 * {@code TUTTI_NET_CORRUPT} are probabilities (0..1) applied to every datagram sent;
 * {@code TUTTI_NET_DROP_RX} and {@code TUTTI_NET_CORRUPT_RX} apply to every datagram received;
 * a suffix {@code _R<i>} ({@code TUTTI_NET_DROP_R1}, {@code TUTTI_NET_CORRUPT_RX_R0}, ...) sets the
 * probability of rail {@code i} alone and wins over the setting without it. Corruption flips one
 * random bit after the checksum is computed (sent) or before it is checked (received).
 *
 * @param net           the wire: {@code udp} (the rails repair loss) or {@code tcp} ({@code TUTTI_NET})
 * @param rails         interface names, one rail each ({@code TUTTI_RAILS}); a name may repeat
 *                      (two sockets on one interface) and an IPv4 literal is taken as the address
 * @param mtu           datagram size in bytes, header included; 0: 65000 on loopback, else 1472
 * @param maxRecord     largest record (engine header included) that one send takes
 * @param windowBytes   unacknowledged bytes per peer before {@code canSend} says no
 * @param timeoutMillis a peer silent on every rail this long has failed
 * @param railTimeoutMillis a rail silent this long while another rail of the peer is heard is down
 * @param heartbeatMillis an idle rail carries a heartbeat this often
 * @param stripeMin     records larger than this are split over the rails; smaller ones go whole
 * @param busyBytes     a rail with more unacknowledged bytes than this to a peer is BUSY
 * @param rtoFloorMicros the retransmission timeout never goes below this
 * @param ackDelayMicros an acknowledgement that no rule sends at once waits this long for a DATA
 *                      going back to carry it, then the next poll sends it alone; at most half of
 *                      {@code rtoFloorMicros}; 0 acknowledges in the poll that received
 * @param gso           on the UDP rails, let the frames that one send produces for one rail leave
 *                      in one system call where the kernel can segment them ({@link UdpSegmentation})
 * @param place         on the UDP rails, receive the payload of a DATA record that a receive waits
 *                      for straight into the receive's buffer ({@link UdpVectorIo}), not through
 *                      the wire's buffer
 * @param stats         each rank prints its rails' counters ({@link RailsTransport#statistics()}) to
 *                      standard error as it closes
 * @param settings      the raw settings, for the per-rail fault variants
 */
public record NetConfig(String net, List<String> rails, int mtu, int maxRecord, int windowBytes, int timeoutMillis,
                        int railTimeoutMillis, int heartbeatMillis, int stripeMin, int busyBytes, int rtoFloorMicros,
                        int ackDelayMicros, boolean gso, boolean place, boolean stats, Map<String, String> settings) {
    public static final String NET = "tutti.net";
    public static final String NET_DEFAULT = "udp";
    public static final String RAILS = "tutti.rails";
    public static final String RAILS_DEFAULT = "";
    public static final String MTU = "tutti.net.mtu";
    public static final int MTU_DEFAULT = 0;
    public static final String MAX_RECORD = "tutti.net.max.record";
    public static final int MAX_RECORD_DEFAULT = 65536 + 72;
    public static final String WINDOW = "tutti.net.window";
    public static final int WINDOW_DEFAULT = 2 << 20;
    public static final String TIMEOUT_MS = "tutti.net.timeout.ms";
    /**
     * 1.5 s of silence (15 missed heartbeats): with the engine's liveness checks every 100 ms, a
     * blocked rank learns of a dead peer within 2 s.
     */
    public static final int TIMEOUT_MS_DEFAULT = 1500;
    public static final String RAIL_TIMEOUT_MS = "tutti.net.rail.timeout.ms";
    public static final int RAIL_TIMEOUT_MS_DEFAULT = 400;
    public static final String HEARTBEAT_MS = "tutti.net.heartbeat.ms";
    public static final int HEARTBEAT_MS_DEFAULT = 100;
    public static final String STRIPE_MIN = "tutti.net.stripe.min";
    public static final int STRIPE_MIN_DEFAULT = 16384;
    public static final String BUSY_BYTES = "tutti.net.busy.bytes";
    public static final int BUSY_BYTES_DEFAULT = 1 << 20;
    public static final String RTO_FLOOR_US = "tutti.net.rto.floor.us";
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
    public static final boolean GSO_DEFAULT = true;
    public static final String PLACE = "tutti.net.place";
    public static final boolean PLACE_DEFAULT = true;
    public static final String STATS = "tutti.net.stats";
    public static final boolean STATS_DEFAULT = false;
    public static final String DROP = "tutti.net.drop";
    public static final String CORRUPT = "tutti.net.corrupt";

    /** Reads the settings; a value that does not parse is an error that names the setting. */
    public static NetConfig from(Map<String, String> settings) {
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
        return new NetConfig(net, List.copyOf(rails), integer(settings, MTU, MTU_DEFAULT),
                integer(settings, MAX_RECORD, MAX_RECORD_DEFAULT), integer(settings, WINDOW, WINDOW_DEFAULT),
                integer(settings, TIMEOUT_MS, TIMEOUT_MS_DEFAULT),
                integer(settings, RAIL_TIMEOUT_MS, RAIL_TIMEOUT_MS_DEFAULT),
                integer(settings, HEARTBEAT_MS, HEARTBEAT_MS_DEFAULT), integer(settings, STRIPE_MIN, STRIPE_MIN_DEFAULT),
                integer(settings, BUSY_BYTES, BUSY_BYTES_DEFAULT),
                integer(settings, RTO_FLOOR_US, RTO_FLOOR_US_DEFAULT),
                integer(settings, ACK_DELAY_US, ACK_DELAY_US_DEFAULT), bool(settings, GSO, GSO_DEFAULT),
                bool(settings, PLACE, PLACE_DEFAULT), bool(settings, STATS, STATS_DEFAULT), Map.copyOf(settings));
    }

    /** Whether the rails run over TCP connections rather than UDP datagrams. */
    public boolean tcp() {
        return net.equals("tcp");
    }

    /**
     * A fault probability of one rail and direction: {@code base} ({@link #DROP} or {@link #CORRUPT})
     * with {@code _RX} for received datagrams, then {@code _R<rail>}; the per-rail setting wins.
     */
    public double fault(String base, boolean receive, int rail) {
        String name = receive ? base + ".rx" : base;
        String perRail = text(settings, name + ".r" + rail, "");
        String v = perRail.isEmpty() ? text(settings, name, "0") : perRail;
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
        return property.toUpperCase(Locale.ROOT).replace('.', '_');
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

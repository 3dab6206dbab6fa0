package io.tutti.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Enumeration;
import java.util.List;

/**
 * The addresses of the rails: a rail's name ({@link NetConfig#rails()}) to the local IPv4 address
 * it binds, and the form in which a rank publishes its rails' addresses in the start-up key-value
 * store and its peers read them back ({@code a.b.c.d:port}, one per rail, comma separated).
 */
final class RailAddresses {
    private RailAddresses() {
    }

    /** The IPv4 address of a rail: an interface's first IPv4 address, or an IPv4 literal. */
    static InetAddress resolve(String name) {
        try {
            if (name.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
                return InetAddress.getByName(name);
            }
            NetworkInterface ni = NetworkInterface.getByName(name);
            if (ni == null) {
                throw new IllegalArgumentException("no network interface named '" + name + "' for a rail ("
                        + NetConfig.envName(NetConfig.RAILS) + ")");
            }
            for (Enumeration<InetAddress> e = ni.getInetAddresses(); e.hasMoreElements(); ) {
                InetAddress a = e.nextElement();
                if (a instanceof Inet4Address) {
                    return a;
                }
            }
            throw new IllegalArgumentException("network interface '" + name + "' has no IPv4 address");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look up the rail '" + name + "': " + e.getMessage(), e);
        }
    }

    /** What a rank publishes: its rails' local addresses. */
    static String publish(List<InetSocketAddress> locals) {
        StringBuilder published = new StringBuilder();
        for (InetSocketAddress local : locals) {
            published.append(published.isEmpty() ? "" : ",").append(local.getAddress().getHostAddress()).append(':')
                    .append(local.getPort());
        }
        return published.toString();
    }

    /**
     * The rails of {@code rank} from what it published: as many as it has and this rank has
     * ({@code rails}); a bad address is an error that names the rank.
     */
    static InetSocketAddress[] parse(String published, int rails, int rank) {
        String[] theirs = published.split(",");
        int n = Math.min(theirs.length, rails);
        InetSocketAddress[] addr = new InetSocketAddress[n];
        for (int r = 0; r < n; r++) {
            int colon = theirs[r].lastIndexOf(':');
            try {
                addr[r] = new InetSocketAddress(InetAddress.getByName(theirs[r].substring(0, colon)),
                        Integer.parseInt(theirs[r].substring(colon + 1)));
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("rank " + rank + " published a bad rail address '" + theirs[r] + "'",
                        e);
            }
        }
        return addr;
    }
}

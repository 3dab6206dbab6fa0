package io.tutti.cli;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;

/**
 * The address of this host that ranks on other hosts are given for the launcher's rendezvous: the
 * one {@code --rendezvous-address} names, else the source address of the route to the first host
 * that resolves (the interface that reaches it), else the first non-loopback address that is up.
 */
final class RendezvousAddress {
    private RendezvousAddress() {
    }

    static InetAddress choose(String override, List<String> hosts) {
        if (override != null && !override.isBlank()) {
            try {
                return InetAddress.getByName(override.strip());
            } catch (UnknownHostException e) {
                throw new Launcher.UsageException("--rendezvous-address " + override + " is not an address or a"
                        + " known host name: give an address of this host that the ranks' hosts can reach");
            }
        }
        for (String h : hosts) {
            InetAddress route = routeTo(h);
            if (route != null) {
                return route;
            }
        }
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp() || ni.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLinkLocalAddress()) {
                        return a;
                    }
                }
            }
        } catch (SocketException e) {
            // fall through to loopback
        }
        return InetAddress.getLoopbackAddress();
    }

    /** The local address the kernel would send from to {@code host}, or null when it does not resolve. */
    static InetAddress routeTo(String host) {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(InetAddress.getByName(host), 9));
            InetAddress local = probe.getLocalAddress();
            return local == null || local.isAnyLocalAddress() ? null : local;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code tcp:address:port} as the ranks read it. */
    static String tcp(InetAddress a, int port) {
        String h = a.getHostAddress();
        return "tcp:" + (h.contains(":") ? "[" + h + "]" : h) + ":" + port;
    }
}

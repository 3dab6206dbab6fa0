package io.tutti.net;

import java.util.List;
import java.util.Locale;

/**
 * The rails' counters: what {@link RailsTransport#statistics()} reports and what
 * {@link NetConfig#stats()} ({@code TUTTI_NET_STATS=true}) prints as a rank closes. Plain fields,
 * counted by the parts of the transport under its in-poll flag and read under it (the accessors
 * of {@link RailsTransport} take the flag), so a count costs one increment on the path it counts.
 */
final class RailStats {
    /** Received datagrams dropped, by {@link DropReason#ordinal()}. */
    final long[] drops = new long[DropReason.values().length];
    /** Datagrams sent again (NAK, timeout, or a rail that went down). */
    long retransmits;
    /** DATA datagrams received that had arrived before. */
    long duplicates;
    /** Records handed to the sink straight from the wire's buffer, not through a slot. */
    long deliveredInPlace;
    /** Records whose payload the wire received straight into its destination. */
    long deliveredPlaced;
    long naksSent;
    /** Standalone acknowledgements sent because one was due (neither NAKs nor heartbeats). */
    long acksSent;
    /** Injected faults that struck: sent datagrams dropped, sent or received ones corrupted, sent ones held back. */
    long injectedDrops;
    long injectedFlips;
    long injectedReorders;
    /** DATA frames the wire refused. */
    long sendFailures;
    /** Times a rail to some peer was found silent and taken out of use. */
    long railsDowned;
    /** Retransmission timeouts that fired. */
    long timeouts;
    /** The largest retransmission timeout computed. */
    long maxRtoSeen;
    /** Per rail: DATA datagrams and their payload bytes sent (retransmissions included), retransmissions, refusals. */
    final long[] railDataSent;
    final long[] railBytesSent;
    final long[] railRetransmits;
    final long[] railSendFailures;
    /** Per rail: system calls that sent DATA (one per datagram, or per batch). */
    final long[] railSendCalls;
    /** Per rail: DATA datagrams received, duplicates included. */
    final long[] railDataReceived;
    private final List<String> railNames;

    RailStats(List<String> railNames) {
        this.railNames = List.copyOf(railNames);
        int n = railNames.size();
        this.railDataSent = new long[n];
        this.railBytesSent = new long[n];
        this.railRetransmits = new long[n];
        this.railSendFailures = new long[n];
        this.railSendCalls = new long[n];
        this.railDataReceived = new long[n];
    }

    /** A received datagram was dropped for {@code why}. */
    void drop(DropReason why) {
        drops[why.ordinal()]++;
    }

    /** The counters as one line: totals, the drop reasons that occurred, then one group per rail. */
    String format(String wire, int mtu) {
        StringBuilder b = new StringBuilder("rails=").append(railNames.size()).append(' ').append(wire)
                .append(" mtu=").append(mtu)
                .append(" retransmits=").append(retransmits).append(" timeouts=").append(timeouts)
                .append(" maxRto=").append(maxRtoSeen / 1000).append("us").append(" duplicates=").append(duplicates)
                .append(" inPlace=").append(deliveredInPlace).append(" placed=").append(deliveredPlaced)
                .append(" acks=").append(acksSent).append(" naks=").append(naksSent)
                .append(" injected=").append(injectedDrops + injectedFlips + injectedReorders)
                .append(" (drops=").append(injectedDrops).append(" flips=").append(injectedFlips)
                .append(" reorders=").append(injectedReorders).append(')')
                .append(" sendFailures=").append(sendFailures).append(" railsDowned=").append(railsDowned);
        for (DropReason d : DropReason.values()) {
            if (drops[d.ordinal()] > 0) {
                b.append(' ').append(d.name().toLowerCase(Locale.ROOT)).append('=').append(drops[d.ordinal()]);
            }
        }
        for (int r = 0; r < railNames.size(); r++) {
            b.append("; rail ").append(r).append(" (").append(railNames.get(r)).append("): sent=")
                    .append(railDataSent[r]).append(" calls=").append(railSendCalls[r]).append(" bytes=")
                    .append(railBytesSent[r]).append(" resent=").append(railRetransmits[r]).append(" refused=")
                    .append(railSendFailures[r]).append(" received=").append(railDataReceived[r]);
        }
        return b.toString();
    }
}

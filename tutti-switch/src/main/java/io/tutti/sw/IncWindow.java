package io.tutti.sw;

import java.util.Arrays;

/**
 * A leader's sending window for one transfer of in-network aggregation: which packets of the
 * transfer go out next, which results are in, which are late, and whether the switch stopped
 * answering. Packet k carries request id {@code base + k}; a new packet goes out while its id is less
 * than {@code slots} above the lowest id the group still waits for (the switch's slot r + slots is
 * slot r's), and a result is taken in once, only for a packet sent and not yet answered.
 *
 * <p>Pure logic: no I/O and no clock of its own (every method that needs the time is given it), so
 * the real client ({@link IncClient}, on {@link System#nanoTime}) and the simulator's switch mode (in
 * simulated nanoseconds) run the same window. Per packet in flight it keeps when it last went out
 * and whether it went out twice, in a ring of {@code min(slots, packets)} entries: a transfer never
 * has more packets between its first missing result and its next new packet. Allocation-free once
 * its ring has grown to the largest transfer's. Not thread-safe.
 */
public final class IncWindow {
    private final int slots;
    private int base;
    private int packets;
    private int nextToSend;
    private int firstMissing;
    /** The ring's length for this transfer: min(slots, packets). */
    private int ring;
    /** Per ring entry: the packet whose result is in (-1: none), when it last went out, whether more than once. */
    private int[] got = new int[0];
    private long[] sentAt = new long[0];
    private boolean[] again = new boolean[0];
    private long lastProgress;

    /** @param slots packets in flight per leader (the group's aggregation slots), at least 1 */
    public IncWindow(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("a window needs at least one slot, got " + slots);
        }
        this.slots = slots;
    }

    /** Starts a transfer of {@code packets} packets whose request ids begin at {@code base}; nothing is sent yet. */
    public void reset(int base, int packets) {
        if (packets < 0) {
            throw new IllegalArgumentException("packets must be at least 0, got " + packets);
        }
        this.base = base;
        this.packets = packets;
        this.nextToSend = 0;
        this.firstMissing = 0;
        this.ring = Math.min(slots, packets);
        if (got.length < ring) {
            got = new int[ring];
            sentAt = new long[ring];
            again = new boolean[ring];
        }
        Arrays.fill(got, 0, ring, -1);
        Arrays.fill(again, 0, ring, false);
    }

    public int base() {
        return base;
    }

    public int packets() {
        return packets;
    }

    /** The first packet without its result ({@link #packets} once all are in). */
    public int firstMissing() {
        return firstMissing;
    }

    /** Every packet's result is in. */
    public boolean complete() {
        return firstMissing == packets;
    }

    /**
     * The next new packet the window lets out, counted from {@code low}, the lowest request id the
     * leader's group still waits for over all its transfers (this one's {@code base + firstMissing()}
     * when it is the only one); -1 when there is none. The caller sends it and calls {@link #sent}.
     */
    public int nextNew(int low) {
        if (nextToSend < packets && base + nextToSend - low < slots) {
            return nextToSend++;
        }
        return -1;
    }

    /** Packet k went out at {@code now}, again (a retransmission) or for the first time. */
    public void sent(int k, long now, boolean retransmission) {
        int s = k % ring;
        sentAt[s] = now;
        again[s] |= retransmission;
    }

    /** Whether packet k has gone out and its result is not in. */
    public boolean outstanding(int k) {
        return k >= firstMissing && k < nextToSend && got[k % ring] != k;
    }

    /** Whether packet k is {@link #outstanding} and went out at least {@code rto} before {@code now}: due again. */
    public boolean late(int k, long now, long rto) {
        return outstanding(k) && now - sentAt[k % ring] >= rto;
    }

    /** The first {@link #late} packet from {@code from} on; -1 if none. */
    public int firstLate(int from, long now, long rto) {
        for (int k = Math.max(from, firstMissing); k < nextToSend; k++) {
            if (late(k, now, rto)) {
                return k;
            }
        }
        return -1;
    }

    /**
     * Packet k's result at {@code now}: true if it is taken in (the packet is {@link #outstanding}),
     * false for a duplicate or a packet not sent. The first missing packet moves past what is in.
     */
    public boolean accept(int k, long now) {
        if (!outstanding(k)) {
            return false;
        }
        got[k % ring] = k;
        lastProgress = now;
        while (firstMissing < packets && got[firstMissing % ring] == firstMissing) {
            firstMissing++;
        }
        return true;
    }

    /** Packet k's round trip to {@code now}, or -1 when it went out more than once (no clean sample). */
    public long roundTrip(int k, long now) {
        int s = k % ring;
        return again[s] ? -1 : now - sentAt[s];
    }

    /** Counts {@code now} as progress: the start, or a wait that is the leader's own and not the switch's. */
    public void progress(long now) {
        lastProgress = now;
    }

    /** Whether no result came for more than {@code timeout} before {@code now}, since the last progress. */
    public boolean stalled(long now, long timeout) {
        return now - lastProgress > timeout;
    }
}

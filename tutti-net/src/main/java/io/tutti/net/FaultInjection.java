package io.tutti.net;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Injected loss, bit flips and reordering, per rail and direction ({@link NetConfig#DROP},
 * {@link NetConfig#CORRUPT} and their {@code .rx} and per-rail variants, {@link NetConfig#REORDER} on
 * sending; {@link RailsTransport#injectFaults} at run time): for tests, and for measuring how the
 * rails recover (docs/perf/net.md, 5 % loss). A drop on sending counts as sent, it is lost on the
 * way; a flip strikes after the CRC is computed (sent) or before it is checked (received); a
 * reordered frame is held back and leaves right after the next frame sent on its rail, so that one
 * overtakes it. Only the UDP rails take faults: TCP never sends a lost frame again.
 *
 * <p>Driven under the transport's in-poll flag. Each check costs a load and a compare while its
 * probability is 0; a rail's buffer for the held frame is allocated at its first reordering.
 */
final class FaultInjection {
    private final SplittableRandom random = new SplittableRandom(new SecureRandom().nextLong());
    private final double[] txDrop;
    private final double[] txCorrupt;
    private final double[] rxDrop;
    private final double[] rxCorrupt;
    private final double[] txReorder;
    /** Per rail: the frame held back (a copy), its length (0: none held) and the peer it goes to. */
    private final ByteBuffer[] held;
    private final int[] heldLength;
    private final int[] heldPeer;
    private final RailStats stats;

    /** Reads the probabilities of {@code rails} rails; an error when any is set on the TCP wire. */
    FaultInjection(NetConfig config, int rails, RailStats stats) {
        this.stats = stats;
        this.txDrop = new double[rails];
        this.txCorrupt = new double[rails];
        this.rxDrop = new double[rails];
        this.rxCorrupt = new double[rails];
        this.txReorder = new double[rails];
        this.held = new ByteBuffer[rails];
        this.heldLength = new int[rails];
        this.heldPeer = new int[rails];
        for (int r = 0; r < rails; r++) {
            txDrop[r] = config.fault(NetConfig.DROP, false, r);
            txCorrupt[r] = config.fault(NetConfig.CORRUPT, false, r);
            rxDrop[r] = config.fault(NetConfig.DROP, true, r);
            rxCorrupt[r] = config.fault(NetConfig.CORRUPT, true, r);
            txReorder[r] = config.fault(NetConfig.REORDER, false, r);
            if (config.fault(NetConfig.REORDER, true, r) > 0) {
                throw new IllegalArgumentException(NetConfig.envName(NetConfig.REORDER + ".rx") + " is not a setting:"
                        + " reordering is injected on sending only; set " + NetConfig.envName(NetConfig.REORDER));
            }
            if (config.tcp() && txDrop[r] + txCorrupt[r] + rxDrop[r] + rxCorrupt[r] + txReorder[r] > 0) {
                throw new IllegalArgumentException("fault injection (" + NetConfig.envName(NetConfig.DROP) + ", "
                        + NetConfig.envName(NetConfig.CORRUPT) + ", " + NetConfig.envName(NetConfig.REORDER)
                        + ") needs the UDP rails, whose loss the rails repair;"
                        + " on TCP a lost frame is never sent again: unset it or set "
                        + NetConfig.envName(NetConfig.NET) + "=udp");
            }
        }
    }

    /** Sets the probabilities of one rail. */
    void set(int rail, double sendDrop, double sendCorrupt, double receiveDrop, double receiveCorrupt) {
        txDrop[rail] = sendDrop;
        txCorrupt[rail] = sendCorrupt;
        rxDrop[rail] = receiveDrop;
        rxCorrupt[rail] = receiveCorrupt;
    }

    /** Whether a frame about to leave on {@code rail} is lost on the way (counted as injected). */
    boolean dropSent(int rail) {
        if (txDrop[rail] > 0 && random.nextDouble() < txDrop[rail]) {
            stats.injectedDrops++;
            return true;
        }
        return false;
    }

    /** Whether a frame about to leave on {@code rail} gets a bit flipped ({@link #flip}; counted as injected). */
    boolean corruptSent(int rail) {
        if (txCorrupt[rail] > 0 && random.nextDouble() < txCorrupt[rail]) {
            stats.injectedFlips++;
            return true;
        }
        return false;
    }

    /** Whether a frame received on {@code rail} is lost before it is looked at (a {@link DropReason#INJECTED} drop). */
    boolean dropReceived(int rail) {
        if (rxDrop[rail] > 0 && random.nextDouble() < rxDrop[rail]) {
            stats.drop(DropReason.INJECTED);
            return true;
        }
        return false;
    }

    /**
     * Maybe flips a bit of a frame of {@code length} bytes received on {@code rail}: in {@code head},
     * or in {@code tail} (its last {@code tail.remaining()} bytes, received in place; none when null).
     */
    void corruptReceived(int rail, ByteBuffer head, int length, ByteBuffer tail) {
        if (rxCorrupt[rail] > 0 && length > 0 && random.nextDouble() < rxCorrupt[rail]) {
            stats.injectedFlips++;
            flip(head, length, tail);
        }
    }

    /** Flips one random bit of a frame of {@code length} bytes, laid out as in {@link #corruptReceived}. */
    void flip(ByteBuffer head, int length, ByteBuffer tail) {
        int i = random.nextInt(length);
        int inHead = tail == null ? length : length - tail.remaining();
        ByteBuffer b = i < inHead ? head : tail;
        int at = i < inHead ? i : tail.position() + i - inHead;
        b.put(at, (byte) (b.get(at) ^ (1 << random.nextInt(8))));
    }

    /**
     * Maybe holds back the sealed frame of {@code length} bytes for {@code peer} on {@code rail}
     * (laid out as in {@link #copy}): true when it is taken (a copy, counted as injected) and must
     * not leave now; {@link #sendHeld} sends it later. At most one frame per rail is held.
     */
    boolean holdSent(int peer, int rail, ByteBuffer head, int length, ByteBuffer tail) {
        if (txReorder[rail] > 0 && heldLength[rail] == 0 && random.nextDouble() < txReorder[rail]) {
            ByteBuffer b = held[rail];
            if (b == null) {
                b = held[rail] = ByteBuffer.allocateDirect(1 << 16);
            }
            copy(head, length, tail, b);
            heldLength[rail] = length;
            heldPeer[rail] = peer;
            stats.injectedReorders++;
            return true;
        }
        return false;
    }

    /**
     * Sends the frame held back on {@code rail}, if any: called after another frame left there, which
     * has thus overtaken it. A refusal loses it, which the retransmission repairs like any loss.
     */
    void sendHeld(int rail, RailWire wire) {
        int length = heldLength[rail];
        if (length > 0) {
            heldLength[rail] = 0;
            wire.send(heldPeer[rail], rail, held[rail], length);
        }
    }

    /**
     * Copies a frame of {@code length} bytes into {@code into}: the first bytes from {@code head}, and
     * the last {@code tail.remaining()} from {@code tail} (none when null).
     */
    static void copy(ByteBuffer head, int length, ByteBuffer tail, ByteBuffer into) {
        int inHead = tail == null ? length : length - tail.remaining();
        into.clear();
        into.put(0, head, 0, inHead);
        if (tail != null) {
            into.put(inHead, tail, tail.position(), tail.remaining());
        }
    }
}

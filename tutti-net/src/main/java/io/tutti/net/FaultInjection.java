package io.tutti.net;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Injected loss and bit flips, per rail and direction ({@link NetConfig#DROP}, {@link NetConfig#CORRUPT}
 * and their {@code .rx} and per-rail variants; {@link RailsTransport#injectFaults} at run time): for
 * tests, and for measuring how the rails recover (docs/perf/net.md, 5 % loss). A drop on sending
 * counts as sent, it is lost on the way; a flip strikes after the CRC is computed (sent) or before
 * it is checked (received). Only the UDP rails take faults: TCP never sends a lost frame again.
 *
 * <p>Driven under the transport's in-poll flag. Each check costs a load and a compare while its
 * probability is 0.
 */
final class FaultInjection {
    private final SplittableRandom random = new SplittableRandom(new SecureRandom().nextLong());
    private final double[] txDrop;
    private final double[] txCorrupt;
    private final double[] rxDrop;
    private final double[] rxCorrupt;
    private final RailStats stats;

    /** Reads the probabilities of {@code rails} rails; an error when any is set on the TCP wire. */
    FaultInjection(NetConfig config, int rails, RailStats stats) {
        this.stats = stats;
        this.txDrop = new double[rails];
        this.txCorrupt = new double[rails];
        this.rxDrop = new double[rails];
        this.rxCorrupt = new double[rails];
        for (int r = 0; r < rails; r++) {
            txDrop[r] = config.fault(NetConfig.DROP, false, r);
            txCorrupt[r] = config.fault(NetConfig.CORRUPT, false, r);
            rxDrop[r] = config.fault(NetConfig.DROP, true, r);
            rxCorrupt[r] = config.fault(NetConfig.CORRUPT, true, r);
            if (config.tcp() && txDrop[r] + txCorrupt[r] + rxDrop[r] + rxCorrupt[r] > 0) {
                throw new IllegalArgumentException("fault injection (" + NetConfig.envName(NetConfig.DROP) + ", "
                        + NetConfig.envName(NetConfig.CORRUPT) + ") needs the UDP rails, whose loss the rails repair;"
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
            stats.injected++;
            return true;
        }
        return false;
    }

    /** Whether a frame about to leave on {@code rail} gets a bit flipped ({@link #flip}; counted as injected). */
    boolean corruptSent(int rail) {
        if (txCorrupt[rail] > 0 && random.nextDouble() < txCorrupt[rail]) {
            stats.injected++;
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
            stats.injected++;
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
}

package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Tags and checks control packets with an {@link IncKey}. The tag is HMAC-SHA256 over the packet
 * up to its tag field (header, control fields, the sender's time and a random nonce), truncated to
 * {@value io.tutti.wire.IncPacketDescriptor#TAG_LENGTH} bytes: 128 bits leave forgery at 2^-128 a
 * try, as IPsec's HMAC-SHA-256-128, and fit the packet.
 *
 * <p>Replay guard: a packet counts only while its time is within
 * {@value io.tutti.wire.IncPacketDescriptor#AUTH_WINDOW_MILLIS} ms of this clock, and only once, as
 * the nonces of that window are remembered. A timestamp and a nonce need no extra round trip and
 * no state per sender, at the price of clocks kept within that window (NTP does).
 *
 * <p>Single-threaded, as its owner (a switch's loop, a leader's client).
 */
final class ControlAuth {
    /** What {@link #check} found. */
    enum Verdict { OK, BAD_TAG, STALE, REPLAYED }

    /** Nonces remembered at most: only packets with a valid tag add one, so only key holders fill it. */
    static final int MAX_NONCES = 1 << 16;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int SIGNED = HEADER_LENGTH + C_TAG;

    private final Mac mac;
    private final LongSupplier clockMillis;
    private final byte[] input = new byte[SIGNED];
    private final byte[] digest = new byte[32];
    /** Nonces of accepted packets, with their packets' times. */
    private final Map<Long, Long> seen = new HashMap<>();

    ControlAuth(IncKey key, LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.bytes(), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }

    /** A random non-zero number: a group token (0 is no token) or a nonce. */
    static long random() {
        long r;
        do {
            r = RANDOM.nextLong();
        } while (r == 0);
        return r;
    }

    /** Stamps the control packet {@code p} (position 0 to limit) with this clock's time, a new nonce and the tag. */
    void seal(ByteBuffer p) {
        p.putLong(ctrl(C_TIME), clockMillis.getAsLong());
        p.putLong(ctrl(C_NONCE), random());
        tag(p);
        p.put(ctrl(C_TAG), digest, 0, TAG_LENGTH);
    }

    /** Whether {@code p} carries a valid tag, is fresh and was not seen before; an accepted nonce is remembered. */
    Verdict check(ByteBuffer p) {
        tag(p);
        int diff = 0;
        for (int i = 0; i < TAG_LENGTH; i++) {
            diff |= digest[i] ^ p.get(ctrl(C_TAG) + i);
        }
        if (diff != 0) {
            return Verdict.BAD_TAG;
        }
        long now = clockMillis.getAsLong();
        long time = p.getLong(ctrl(C_TIME));
        if (Math.abs(now - time) > AUTH_WINDOW_MILLIS) {
            return Verdict.STALE;
        }
        long nonce = p.getLong(ctrl(C_NONCE));
        if (seen.containsKey(nonce)) {
            return Verdict.REPLAYED;
        }
        if (seen.size() >= MAX_NONCES) {
            purge();
            if (seen.size() >= MAX_NONCES) {
                return Verdict.REPLAYED;
            }
        }
        seen.put(nonce, time);
        return Verdict.OK;
    }

    /** Forgets the nonces of packets too old to pass the time check anyway. */
    void purge() {
        long now = clockMillis.getAsLong();
        seen.values().removeIf(t -> now - t > AUTH_WINDOW_MILLIS);
    }

    private void tag(ByteBuffer p) {
        p.get(0, input, 0, SIGNED);
        mac.update(input, 0, SIGNED);
        try {
            mac.doFinal(digest, 0);
        } catch (ShortBufferException e) {
            throw new IllegalStateException(e);
        }
    }
}

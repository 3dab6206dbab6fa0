package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The MAC of a datagram: HMAC-SHA256 (RFC 2104) truncated to {@link DatagramDescriptor#MAC_LENGTH}
 * bytes, over the header up to the MAC and over the payload when asked. HMAC-SHA256 because the
 * JDK runs SHA-256 on the CPU's SHA instructions where there are some, and it needs no per-message
 * nonce; the JDK's faster MACs are not usable here (Poly1305 and GMAC only inside a
 * {@code Cipher}, which must be initialised anew, allocating, for every message, and whose key
 * is lost if a nonce ever repeats). Built on {@link MessageDigest} with the key's pads kept, as
 * {@code javax.crypto.Mac.doFinal} allocates its result: this allocates nothing per datagram.
 *
 * <p>Not thread-safe: one per thread of use (the transport's runs under its in-poll flag).
 */
final class RecordMac {
    private static final int BLOCK = 64;

    /** A key's inner and outer pads, made once per key. */
    record Key(byte[] ipad, byte[] opad) {
    }

    private final MessageDigest sha;
    private final byte[] inner = new byte[32];
    private final byte[] out = new byte[32];

    RecordMac() {
        sha = sha256();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available: " + e.getMessage(), e);
        }
    }

    /** The pads of {@code key} (a key longer than a block is hashed first, as RFC 2104 says). */
    static Key key(byte[] key) {
        byte[] k = key.length > BLOCK ? sha256().digest(key) : key;
        byte[] ipad = new byte[BLOCK];
        byte[] opad = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            byte b = i < k.length ? k[i] : 0;
            ipad[i] = (byte) (b ^ 0x36);
            opad[i] = (byte) (b ^ 0x5c);
        }
        return new Key(ipad, opad);
    }

    /**
     * Computes the MAC of the frame of {@code length} bytes at the start of {@code b} (its last
     * {@code tail.remaining()} bytes in {@code tail}, none when null), over the payload too when
     * {@code payload}, into the frame's MAC field. Positions and limits kept.
     */
    void seal(Key key, ByteBuffer b, int length, ByteBuffer tail, boolean payload) {
        compute(key, b, length, tail, payload);
        b.put(MAC_OFFSET, out, 0, MAC_LENGTH);
    }

    /** Whether the frame's MAC field holds its MAC (see {@link #seal}); compared in constant time. */
    boolean verify(Key key, ByteBuffer b, int length, ByteBuffer tail, boolean payload) {
        compute(key, b, length, tail, payload);
        int diff = 0;
        for (int i = 0; i < MAC_LENGTH; i++) {
            diff |= out[i] ^ b.get(MAC_OFFSET + i);
        }
        return diff == 0;
    }

    private void compute(Key key, ByteBuffer b, int length, ByteBuffer tail, boolean payload) {
        int pos = b.position();
        int lim = b.limit();
        sha.update(key.ipad());
        b.limit(MAC_OFFSET).position(0);
        sha.update(b);
        if (payload) {
            b.limit(tail == null ? length : length - tail.remaining()).position(HEADER);
            sha.update(b);
            if (tail != null) {
                int at = tail.position();
                sha.update(tail);
                tail.position(at);
            }
        }
        b.limit(lim).position(pos);
        try {
            sha.digest(inner, 0, inner.length);
            sha.update(key.opad());
            sha.update(inner);
            sha.digest(out, 0, out.length);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }
}

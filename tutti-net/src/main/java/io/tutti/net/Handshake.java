package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HELLO handshake, per peer and rail: a source is heard only after it answered this rank's
 * challenge (a random nonce) with an HMAC-SHA256, over the job secret, of who answers whom on
 * which rail, the challenge and its own nonce; and a rail carries data only once each end has
 * said that it authenticated the other ({@link Peer#confirmed(int)}). HELLOs repeat every
 * {@link #HELLO_INTERVAL} on a rail not yet confirmed, so a lost one costs that long.
 *
 * <p>A HELLO's payload: {@code nonce(8) yourNonce(8) flags(1) hmac(32)}, flags bit 0 "I have
 * authenticated you", bit 1 "you have authenticated me" (layout: {@link DatagramDescriptor}). The
 * first valid answer also gives the pair its session ({@link SessionKeys}), which keys the MAC of
 * every later datagram; a HELLO's own header MAC is keyed by the job's key. Driven under
 * the transport's in-poll flag; the HMAC runs in buffers of its own, allocating nothing.
 */
final class Handshake {
    /** How often a HELLO repeats on a rail not yet confirmed. */
    static final long HELLO_INTERVAL = 20_000_000L;

    private final int jobId;
    private final int rank;
    private final Mac mac;
    private final ByteBuffer macInput = ByteBuffer.allocate(4 * 4 + 8 + 8);
    private final byte[] macOut = new byte[32];
    private final byte[] macIn = new byte[32];
    /** The HELLO being sent. */
    private final ByteBuffer hello = ByteBuffer.allocateDirect(HEADER + HELLO_PAYLOAD);
    private final SecureRandom nonces = new SecureRandom();
    private final FrameSender sender;
    private final RailWire wire;
    private final RailStats stats;

    /**
     * The HMAC of the job: keyed by the launcher's secret; without one, first contact proves only
     * knowledge of the job id. Made before any socket opens, so that a JDK without HmacSHA256
     * fails first.
     */
    static Mac mac(byte[] secret, int jobId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(jobKey(secret, jobId), "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }

    /** The job's key: the launcher's secret, or without one what the job id alone gives. */
    static byte[] jobKey(byte[] secret, int jobId) {
        return secret != null && secret.length > 0 ? secret
                : ("tutti-job-" + jobId).getBytes(StandardCharsets.US_ASCII);
    }

    Handshake(Mac mac, int jobId, int rank, FrameSender sender, RailWire wire, RailStats stats) {
        this.mac = mac;
        this.jobId = jobId;
        this.rank = rank;
        this.sender = sender;
        this.wire = wire;
        this.stats = stats;
    }

    /** A new challenge for a peer: random, never 0 (0 is "no challenge heard yet"). */
    long nonce() {
        long nonce;
        do {
            nonce = nonces.nextLong();
        } while (nonce == 0);
        return nonce;
    }

    /** Sends {@code p} a HELLO on {@code rail}: our challenge, our answer to theirs, and what we know. */
    void hello(Peer p, int rail, long now) {
        sender.header(hello, HELLO, p, rail, HELLO_PAYLOAD, now);
        hello.putLong(HEADER, p.myNonce);
        hello.putLong(HEADER + 8, p.peerNonce[rail]);
        hello.put(HEADER + 16, (byte) ((p.authOk[rail] ? 1 : 0) | (p.confirmed[rail] ? 2 : 0)));
        helloMac(rank, p.rank, rail, p.peerNonce[rail], p.myNonce);
        hello.put(HEADER + 17, macOut);
        p.lastHello[rail] = now;
        sender.emit(p, rail, hello, HEADER + HELLO_PAYLOAD, now);
    }

    /** Sends the HELLOs due on {@code p}'s rails that are not confirmed yet. */
    void repeat(Peer p, long now) {
        for (int r = 0; r < p.railCount; r++) {
            if (!p.confirmed(r) && now - p.lastHello[r] >= HELLO_INTERVAL) {
                hello(p, r, now);
            }
        }
    }

    /**
     * A HELLO from {@code from} that claims to be {@code p} on rail {@code r} (checked but for its
     * HMAC): a valid answer to our challenge authenticates the source; a source that cannot answer
     * may not replace an authenticated peer's nonce. Answered until both ends have confirmed.
     */
    void onHello(Peer p, int r, Object from, ByteBuffer rx, long now) {
        long theirs = rx.getLong(HEADER);
        long yours = rx.getLong(HEADER + 8);
        int flags = rx.get(HEADER + 16);
        rx.get(HEADER + 17, macIn);
        boolean answered = yours == p.myNonce;
        boolean valid = false;
        if (answered) {
            helloMac(p.rank, rank, r, p.myNonce, theirs);
            valid = MessageDigest.isEqual(macOut, macIn);
            if (!valid) {
                stats.drop(DropReason.BAD_MAC);
                return;
            }
        } else if (p.authOk[r]) {
            // someone who cannot answer our challenge may not replace the authenticated peer's nonce
            stats.drop(DropReason.UNAUTHENTICATED);
            return;
        }
        p.peerNonce[r] = theirs;
        if (valid) {
            if (p.session == null) {
                // the nonce answered is ours, the peer's is authentic (the HMAC covers it): the
                // same on every rail, so the first rail's session is the pair's
                p.session = SessionKeys.derive(mac, jobId, rank, p.rank, p.myNonce, theirs);
            }
            p.authOk[r] = true;
            p.authAddr[r] = from;
            wire.authenticated(p.rank, r, from);
            p.heard(r, now);
            if ((flags & 1) != 0) {
                p.confirmed[r] = true;
            }
        }
        if ((flags & 3) != 3 || !valid) {
            hello(p, r, now);
        }
    }

    /** HMAC, into {@link #macOut}, over who answers whom on which rail, the challenge and the answerer's nonce. */
    private void helloMac(int from, int to, int rail, long challenge, long answererNonce) {
        macInput.clear();
        macInput.putInt(jobId).putInt(from).putInt(to).putInt(rail).putLong(challenge).putLong(answererNonce);
        mac.update(macInput.array(), 0, macInput.position());
        try {
            mac.doFinal(macOut, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

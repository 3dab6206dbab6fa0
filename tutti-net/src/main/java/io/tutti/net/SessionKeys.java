package io.tutti.net;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.crypto.Mac;

/**
 * The keys of one pair's session, derived when the handshake has authenticated the peer: both
 * ends compute them from the job's key and the two nonces the handshake exchanged, so they are
 * new in every job and unknown to anyone without the secret. The session key keys the MAC of every
 * datagram but HELLOs ({@link RecordMac}); the tag ({@link DatagramDescriptor#TAG_OFFSET}) names
 * the session, so that a stranger's datagram is dropped before any MAC is computed.
 *
 * @param key the MAC key of the pair's session
 * @param tag the session's tag, never 0 (0 marks a HELLO)
 */
record SessionKeys(RecordMac.Key key, long tag) {

    /** The session of ranks {@code a} and {@code b} whose nonces were {@code nonceA} and {@code nonceB}. */
    static SessionKeys derive(Mac jobMac, int jobId, int a, int b, long nonceA, long nonceB) {
        // the lower rank first, so that both ends derive the same
        boolean aFirst = a < b;
        byte[] key = prf(jobMac, "tutti session key", jobId, aFirst ? a : b, aFirst ? b : a,
                aFirst ? nonceA : nonceB, aFirst ? nonceB : nonceA);
        byte[] tagBytes = prf(jobMac, "tutti session tag", jobId, aFirst ? a : b, aFirst ? b : a,
                aFirst ? nonceA : nonceB, aFirst ? nonceB : nonceA);
        long tag = ByteBuffer.wrap(tagBytes).getLong();
        return new SessionKeys(RecordMac.key(key), tag == 0 ? 1 : tag);
    }

    private static byte[] prf(Mac jobMac, String label, int jobId, int lo, int hi, long nonceLo, long nonceHi) {
        byte[] l = label.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer in = ByteBuffer.allocate(l.length + 4 * 3 + 8 * 2);
        in.put(l).putInt(jobId).putInt(lo).putInt(hi).putLong(nonceLo).putLong(nonceHi);
        synchronized (jobMac) {
            return jobMac.doFinal(in.array());
        }
    }
}

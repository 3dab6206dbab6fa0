package io.tutti.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The rendezvous protocol between {@code tutti run} ({@link RendezvousServer}) and its ranks
 * ({@link RendezvousClient}), over TCP or a Unix domain socket.
 *
 * <p>Every message is a frame: a 4-byte big-endian length N (1 to {@value #MAX_FRAME}), then N
 * bytes: a type byte, a 4-byte request id, and fields, each a 4-byte length and that many bytes
 * (UTF-8 for text). A connection is authenticated once, both ways, by HMAC-SHA256 keyed with the
 * job secret, which never crosses the wire: the server sends HELLO(magic, server nonce); the rank
 * answers AUTH(job id, rank, client nonce, HMAC("rank", job, rank, both nonces)); the server
 * answers WELCOME(HMAC("launcher", job, rank, both nonces)), or DENIED(reason) and closes. Then
 * the rank sends PUT(key, value), GET(key) (answered with VALUE once the key exists) and
 * FENCE(epoch) (answered with DONE once every rank reached that epoch); both sides PING every
 * second; a rank that has finished starting says STARTED, and the server says STARTED to every
 * rank once all have started or died; a rank done with the job says BYE (and keeps the connection until its
 * process ends), the server ends with END. A connection that closes without either, or is silent
 * for 10 s, is a death: the rank's (for the launcher) or the launcher's (for the rank); until every
 * rank has started, silence counts only after 60 s, and a connection has as long to authenticate.
 * The server tells every other rank of a rank's death at once with FAILED(rank, reason), and a rank
 * that joins later of the deaths before it, so no rank waits for a silence timeout to learn of one.
 * A rank on another host than the launcher sends COPY(name, bytes) of its counters file in place of
 * its pings, which the launcher keeps as a copy in its own job directory. A rail command posted in
 * that copy travels to the rank as RAIL(command word), and the rank's answer comes back as
 * RAIL_ANSWER(answer word), both in {@link io.tutti.transport.RailCounters}' encoding. STACKS asks a
 * rank to print its threads' stacks on its standard error, and the rank answers STACKS once it has.
 * SPAWN(main class, count, parents, arguments...) asks the launcher to start {@code count} new
 * processes that join a new job with the {@code parents} spawning ranks; it is answered with
 * VALUE(new job id, newline, its rendezvous addresses) once they are started, or ERROR(why). The new
 * job's secret is derived from this one's ({@link #spawnSecret}), so it never crosses the wire either.
 * PORT(operation, arguments...) asks for a port or a published name ({@code Tutti.openPort} and the
 * calls after it): open, close, accept and connect (answered once both sides of a port have come:
 * the joined job's id, addresses and its secret sealed with this job's, {@link #seal}), publish,
 * lookup and unpublish; each is answered with VALUE or ERROR(why). Another launcher may connect for
 * its ranks with a port's credential in place of the job secret ({@link #PORT_CLIENT}).
 */
public final class RendezvousWire {
    /** The protocol's name and version: 2 added STARTED and STACKS, which a version 1 rank takes for an error. */
    static final String MAGIC = "tutti-rendezvous-2";
    static final int MAX_FRAME = 1 << 20;
    static final int NONCE_BYTES = 32;

    static final byte HELLO = 1;
    static final byte AUTH = 2;
    static final byte WELCOME = 3;
    static final byte DENIED = 4;
    static final byte PUT = 5;
    static final byte GET = 6;
    static final byte FENCE = 7;
    static final byte VALUE = 8;
    static final byte DONE = 9;
    static final byte PING = 10;
    static final byte BYE = 11;
    static final byte END = 12;
    static final byte ERROR = 13;
    static final byte FAILED = 14;
    static final byte COPY = 15;
    static final byte RAIL = 16;
    static final byte RAIL_ANSWER = 17;
    /** Rank to launcher: this rank has finished starting ({@code Tutti.init} is done); back to all: every rank has. */
    static final byte STARTED = 18;
    /** Launcher to rank: print your threads' stacks on standard error; rank to launcher: printed. */
    static final byte STACKS = 19;
    /** Rank to launcher: start the processes of a spawned job; answered with VALUE or ERROR. */
    static final byte SPAWN = 20;
    /**
     * What a port's client (another launcher, for its ranks) puts before the port's id in AUTH's job
     * field, with rank -1, proving the port's credential in place of the job secret; it may then send
     * PORT connect only.
     */
    public static final String PORT_CLIENT = "port:";
    /** Rank to launcher: a port or name operation ({@link RendezvousServer.PortHandler}); answered with VALUE or ERROR. */
    static final byte PORT = 21;

    private RendezvousWire() {
    }

    /** One message: its type, the request it answers (0 for none) and its fields. */
    record Frame(byte type, int id, List<byte[]> fields) {
        String text(int i) {
            if (i >= fields.size()) {
                throw new IllegalArgumentException("a rendezvous message of type " + type + " lacks field " + i);
            }
            return new String(fields.get(i), StandardCharsets.UTF_8);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes one frame; callers serialise writes on a channel. */
    static void write(WritableByteChannel ch, byte type, int id, byte[]... fields) throws IOException {
        int n = 1 + 4;
        for (byte[] f : fields) {
            n += 4 + f.length;
        }
        if (n > MAX_FRAME) {
            throw new IOException("a rendezvous message of " + n + " bytes is over the limit of " + MAX_FRAME);
        }
        ByteBuffer b = ByteBuffer.allocate(4 + n);
        b.putInt(n).put(type).putInt(id);
        for (byte[] f : fields) {
            b.putInt(f.length).put(f);
        }
        b.flip();
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Reads one frame; EOF before its first byte is {@link EOFException}, a malformed frame an IOException. */
    static Frame read(ReadableByteChannel ch) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4);
        fill(ch, len, true);
        int n = len.flip().getInt();
        if (n < 5 || n > MAX_FRAME) {
            throw new IOException("bad rendezvous frame length " + n);
        }
        ByteBuffer body = ByteBuffer.allocate(n);
        fill(ch, body, false);
        body.flip();
        byte type = body.get();
        int id = body.getInt();
        List<byte[]> fields = new ArrayList<>();
        while (body.hasRemaining()) {
            if (body.remaining() < 4) {
                throw new IOException("truncated rendezvous field");
            }
            int fl = body.getInt();
            if (fl < 0 || fl > body.remaining()) {
                throw new IOException("bad rendezvous field length " + fl);
            }
            byte[] f = new byte[fl];
            body.get(f);
            fields.add(f);
        }
        return new Frame(type, id, fields);
    }

    private static void fill(ReadableByteChannel ch, ByteBuffer b, boolean eofOk) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                if (eofOk && b.position() == 0) {
                    throw new EOFException("connection closed");
                }
                throw new IOException("rendezvous message truncated: the connection closed in the middle of it");
            }
        }
    }

    /** HMAC-SHA256 over {@code parts}, each preceded by its length so that no two lists give one input. */
    static byte[] mac(byte[] secret, byte[]... parts) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret.length == 0 ? new byte[1] : secret, "HmacSHA256"));
            for (byte[] p : parts) {
                m.update(ByteBuffer.allocate(4).putInt(p.length).array());
                m.update(p);
            }
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
    }

    /**
     * The secret of job {@code spawnedJob}, spawned from a job with secret {@code jobSecret}: the
     * launcher and the spawning ranks each derive it, and the new processes get it as any rank gets
     * its job's secret.
     */
    public static byte[] spawnSecret(byte[] jobSecret, String spawnedJob) {
        return mac(jobSecret, utf8("spawn"), utf8(spawnedJob));
    }

    /**
     * {@code secret} sealed for (or, applied again, opened by) the ranks of a job with secret
     * {@code jobSecret}, for the joined job {@code joinedJob}: XOR with an HMAC that no other job can
     * make, used once (a joined job's id is new), so the joined job's secret can cross the wire to
     * ranks of two jobs that share no secret. {@code secret} is at most 32 bytes.
     */
    public static byte[] seal(byte[] jobSecret, String joinedJob, byte[] secret) {
        byte[] pad = mac(jobSecret, utf8("port"), utf8(joinedJob));
        if (secret.length > pad.length) {
            throw new IllegalArgumentException("a secret of " + secret.length + " bytes: at most " + pad.length);
        }
        byte[] out = new byte[secret.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (secret[i] ^ pad[i]);
        }
        return out;
    }

    /**
     * The launcher's answer to an accept or a connect: the joined job's id and rendezvous addresses,
     * its secret sealed for the asking job ({@link #seal}), and the two groups' sizes, accepting first.
     * On the wire as those five lines.
     */
    public record Meeting(String id, String addresses, byte[] sealed, int acceptors, int connectors) {
        public String text() {
            return id + "\n" + addresses + "\n" + java.util.HexFormat.of().formatHex(sealed) + "\n" + acceptors
                    + "\n" + connectors;
        }

        /** {@code text} as {@link #text} wrote it; IllegalArgumentException when it is not one. */
        public static Meeting parse(String text) {
            String[] parts = text.split("\n", -1);
            if (parts.length != 5) {
                throw new IllegalArgumentException("a malformed answer to a port's meeting");
            }
            return new Meeting(parts[0], parts[1], java.util.HexFormat.of().parseHex(parts[2]),
                    Integer.parseInt(parts[3]), Integer.parseInt(parts[4]));
        }

        /** The joined job's secret, opened with the secret of the job it was sealed for. */
        public byte[] secret(byte[] jobSecret) {
            return seal(jobSecret, id, sealed);
        }

        /** The same meeting with the secret sealed for {@code to}, opened with {@code from}. */
        public Meeting resealed(byte[] from, byte[] to) {
            return new Meeting(id, addresses, seal(to, id, secret(from)), acceptors, connectors);
        }
    }

    static boolean sameMac(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    /** {@code unix:/path} or {@code tcp:host:port} (an IPv6 host in brackets). */
    static SocketAddress parse(String address) {
        if (address.startsWith("unix:")) {
            return UnixDomainSocketAddress.of(address.substring(5));
        }
        if (address.startsWith("tcp:")) {
            String hp = address.substring(4);
            int colon = hp.lastIndexOf(':');
            if (colon > 0) {
                String host = hp.substring(0, colon);
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                try {
                    return new InetSocketAddress(host, Integer.parseInt(hp.substring(colon + 1)));
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
        }
        throw new IllegalArgumentException("bad rendezvous address '" + address
                + "': expected unix:/path or tcp:host:port");
    }
}

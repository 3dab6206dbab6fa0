package io.tutti.bootstrap;

import io.tutti.transport.KeyValueStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The rendezvous store on a PMI-2 launcher's key-value space: a put is {@code kvs-put}, a fence
 * {@code kvs-fence}, a get {@code kvs-get}, which sees what every rank put before the last fence
 * (so a get of a key no rank put by then fails at once instead of waiting). Values are
 * percent-encoded (no {@code ;}, {@code =}, {@code %}, blank or control character reaches the
 * wire) and must stay within PMI's {@value Pmi2Client#MAX_VALUE} bytes encoded.
 */
final class PmiKeyValueStore implements KeyValueStore {
    private final Pmi2Client client;
    private final long timeoutMillis;

    PmiKeyValueStore(Pmi2Client client, Duration timeout) {
        this.client = client;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    @Override
    public void put(String key, String value) {
        checkKey(key);
        String encoded = encode(value);
        if (encoded.length() > Pmi2Client.MAX_VALUE) {
            throw new IllegalArgumentException("the rendezvous value for '" + key + "' is " + encoded.length()
                    + " bytes encoded, more than the " + Pmi2Client.MAX_VALUE + " a PMI launcher takes;"
                    + " use fewer rails or addresses, or start the job with 'tutti run'");
        }
        try {
            client.put(key, encoded, timeoutMillis);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the PMI server did not take '" + key + "' within " + timeoutMillis
                    + " ms");
        }
    }

    @Override
    public String get(String key) throws TimeoutException {
        checkKey(key);
        String v = client.get(key, timeoutMillis);
        if (v == null) {
            throw new IllegalStateException("no rank put '" + key + "' in the PMI key-value space before the last"
                    + " fence; did every rank start the same program?");
        }
        return decode(v);
    }

    @Override
    public void fence() throws TimeoutException {
        try {
            client.fence(timeoutMillis);
        } catch (TimeoutException e) {
            throw new TimeoutException("not every rank reached the PMI fence within " + timeoutMillis
                    + " ms; did every rank start?");
        }
    }

    private static void checkKey(String key) {
        if (key.isEmpty() || key.length() > Pmi2Client.MAX_KEY || !key.matches("[A-Za-z0-9._:-]+")) {
            throw new IllegalArgumentException("bad PMI rendezvous key '" + key + "' (1 to " + Pmi2Client.MAX_KEY
                    + " letters, digits and . _ : -)");
        }
    }

    /** UTF-8 with {@code %XX} for {@code %}, {@code ;}, {@code =} and every byte outside 0x21–0x7e. */
    static String encode(String value) {
        StringBuilder b = new StringBuilder();
        for (byte x : value.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c <= 0x20 || c >= 0x7f || c == '%' || c == ';' || c == '=') {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            } else {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    static String decode(String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                out.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}

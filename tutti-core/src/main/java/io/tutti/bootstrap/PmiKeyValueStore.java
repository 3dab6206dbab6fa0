package io.tutti.bootstrap;

import io.tutti.transport.KeyValueStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The rendezvous store on a launcher's PMI-2 or PMIx key-value space ({@link PmiConnection}): a get
 * sees what the named rank put before the last fence (so a get of a key that rank had not put by
 * then fails at once instead of waiting). Values are percent-encoded (no {@code ;}, {@code =},
 * {@code %}, blank or control character reaches the launcher: PMI-2's wire needs it) and must stay
 * within the launcher's longest value ({@value Pmi2Client#MAX_VALUE} bytes under PMI-2) encoded.
 */
final class PmiKeyValueStore implements KeyValueStore {
    private final PmiConnection client;
    private final long timeoutMillis;

    PmiKeyValueStore(PmiConnection client, Duration timeout) {
        this.client = client;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    @Override
    public void put(String key, String value) {
        checkKey(key);
        String encoded = encode(value);
        if (encoded.length() > client.maxValue()) {
            throw new IllegalArgumentException("the rendezvous value for '" + key + "' is " + encoded.length()
                    + " bytes encoded, more than the " + client.maxValue() + " a " + client.name() + " launcher takes;"
                    + " use fewer rails or addresses, or start the job with 'tutti run'");
        }
        try {
            client.put(key, encoded, timeoutMillis);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the " + client.name() + " server did not take '" + key + "' within "
                    + timeoutMillis + " ms");
        }
    }

    @Override
    public String get(int owner, String key) throws TimeoutException {
        checkKey(key);
        String v = client.get(owner, key, timeoutMillis);
        if (v == null) {
            throw new IllegalStateException("rank " + owner + " put no '" + key + "' in the " + client.name()
                    + " key-value space before the last fence; did every rank start the same program?");
        }
        return decode(v);
    }

    @Override
    public void fence() throws TimeoutException {
        try {
            client.fence(timeoutMillis);
        } catch (TimeoutException e) {
            throw new TimeoutException("not every rank reached the " + client.name() + " fence within " + timeoutMillis
                    + " ms; did every rank start?");
        }
    }

    private void checkKey(String key) {
        if (key.isEmpty() || key.length() > client.maxKey() || !key.matches("[A-Za-z0-9._:-]+")) {
            throw new IllegalArgumentException("bad " + client.name() + " rendezvous key '" + key + "' (1 to "
                    + client.maxKey() + " letters, digits and . _ : -)");
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

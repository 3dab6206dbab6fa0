package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the start-up's wire formats, what a launcher or a stranger on its
 * port sends: the rendezvous server's frames ({@link RendezvousWire#read}: a frame, or an
 * IOException, never another exception, never more than a frame's limit read), the PMI-2
 * answers ({@link Pmi2Client}: a usable length or an IllegalStateException; pairs, or an
 * IllegalStateException) and PMI-1 lines. What the encoders write decodes to what they were
 * given. The corpora run as regression tests in every build; {@code bench/fuzz.sh} fuzzes them.
 */
class BootstrapWireFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void rendezvousFrames(FuzzedDataProvider data) throws IOException {
        if (data.consumeBoolean()) {
            // round trip: what write sends, read gives back
            byte type = data.consumeByte();
            int id = data.consumeInt();
            List<byte[]> fields = new ArrayList<>();
            for (int n = data.consumeInt(0, 4); n > 0; n--) {
                fields.add(data.consumeBytes(200));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            RendezvousWire.write(Channels.newChannel(out), type, id, fields.toArray(byte[][]::new));
            RendezvousWire.Frame f = RendezvousWire.read(Channels.newChannel(new ByteArrayInputStream(out.toByteArray())));
            assertEquals(type, f.type());
            assertEquals(id, f.id());
            assertEquals(fields.size(), f.fields().size());
            for (int i = 0; i < fields.size(); i++) {
                assertArrayEquals(fields.get(i), f.fields().get(i), "field " + i);
            }
            return;
        }
        byte[] bytes = data.consumeRemainingAsBytes();
        ReadableByteChannel in = Channels.newChannel(new ByteArrayInputStream(bytes));
        // frames one after another, as a connection carries them, until the bytes end or one is malformed
        int read = 0;
        while (true) {
            RendezvousWire.Frame f;
            try {
                f = RendezvousWire.read(in);
            } catch (EOFException e) {
                break;
            } catch (IOException e) {
                assertNotNull(e.getMessage(), "an error says what was wrong");
                break;
            }
            int size = 4 + 1 + 4;
            for (byte[] field : f.fields()) {
                size += 4 + field.length;
                assertTrue(field.length <= RendezvousWire.MAX_FRAME);
            }
            read += size;
            assertTrue(read <= bytes.length, "a frame took more bytes than it was given");
            try {
                f.text(data.remainingBytes() % 4);
            } catch (IllegalArgumentException e) {
                // a field it lacks: the documented answer
            }
        }
    }

    @FuzzTest(maxDuration = "30s")
    void pmiAnswers(FuzzedDataProvider data) {
        String cmd = data.consumeString(16);
        byte[] header = data.consumeBytes(6);
        try {
            int n = Pmi2Client.bodyLength(cmd, header);
            assertTrue(n >= 0, "a length of " + n + " bytes to read");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("length header"), e.getMessage());
        }
        String text = data.consumeString(400);
        Map<String, String> pairs = Pmi2Client.parse(text);
        for (String k : pairs.keySet()) {
            assertFalse(k.contains(";"), "a key across a separator: " + k);
        }
        try {
            Map<String, String> r = Pmi2Client.answer(cmd, text.getBytes(StandardCharsets.UTF_8));
            assertEquals("0", r.get("rc"));
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().startsWith("the PMI server"), e.getMessage());
        }
        Pmi2Client.parseLine(data.consumeRemainingAsString());
    }

    @FuzzTest(maxDuration = "30s")
    void pmiCommandsRoundTrip(FuzzedDataProvider data) {
        String cmd = data.consumeString(16).replaceAll("[=;]", "");
        int pairs = data.consumeInt(0, 4);
        String[] args = new String[2 * pairs];
        for (int i = 0; i < pairs; i++) {
            // keys are the client's own names (no '=' nor ';', not empty, not cmd); values anything
            args[2 * i] = "k" + i + data.consumeString(8).replaceAll("[=;]", "");
            args[2 * i + 1] = data.consumeString(64);
        }
        Map<String, String> back = Pmi2Client.parse(Pmi2Client.encode(cmd, args));
        assertEquals(cmd, back.get("cmd"));
        for (int i = 0; i < pairs; i++) {
            assertEquals(args[2 * i + 1], back.get(args[2 * i]), "the value of " + args[2 * i]);
        }
    }
}

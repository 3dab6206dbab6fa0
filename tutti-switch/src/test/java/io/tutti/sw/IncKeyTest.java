package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.TuttiException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Reading a key file: hex digits in a file only its owner may use; anything else a one-line error that says what to do. */
@Timeout(10)
class IncKeyTest {
    static final String HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    @TempDir
    Path dir;

    Path file(String text, String perms) throws Exception {
        Path f = dir.resolve("switch.key");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
        return f;
    }

    static String refusal(Path f) {
        String m = assertThrows(TuttiException.InvalidArgument.class, () -> IncKey.read("--key-file", f)).getMessage();
        assertFalse(m.contains("\n"), m);
        assertTrue(m.startsWith("--key-file " + f), m);
        return m;
    }

    @Test
    void anOwnerOnlyFileOfHexDigitsIsAKey() throws Exception {
        IncKey k = IncKey.read("--key-file", file(HEX + "\n", "rw-------"));
        assertEquals(32, k.bytes().length);
        assertEquals((byte) 0xff, k.bytes()[15]);
        assertFalse(k.toString().contains("0011"), "the key is never printed");
        assertEquals(32, IncKey.read("--key-file", file("  " + HEX.toUpperCase(java.util.Locale.ROOT), "r--------"))
                .bytes().length);
    }

    @Test
    void aFileOthersMayReadIsRefusedWithTheChmodThatFixesIt() throws Exception {
        for (String perms : new String[] {"rw-r-----", "rw----r--", "rw-rw-rw-", "rw-----w-"}) {
            Path f = file(HEX, perms);
            String m = refusal(f);
            assertTrue(m.endsWith("run chmod 600 " + f), m);
        }
    }

    @Test
    void somethingElseThanHexDigitsIsRefused() throws Exception {
        for (String text : new String[] {"", "abcd", HEX.substring(1), HEX.replace('a', 'g'), "secret passphrase ok?"}) {
            String m = refusal(file(text, "rw-------"));
            assertTrue(m.contains("hex digits") && m.contains("openssl rand -hex 32"), m);
            assertFalse(text.length() > 8 && m.contains(text), "the content is not echoed: " + m);
        }
    }

    @Test
    void aMissingFileIsNamed() {
        assertTrue(refusal(dir.resolve("none")).endsWith("no such file"));
    }
}

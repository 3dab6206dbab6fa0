package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SizesTest {
    @Test
    void plainSuffixedAndPowersOfTwo() {
        assertEquals(0, Sizes.parse("0"));
        assertEquals(8, Sizes.parse(" 8 "));
        assertEquals(64 * 1024, Sizes.parse("64k"));
        assertEquals(64 * 1024, Sizes.parse("64K"));
        assertEquals(1 << 20, Sizes.parse("1m"));
        assertEquals(3L << 30, Sizes.parse("3g"));
        assertEquals(1L << 20, Sizes.parse("2^20"));
        assertArrayEquals(new long[] {8, 1024, 1 << 20}, Sizes.parseList("8,1k,1m"));
    }

    @Test
    void badSizesSayHowToWriteThem() {
        for (String bad : new String[] {"", "k", "1.5k", "lots", "2^x", "2^63", "99999999999g"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sizes.parse(bad), bad);
            assertTrue(e.getMessage().contains("is not a size") && e.getMessage().contains("64k"), e.getMessage());
        }
        assertThrows(CommandLine.TypeConversionException.class, () -> new Sizes().convert("lots"));
    }
}

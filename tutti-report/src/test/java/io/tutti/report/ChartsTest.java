package io.tutti.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The size labels and the file formats of every plot; the plots themselves are tested where they are drawn. */
class ChartsTest {
    @Test
    void sizesReadInBinaryUnits() {
        assertEquals("8 B", Charts.size(8));
        assertEquals("1000 B", Charts.size(1000));
        assertEquals("1 KiB", Charts.size(1024));
        assertEquals("1.5 KiB", Charts.size(1536));
        assertEquals("64 KiB", Charts.size(64 * 1024));
        assertEquals("1 MiB", Charts.size(1 << 20));
        assertEquals("4 MiB", Charts.size(4 << 20));
        assertEquals("5.66 B", Charts.size(Math.pow(2, 2.5)));
        assertEquals("10 KiB", Charts.size(10 * 1024));
        assertEquals(10.0, Charts.sizeX(1024), 1e-12);
    }

    @Test
    void theExtensionChoosesTheFormat() {
        assertEquals("svg", Charts.format("a/b.SVG"));
        assertEquals("png", Charts.format("b.png"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Charts.format("b.pdf")).getMessage()
                .contains("x.png or x.svg"));
        assertThrows(IllegalArgumentException.class, () -> Charts.format("plot"));
    }
}

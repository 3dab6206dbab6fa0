package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;

/** A source program's classes as a rank on another host gets them: a jar after the secret on its input. */
class ShippedClassesTest {
    /** A class with nothing but Object behind it, so that a loader without this test's class path can define it. */
    public static final class Probe {
        @Override
        public String toString() {
            return "probe";
        }
    }

    private static byte[] jarOfProbe() throws Exception {
        String entry = Probe.class.getName().replace('.', '/') + ".class";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes);
             InputStream in = Probe.class.getClassLoader().getResourceAsStream(entry)) {
            jar.putNextEntry(new JarEntry(entry));
            in.transferTo(jar);
            jar.closeEntry();
        }
        return bytes.toByteArray();
    }

    @Test
    void theClassesAreDefinedFromTheJarAndWhatFollowsItIsLeftForTheProgram() throws Exception {
        byte[] jar = jarOfProbe();
        byte[] input = new byte[jar.length + 6];
        System.arraycopy(jar, 0, input, 0, jar.length);
        System.arraycopy("hello\n".getBytes(), 0, input, jar.length, 6);
        ByteArrayInputStream in = new ByteArrayInputStream(input);
        ClassLoader loader = ShippedClasses.read(in, jar.length, ClassLoader.getPlatformClassLoader());
        Class<?> c = Class.forName(Probe.class.getName(), true, loader);
        assertSame(loader, c.getClassLoader(), "the class came from elsewhere than the jar");
        assertEquals("probe", c.getDeclaredConstructor().newInstance().toString());
        assertEquals("hello\n", new String(in.readAllBytes()), "the program's own input was consumed");
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.tutti.bootstrap.Absent", true, loader));
    }

    @Test
    void anInputThatEndsBeforeTheJarSaysHowMuchCame() throws Exception {
        byte[] jar = jarOfProbe();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ShippedClasses.read(
                new ByteArrayInputStream(jar, 0, 10), jar.length, ClassLoader.getPlatformClassLoader()));
        assertTrue(e.getMessage().contains("ended after 10"), e.getMessage());
    }
}

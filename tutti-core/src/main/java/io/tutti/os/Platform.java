package io.tutti.os;

/**
 * What the JVM says about the machine it runs on: the operating system and the processor
 * architecture, which decide whether the system calls of this package exist. Read once; the one
 * place outside {@code io.tutti.bootstrap} that reads system properties (the layer rules check it).
 */
public final class Platform {
    /** Whether the operating system is Linux (futexes, process_vm_readv, prctl, /proc and /sys). */
    public static final boolean LINUX = System.getProperty("os.name", "").startsWith("Linux");
    /** The processor architecture as the JVM names it ({@code amd64}, {@code aarch64}, ...). */
    public static final String ARCH = System.getProperty("os.arch", "");

    private Platform() {
    }
}

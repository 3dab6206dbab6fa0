package io.tutti.os;

/**
 * What the JVM says about itself and the machine it runs on: the operating system and the processor
 * architecture, which decide whether the system calls of this package exist, and the JVM's own
 * installation and user, which the launcher starts ranks with. Facts, not settings: read once; the
 * one place outside {@code io.tutti.bootstrap} that reads system properties (the layer rules check it).
 */
public final class Platform {
    /** Whether the operating system is Linux (futexes, process_vm_readv, prctl, /proc and /sys). */
    public static final boolean LINUX = System.getProperty("os.name", "").startsWith("Linux");
    /** The processor architecture as the JVM names it ({@code amd64}, {@code aarch64}, ...). */
    public static final String ARCH = System.getProperty("os.arch", "");

    /** The running JVM's installation ({@code java.home}): ranks start with its {@code bin/java}. */
    public static final String JAVA_HOME = System.getProperty("java.home");
    /** The running JVM's vendor, for version reports. */
    public static final String JAVA_VENDOR = System.getProperty("java.vendor", "unknown vendor");
    /** The running JVM's class path, which ranks started from it inherit. */
    public static final String CLASS_PATH = System.getProperty("java.class.path", "");
    /** The user the JVM runs as: whose leftover job directories are whose. */
    public static final String USER = System.getProperty("user.name");
    /** That user's home directory, where per-user caches go by default. */
    public static final String USER_HOME = System.getProperty("user.home", "");
    /** The running JVM's exact build ({@code java.vm.version}): what a cache of its start-up is tied to. */
    public static final String VM_VERSION = System.getProperty("java.vm.version", "");

    private Platform() {
    }
}

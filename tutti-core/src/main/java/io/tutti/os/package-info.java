/**
 * The boundary to the operating system: native memory Tutti owns ({@link io.tutti.os.Memory}), the
 * system calls it makes through the FFM API (futexes, process_vm_readv/writev, prctl, and read,
 * write and poll of an inherited descriptor: {@link io.tutti.os.RawFd}), the launcher's PMIx client
 * library ({@link io.tutti.os.Pmix}), the CPU a thread runs on, and the platform facts that decide
 * whether they exist ({@link io.tutti.os.Platform}).
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.os;

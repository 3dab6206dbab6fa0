package io.tutti.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The PMIx client library ({@code libpmix.so.2}) through the FFM API: init, put, commit, fence,
 * get and finalize, the calls a rank needs to meet the others through a PMIx server such as Open
 * MPI's {@code mpirun} or {@code srun --mpi=pmix}. Only string values and one-element info arrays
 * cross, so just three layout facts of {@code pmix_common.h} are relied on, the same in PMIx 3 to 5:
 * {@code pmix_proc_t} is a 256-byte namespace and a uint32 rank; a {@code pmix_value_t} holds a
 * uint16 type and its datum at offset 8; a {@code pmix_info_t} holds a 512-byte key, uint32 flags
 * and its value at offset 520. Calls block (the caller bounds them) and allocate: start-up only.
 */
public final class Pmix {
    private static final long NSPACE = 256;
    private static final long PROC = 260;
    private static final long VALUE = 32;
    private static final long INFO = 552;
    private static final long INFO_VALUE = 520;
    private static final long DATUM = 8;
    private static final short PMIX_BOOL = 1;
    private static final short PMIX_STRING = 3;
    private static final byte PMIX_GLOBAL = 3;

    private final MethodHandle put;
    private final MethodHandle commit;
    private final MethodHandle fence;
    private final MethodHandle get;
    private final MethodHandle finalizer;
    private final MethodHandle errorString;
    private final MethodHandle destruct;
    private final String nspace;
    private final int rank;
    private final String version;

    private Pmix(SymbolLookup lib, String library) throws Throwable {
        MethodHandle init = handle(lib, library, "PMIx_Init", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        this.put = handle(lib, library, "PMIx_Put", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_BYTE, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        this.commit = handle(lib, library, "PMIx_Commit", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        this.fence = handle(lib, library, "PMIx_Fence", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        this.get = handle(lib, library, "PMIx_Get", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS));
        this.finalizer = handle(lib, library, "PMIx_Finalize", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        this.errorString = handle(lib, library, "PMIx_Error_string", FunctionDescriptor.of(ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT));
        this.destruct = handle(lib, library, "PMIx_Value_destruct", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        MethodHandle versionOf = handle(lib, library, "PMIx_Get_version", FunctionDescriptor.of(ValueLayout.ADDRESS));
        this.version = text((MemorySegment) versionOf.invokeExact());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment me = arena.allocate(PROC, 8);
            int rc = (int) init.invokeExact(me, MemorySegment.NULL, 0L);
            check(rc, "PMIx_Init");
            this.nspace = me.getString(0, StandardCharsets.UTF_8);
            this.rank = me.get(ValueLayout.JAVA_INT, NSPACE);
        }
    }

    /**
     * Loads the PMIx client library (the first of {@code candidates}, names or paths, that loads) and
     * joins the job of the PMIx server named in this process's environment.
     *
     * @throws IllegalStateException naming the library and what to do, when none loads or init fails
     */
    public static Pmix init(List<String> candidates) {
        List<String> failures = new ArrayList<>();
        for (String library : candidates) {
            SymbolLookup lib;
            try {
                lib = SymbolLookup.libraryLookup(library, Arena.global());
            } catch (IllegalArgumentException | IllegalCallerException e) {
                failures.add(library + ": " + e.getMessage());
                continue;
            }
            try {
                return new Pmix(lib, library);
            } catch (IllegalStateException e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("calling the PMIx library " + library + " failed: " + e, e);
            }
        }
        throw new IllegalStateException("no PMIx client library could be loaded (" + String.join("; ", failures)
                + ")");
    }

    /** This process's namespace (the job, as the PMIx server names it). */
    public String nspace() {
        return nspace;
    }

    /** This process's rank in its namespace. */
    public int rank() {
        return rank;
    }

    /** The library's version line, e.g. {@code OpenPMIx 4.2.2}. */
    public String version() {
        return version;
    }

    /** Publishes a string under {@code key} for every process of the job (scope global); commit sends it. */
    public void put(String key, String value) {
        call("PMIx_Put", arena -> {
            MemorySegment v = arena.allocate(VALUE, 8);
            v.set(ValueLayout.JAVA_SHORT, 0, PMIX_STRING);
            v.set(ValueLayout.ADDRESS, DATUM, arena.allocateFrom(value, StandardCharsets.UTF_8));
            check((int) put.invokeExact(PMIX_GLOBAL, arena.allocateFrom(key, StandardCharsets.UTF_8), v),
                    "PMIx_Put of '" + key + "'");
            return null;
        });
    }

    /** Hands the puts since the last commit to the PMIx server. */
    public void commit() {
        call("PMIx_Commit", arena -> {
            check((int) commit.invokeExact(), "PMIx_Commit");
            return null;
        });
    }

    /** Waits for every process of the job, collecting what each committed so that a get finds it here. */
    public void fence() {
        call("PMIx_Fence", arena -> {
            MemorySegment info = arena.allocate(INFO, 8);
            info.setString(0, "pmix.collect", StandardCharsets.UTF_8); // PMIX_COLLECT_DATA
            info.set(ValueLayout.JAVA_SHORT, INFO_VALUE, PMIX_BOOL);
            info.set(ValueLayout.JAVA_BYTE, INFO_VALUE + DATUM, (byte) 1);
            check((int) fence.invokeExact(MemorySegment.NULL, 0L, info, 1L), "PMIx_Fence");
            return null;
        });
    }

    /**
     * The string process {@code source} of this job put under {@code key}; waits while the server
     * looks for it (bounded by the caller).
     */
    public String get(int source, String key) {
        return call("PMIx_Get", arena -> {
            MemorySegment proc = arena.allocate(PROC, 8);
            proc.setString(0, nspace, StandardCharsets.UTF_8);
            proc.set(ValueLayout.JAVA_INT, NSPACE, source);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int rc = (int) get.invokeExact(proc, arena.allocateFrom(key, StandardCharsets.UTF_8), MemorySegment.NULL,
                    0L, out);
            check(rc, "PMIx_Get of rank " + source + "'s '" + key + "'");
            MemorySegment v = out.get(ValueLayout.ADDRESS, 0).reinterpret(VALUE);
            try {
                short type = v.get(ValueLayout.JAVA_SHORT, 0);
                if (type != PMIX_STRING) {
                    throw new IllegalStateException("rank " + source + "'s '" + key + "' is of PMIx type " + type
                            + ", not a string");
                }
                return text(v.get(ValueLayout.ADDRESS, DATUM));
            } finally {
                destruct.invokeExact(v); // the value's string; the value itself is a few bytes, left
            }
        });
    }

    /** Tells the server this process is done with PMIx. */
    public void finish() {
        call("PMIx_Finalize", arena -> {
            check((int) finalizer.invokeExact(MemorySegment.NULL, 0L), "PMIx_Finalize");
            return null;
        });
    }

    /** A call into the library with a confined arena for its arguments. */
    private interface NativeCall<T> {
        T run(Arena arena) throws Throwable;
    }

    /** Runs {@code c}; a failed PMIx status stays as {@link #check} words it, anything else names {@code name}. */
    private static <T> T call(String name, NativeCall<T> c) {
        try (Arena arena = Arena.ofConfined()) {
            return c.run(arena);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(name + " could not be called", e);
        }
    }

    private void check(int rc, String what) throws Throwable {
        if (rc != 0) {
            String name = errorString == null ? "" : text((MemorySegment) errorString.invokeExact(rc));
            throw new IllegalStateException(what + " failed: " + (name.isEmpty() ? "status " + rc : name + " (" + rc
                    + ")"));
        }
    }

    private static String text(MemorySegment cString) {
        return cString.equals(MemorySegment.NULL) ? ""
                : cString.reinterpret(Integer.MAX_VALUE).getString(0, StandardCharsets.UTF_8);
    }

    private static MethodHandle handle(SymbolLookup lib, String library, String name, FunctionDescriptor fd) {
        MemorySegment symbol = lib.find(name).orElseThrow(() -> new IllegalStateException("the PMIx library "
                + library + " has no " + name + "; it is not a PMIx client library of version 3 or newer"));
        return Linker.nativeLinker().downcallHandle(symbol, fd);
    }
}

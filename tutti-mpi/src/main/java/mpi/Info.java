package mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hints as (key, value) strings (MPI_Info). Calls that take one accept it and, as MPI allows,
 * ignore hints they do not know: Tutti takes none of them. {@link MPI#INFO_ENV} holds what MPI's
 * environment info does where it is known here ({@code host}, {@code wdir}, {@code maxprocs}).
 */
public final class Info implements Freeable {
    private Map<String, String> entries;
    private final boolean predefined;

    /** An empty info object (MPI_INFO_CREATE). */
    public Info() throws MPIException {
        MPI.check();
        this.entries = new LinkedHashMap<>();
        this.predefined = false;
    }

    private Info(Map<String, String> entries) {
        this.entries = entries;
        this.predefined = true;
    }

    /** A predefined info: {@link MPI#INFO_NULL} (null entries) or {@link MPI#INFO_ENV}. */
    static Info predefined(boolean empty) {
        return new Info(empty ? null : new LinkedHashMap<>());
    }

    /** Fills {@link MPI#INFO_ENV}, at {@link MPI#Init}. */
    void environment(String host, int size) {
        entries.put("host", host);
        entries.put("wdir", java.nio.file.Path.of("").toAbsolutePath().toString());
        entries.put("maxprocs", Integer.toString(size));
    }

    private Map<String, String> entries(String call) throws MPIException {
        MPI.check();
        if (entries == null) {
            throw Errors.error(MPI.ERR_INFO, call + ": the info is null (MPI.INFO_NULL, or freed)");
        }
        return entries;
    }

    /** Sets {@code key} to {@code value} (MPI_INFO_SET). */
    public void set(String key, String value) throws MPIException {
        Map<String, String> e = entries("Info.set");
        checkKey(key, "Info.set");
        if (value == null || value.isEmpty() || value.length() >= MPI.MAX_INFO_VAL) {
            throw Errors.error(MPI.ERR_INFO_VALUE, "Info.set: a value has 1 to " + (MPI.MAX_INFO_VAL - 1)
                    + " characters");
        }
        e.put(key, value);
    }

    /** The value of {@code key}, or null if it has none (MPI_INFO_GET). */
    public String get(String key) throws MPIException {
        Map<String, String> e = entries("Info.get");
        checkKey(key, "Info.get");
        return e.get(key);
    }

    /** Removes {@code key} (MPI_INFO_DELETE); one that is not set fails with {@link MPI#ERR_INFO_NOKEY}. */
    public void delete(String key) throws MPIException {
        Map<String, String> e = entries("Info.delete");
        checkKey(key, "Info.delete");
        if (e.remove(key) == null) {
            throw Errors.error(MPI.ERR_INFO_NOKEY, "Info.delete: the key \"" + key + "\" is not set");
        }
    }

    /** Number of keys set (MPI_INFO_GET_NKEYS). */
    public int size() throws MPIException {
        return entries("Info.size").size();
    }

    /** The {@code i}-th key, in the order they were set (MPI_INFO_GET_NTHKEY). */
    public String getKey(int i) throws MPIException {
        List<String> keys = new ArrayList<>(entries("Info.getKey").keySet());
        if (i < 0 || i >= keys.size()) {
            throw Errors.error(MPI.ERR_ARG, "Info.getKey: " + i + " is not 0.." + (keys.size() - 1));
        }
        return keys.get(i);
    }

    /** A copy (MPI_INFO_DUP). */
    public Info dup() throws MPIException {
        Info copy = new Info();
        copy.entries.putAll(entries("Info.dup"));
        return copy;
    }

    /** Whether this is {@link MPI#INFO_NULL} or freed. */
    public boolean isNull() {
        return entries == null;
    }

    /** Frees the info (MPI_INFO_FREE): null afterwards. The predefined ones cannot be freed ({@link MPI#ERR_INFO}). */
    @Override
    public void free() throws MPIException {
        entries("Info.free");
        if (predefined) {
            throw Errors.error(MPI.ERR_INFO, "Info.free: MPI.INFO_ENV is predefined and cannot be freed");
        }
        entries = null;
    }

    private static void checkKey(String key, String call) throws MPIException {
        if (key == null || key.isEmpty() || key.length() >= MPI.MAX_INFO_KEY) {
            throw Errors.error(MPI.ERR_INFO_KEY, call + ": a key has 1 to " + (MPI.MAX_INFO_KEY - 1) + " characters");
        }
    }
}

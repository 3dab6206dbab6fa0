package mpi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The attributes of one communicator (MPI_COMM_SET_ATTR ...), by keyval, and the keyvals of the
 * process. As in the bindings, a value is kept serialized: {@code getAttr} returns a copy, and
 * {@code dup} copies every attribute to the new communicator.
 */
final class Attributes {
    /** The first keyval {@link #createKeyval} hands out; below are the predefined ones. */
    private static final int FIRST = 16;
    private static final Set<Integer> KEYVALS = ConcurrentHashMap.newKeySet();
    private static int next = FIRST;

    private final Map<Integer, byte[]> values = new HashMap<>();

    static synchronized int createKeyval() {
        int k = next++;
        KEYVALS.add(k);
        return k;
    }

    static void freeKeyval(int keyval) throws MPIException {
        if (!KEYVALS.remove(keyval)) {
            throw Errors.error(MPI.ERR_KEYVAL, "Comm.freeKeyval: " + keyval + " is not a keyval of "
                    + "Comm.createKeyval, or was freed" + (keyval < FIRST ? " (the predefined ones cannot be)" : ""));
        }
    }

    /** The value of a predefined attribute on {@code c}, or null if {@code keyval} is not one. */
    static Object predefined(int keyval) throws MPIException {
        return switch (keyval) {
            case MPI.TAG_UB -> io.tutti.Communicator.MAX_TAG;
            case MPI.HOST -> MPI.PROC_NULL;
            case MPI.IO -> MPI.ANY_SOURCE;
            case MPI.APPNUM -> 0;
            case MPI.LASTUSEDCODE -> MPI.ERR_LASTCODE;
            case MPI.UNIVERSE_SIZE -> MPI.COMM_WORLD.getSize();
            case MPI.WTIME_IS_GLOBAL -> false;
            default -> null;
        };
    }

    static boolean isPredefined(int keyval) {
        return keyval >= MPI.TAG_UB && keyval <= MPI.WIN_DISP_UNIT;
    }

    void set(int keyval, Object value, String call) throws MPIException {
        check(keyval, call);
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
             ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
            out.flush();
            values.put(keyval, bytes.toByteArray());
        } catch (IOException e) {
            throw Errors.error(MPI.ERR_ARG, call + ": the value cannot be serialized (" + e
                    + "): an attribute's value is Serializable, as in the bindings");
        }
    }

    Object get(int keyval, String call) throws MPIException {
        byte[] v = values.get(keyval);
        if (v == null) {
            if (!KEYVALS.contains(keyval)) {
                throw Errors.error(MPI.ERR_KEYVAL, call + ": " + keyval + " is not a keyval");
            }
            return null;
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(v))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw Errors.error(MPI.ERR_OTHER, call + ": the value cannot be read back: " + e);
        }
    }

    void delete(int keyval, String call) throws MPIException {
        if (values.remove(keyval) == null) {
            check(keyval, call);
        }
    }

    void deleteAll() {
        values.clear();
    }

    void copyTo(Comm to) {
        to.attributes.values.putAll(values);
    }

    private static void check(int keyval, String call) throws MPIException {
        if (isPredefined(keyval)) {
            throw Errors.error(MPI.ERR_KEYVAL, call + ": " + keyval + " is a predefined attribute, which cannot be"
                    + " set or deleted");
        }
        if (!KEYVALS.contains(keyval)) {
            throw Errors.error(MPI.ERR_KEYVAL, call + ": " + keyval + " is not a keyval of Comm.createKeyval,"
                    + " or was freed");
        }
    }
}

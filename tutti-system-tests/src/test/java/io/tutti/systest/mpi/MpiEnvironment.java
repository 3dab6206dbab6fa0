package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.util.concurrent.atomic.AtomicReference;
import mpi.Comm;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The environment of step 5: predefined attributes, keyvals and attributes (copied by dup, read
 * back as copies), error handlers (the default, inheritance by dup, callErrhandler), Info, and the
 * thread level (FUNNELED: a call from another thread fails).
 */
public final class MpiEnvironment {
    private MpiEnvironment() {
    }

    public static void main(String[] args) throws Exception {
        equal(MPI.THREAD_FUNNELED, MPI.InitThread(args, MPI.THREAD_FUNNELED), "FUNNELED provided");
        Intracomm world = MPI.COMM_WORLD;
        equal(MPI.ERRORS_ARE_FATAL, MPI.COMM_SELF.getErrhandler(), "the default handler");
        world.setErrhandler(MPI.ERRORS_RETURN);
        int rank = world.getRank();
        int size = world.getSize();

        // predefined attributes
        that((Integer) world.getAttr(MPI.TAG_UB) >= 32767, "TAG_UB of at least 32767");
        equal(MPI.PROC_NULL, world.getAttr(MPI.HOST), "HOST");
        equal(MPI.ANY_SOURCE, world.getAttr(MPI.IO), "IO");
        equal(0, world.getAttr(MPI.APPNUM), "APPNUM");
        equal(size, world.getAttr(MPI.UNIVERSE_SIZE), "UNIVERSE_SIZE");
        equal(Boolean.FALSE, world.getAttr(MPI.WTIME_IS_GLOBAL), "WTIME_IS_GLOBAL");
        fails(MPI.ERR_KEYVAL, "setting TAG_UB", () -> world.setAttr(MPI.TAG_UB, 5));
        fails(MPI.ERR_KEYVAL, "freeing TAG_UB's keyval", () -> Comm.freeKeyval(MPI.TAG_UB));

        // keyvals and attributes
        int key = Comm.createKeyval();
        that(key != Comm.createKeyval(), "keyvals differ");
        equal(null, world.getAttr(key), "not set yet");
        StringBuilder value = new StringBuilder("rank " + rank);
        world.setAttr(key, value);
        value.append(" changed");
        equal("rank " + rank, world.getAttr(key).toString(), "the value as set (a copy)");
        Intracomm dup = world.dup();
        equal("rank " + rank, dup.getAttr(key).toString(), "dup copies the attribute");
        equal(MPI.ERRORS_RETURN, dup.getErrhandler(), "dup takes the handler");
        world.deleteAttr(key);
        equal(null, world.getAttr(key), "deleted");
        equal("rank " + rank, dup.getAttr(key).toString(), "the dup's copy stays");
        fails(MPI.ERR_ARG, "a value that does not serialize", () -> world.setAttr(key, new Object()));
        Comm.freeKeyval(key);
        fails(MPI.ERR_KEYVAL, "setting a freed keyval", () -> world.setAttr(key, 1));
        fails(MPI.ERR_KEYVAL, "freeing it twice", () -> Comm.freeKeyval(key));
        fails(MPI.ERR_KEYVAL, "an unknown keyval", () -> world.getAttr(12345));

        // error handlers
        fails(MPI.ERR_OTHER, "callErrhandler", () -> world.callErrhandler(MPI.ERR_OTHER));
        fails(MPI.ERR_ARG, "a null handler", () -> world.setErrhandler(null));
        fails(MPI.ERR_RANK, "an error on the dup, returned", () -> dup.send(new int[1], 1, MPI.INT, size, 0));

        // Info
        Info info = new Info();
        info.set("color", "blue");
        info.set("size", "large");
        equal(2, info.size(), "two keys");
        equal("size", info.getKey(1), "keys in order");
        equal("blue", info.get("color"), "get");
        equal(null, info.get("shape"), "a key not set");
        Info copy = info.dup();
        info.delete("color");
        equal(1, info.size(), "one key after delete");
        equal("blue", copy.get("color"), "the dup keeps it");
        fails(MPI.ERR_INFO_NOKEY, "deleting a key not set", () -> info.delete("color"));
        fails(MPI.ERR_INFO_KEY, "a key too long", () -> info.set("k".repeat(MPI.MAX_INFO_KEY), "v"));
        fails(MPI.ERR_INFO_VALUE, "an empty value", () -> info.set("k", ""));
        fails(MPI.ERR_INFO, "INFO_NULL", () -> MPI.INFO_NULL.size());
        that(MPI.INFO_NULL.isNull(), "INFO_NULL is null");
        that(MPI.INFO_ENV.get("host") != null, "INFO_ENV has the host");
        equal(Integer.toString(size), MPI.INFO_ENV.get("maxprocs"), "INFO_ENV's maxprocs");
        info.free();
        that(info.isNull(), "a freed info");
        fails(MPI.ERR_INFO, "freeing INFO_ENV", MPI.INFO_ENV::free);
        equal(MPI.CONGRUENT, Comm.compare(world, world.dupWithInfo(copy)), "dupWithInfo");

        // the thread level: FUNNELED, so another thread may not call
        AtomicReference<MPIException> other = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                world.getRank();
            } catch (MPIException e) {
                other.set(e);
            }
        });
        t.start();
        t.join();
        that(other.get() != null && other.get().getErrorClass() == MPI.ERR_OTHER,
                "a call from another thread under FUNNELED fails: " + other.get());
        that(MPI.isThreadMain(), "the main thread");

        System.out.println("rank " + rank + ": environment ok");
        MPI.Finalize();
    }
}

package io.tutti.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The job as one rank's engine sees it: who the ranks are and where they run, the shared-memory
 * files of this node, the start-up rendezvous, and the way to the network transport. The engine
 * reads no launch environment and opens no store itself; {@code io.tutti.bootstrap.Node} implements
 * this from what the launcher said.
 *
 * <p>Start-up runs in this order: the rank creates the files its peers map, {@link #join()}
 * publishes its facts and waits for every rank's, the rank maps its peers' files and opens the
 * network ({@link #openNetwork}), then {@link #fence()} holds every rank until all have mapped
 * (so no rank removes a file a peer is still to map). Owner thread only.
 */
public interface Fabric {
    int rank();

    int size();

    /** Ranks on this rank's node, by the launcher's count (what decides whether ranks outnumber cores). */
    int localSize();

    /** The job id every packet carries. */
    int wireJobId();

    /** The job's directory on this node, where the shared-memory files are (for messages). */
    java.nio.file.Path directory();

    /** Whether the ranks are threads of one JVM (their liveness is the JVM's, not a process's). */
    boolean threads();

    /**
     * Creates file {@code name} of {@code length} zero bytes in the job's directory (owner-only),
     * replacing a stale one, and maps it in {@code mapping}. Removed at {@link #close()}.
     */
    MemorySegment create(String name, long length, Arena mapping);

    /**
     * As {@link #create}, but the file gets its name only after {@code format} has written it, so
     * that a peer that maps it by that name never sees it unformatted.
     */
    MemorySegment publish(String name, long length, Consumer<MemorySegment> format, Arena mapping);

    /** Maps a peer's file {@code name} whole in {@code mapping}; null while it does not exist. */
    MemorySegment map(String name, Arena mapping);

    /** Removes a file this rank created, before close: peers that mapped it keep their mappings. */
    void remove(String name);

    /** Publishes this rank's pid, CPU package and host, and waits until every rank has. */
    void join() throws TimeoutException;

    /** Returns once every rank has called it as often as this one. */
    void fence() throws TimeoutException;

    /**
     * Tells the job's launcher that this rank has finished starting: until every rank has, the
     * launcher gives a silent rank the start-up bound (a busy machine starves starting JVMs).
     */
    default void started() {
    }

    /** After {@link #join()}: the pid of rank {@code r}'s process. */
    int pid(int r);

    /** After {@link #join()}: the CPU package (socket) rank {@code r} ran on at start-up. */
    int packageOf(int r);

    /** After {@link #join()}: the node index of rank {@code r} (hosts numbered by their lowest rank). */
    int nodeOf(int r);

    /** After {@link #join()}: whether rank {@code r} runs on this rank's host. */
    boolean sameHost(int r);

    /** After {@link #join()}: whether the process of rank {@code r}, a rank of this host, still runs. */
    boolean alive(int r);

    /**
     * Opens the network transport to the ranks {@code remote} marks: the provider named
     * {@code provider} (empty: the first installed). Throws a clear start-up error when none is.
     */
    RemoteTransport openNetwork(boolean[] remote, String provider);

    /** Why the job is being stopped (a rank of this JVM failed), or null. Volatile read. */
    String abortReason();

    /**
     * Why the job's launcher reported rank {@code r} dead, or null: a launcher that watches its ranks
     * (tutti run) tells the others of a death at once, on any host, while the transports would
     * take their silence timeout to notice.
     */
    String reportedFailure(int r);

    /**
     * Keeps a copy of this rank's file {@code file} (named {@code name} in its job's directory) at a
     * launcher on another host, refreshed every second, so that {@code tutti status} and the monitor
     * there see this rank too. A rail command posted in the launcher's copy comes back to
     * {@code railCommands}: given the operation and the rail ({@link RailCounters#RAIL_DOWN}, ...),
     * it carries the command out and returns the result ({@link RailCounters#DONE}, ..., 0 for none
     * in time), on a thread of its own. Returns what sends the last copy and stops; call it before
     * unmapping {@code file}. Launchers that share this host's files, or keep no copies, need
     * nothing: the default.
     */
    default Runnable copyToLauncher(String name, MemorySegment file, java.util.function.IntBinaryOperator railCommands) {
        return () -> { };
    }

    /** Removes the files this rank created (and a job of one rank's directory). */
    void close();
}

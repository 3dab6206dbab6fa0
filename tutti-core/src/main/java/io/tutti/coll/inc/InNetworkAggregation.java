package io.tutti.coll.inc;

import io.tutti.metrics.Counters;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * A leader's access to in-network aggregation switches: the control plane (query, notify,
 * release) and the data plane (contributions up, results down) of one process. Opened through a
 * {@link Provider} found with {@link java.util.ServiceLoader}, so that the collectives use the
 * switches (module {@code tutti-switch}) without depending on them.
 *
 * <p>Calls come from the thread that runs the communicator's collectives (or the progress agent
 * driving them), never from two threads at once.
 */
public interface InNetworkAggregation extends AutoCloseable {

    /** Creates the endpoint of a rank; found with {@link java.util.ServiceLoader}. */
    interface Provider {
        /** A name for logs. */
        String name();

        /** The endpoint, or null when no switch is configured for this rank. */
        InNetworkAggregation open(Context context);
    }

    /**
     * @param wireJobId the job id every packet carries
     * @param worldRank this rank
     * @param settings  the environment and system properties ({@code TUTTI_*})
     * @param progress  drives the rank's other communication; a control request waiting for its
     *                  answer calls it, so that the rank keeps answering its peers meanwhile
     * @param count     counts one event ({@link #PACKETS_SENT}, ...) in the rank's counters; called
     *                  on the thread that calls the endpoint
     */
    record Context(int wireJobId, int worldRank, Map<String, String> settings, Runnable progress, IntConsumer count) {
    }

    /** What a client counts through {@link Context#count}: a data packet sent (first time or again). */
    int PACKETS_SENT = Counters.INC_PACKETS_SENT;
    /** A data packet sent again: its result was late. Counted besides {@link #PACKETS_SENT}. */
    int RETRANSMITS = Counters.INC_RETRANSMITS;
    /** A result taken in for a joined group. */
    int RESULTS_RECEIVED = Counters.INC_RESULTS_RECEIVED;
    /** A result dropped because it did not carry the group's token. */
    int WRONG_TOKEN = Counters.INC_WRONG_TOKEN;
    /** A control request (query, notify, release) sent again for want of an answer. */
    int CONTROL_RETRIES = Counters.INC_CONTROL_RETRIES;
    /** A transfer given up: no result from the switch within the timeout. */
    int TIMEOUTS = Counters.INC_TIMEOUTS;

    /**
     * What a query learnt from the leader's ToR and the spines above it.
     *
     * @param torId      the ToR's id
     * @param ops        bit {@code 1 << ReduceOp.ordinal()} per operation every switch on the path supports
     * @param types      bit {@code 1 << Datatype.ordinal()} per element type supported
     * @param maxPayload bytes of data one packet may carry
     * @param slots      aggregation slots per group (the window of packets in flight)
     * @param torFree    groups the ToR can still host
     * @param spineIds   the ToR's spines that answered
     * @param spineFree  per spine, groups it can still host (its load, inverted)
     */
    record Offer(int torId, int ops, int types, int maxPayload, int slots, int torFree, int[] spineIds,
                 int[] spineFree) {
    }

    /**
     * A leader's place in a group's aggregation tree, sent with notify.
     *
     * @param group      the group id (true comm id)
     * @param child      the leader's index among the leaders under its ToR
     * @param localSize  leaders under the leader's ToR
     * @param globalSize leaders in the group
     * @param spineId    the chosen spine, 0 when one ToR holds every leader (it is the root)
     * @param torIndex   the ToR's index among the group's ToRs
     * @param torCount   ToRs in the group
     * @param socketMode whether the leaders are socket leaders (master num 1) or node leaders (0)
     * @param maxPayload bytes per packet every leader uses (the least any switch of the group allows),
     *                   so that all leaders cut a message into the same packets
     * @param slots      packets in flight per leader (the least slot count of the group's switches)
     */
    record Membership(int group, int child, int localSize, int globalSize, int spineId, int torIndex, int torCount,
                      boolean socketMode, int maxPayload, int slots) {
    }

    /** Reusable data-plane exchange of one region with a group's switches. */
    interface Transfer {
        /**
         * Takes the request ids of a call's {@code length} bytes of {@code element}-byte elements, at
         * the call's start. Every leader makes its collective calls in the same order, but may reach
         * their INC steps in another (two nonblocking allreduces): ids taken by call keep the switch
         * combining each leader's packets of the same call. {@link #start} takes them itself when
         * this was not called.
         */
        void reserve(long length, int element);

        /**
         * Starts sending {@code length} bytes at {@code offset} of {@code buffer} as contributions
         * (packets of at most the group's payload size) and replacing them with the results.
         *
         * @param op       ReduceOp ordinal
         * @param datatype Datatype ordinal
         * @param element  bytes per element
         */
        void start(MemorySegment buffer, long offset, long length, int op, int datatype, int element);

        /**
         * Sends what the window allows, retransmits what timed out, takes in results; true once every
         * result is in. Throws {@link io.tutti.TuttiException} when the switches stopped answering.
         */
        boolean poll();

        /** Gives up this call (it failed): its ids no longer hold the group's window. */
        void abandon();
    }

    /** Asks the ToR (and through it the spines) what they support; null if none answered in time. */
    Offer query(int group, int leaders, boolean socketMode);

    /** Installs the group on the switches; null when they accepted it, else why not. */
    String join(Membership membership);

    /** A transfer over group {@code group}, reusable call after call; its request ids follow the group's. */
    Transfer transfer(int group);

    /** Frees the group's switch resources (bounded wait for the ToR's reply). */
    void release(int group);

    @Override
    void close();
}

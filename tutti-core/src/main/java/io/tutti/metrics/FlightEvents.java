package io.tutti.metrics;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Tutti's JDK Flight Recorder events (category "Tutti" in JDK Mission Control): collective calls,
 * large messages and peer failures, each with the job and rank (the network rails add their own
 * rail state changes, {@code io.tutti.RailState}). An event object is made only while a recording
 * runs ({@link #recording()}, kept by a recorder listener), so that without one the paths that emit
 * them allocate nothing.
 */
public final class FlightEvents {
    private static volatile boolean recording;

    static {
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recorderInitialized(FlightRecorder recorder) {
                update();
            }

            @Override
            public void recordingStateChanged(Recording changed) {
                update();
            }
        });
    }

    private FlightEvents() {
    }

    private static void update() {
        boolean any = false;
        if (FlightRecorder.isInitialized()) {
            for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
                any |= r.getState() == RecordingState.RUNNING;
            }
        }
        recording = any;
    }

    /** Whether a flight recording runs now (a volatile read). */
    public static boolean recording() {
        return recording;
    }

    /** A blocking collective call, from its start to its end. */
    @Name("io.tutti.Collective")
    @Label("Collective call")
    @Category("Tutti")
    @Description("A blocking collective call of one rank, from its start to its end")
    public static final class Collective extends Event {
        @Label("Job")
        String job;
        @Label("Rank")
        int rank;
        @Label("Operation")
        String operation;
    }

    /** A message longer than the eager limit, sent or arrived (its rendezvous began). */
    @Name("io.tutti.LargeMessage")
    @Label("Large message")
    @Category("Tutti")
    @Description("A message sent by the rendezvous protocol: a send started, or its announcement arrived")
    public static final class LargeMessage extends Event {
        @Label("Job")
        String job;
        @Label("Rank")
        int rank;
        @Label("Peer")
        @Description("The rank it goes to (sent) or comes from (received)")
        int peer;
        @Label("Tag")
        int tag;
        @Label("Bytes")
        @DataAmount
        long bytes;
        @Label("Sent")
        boolean sent;
    }

    /** A peer found failed: the error a rank is about to raise. */
    @Name("io.tutti.PeerFailure")
    @Label("Peer failure")
    @Category("Tutti")
    @Description("A rank found a peer failed (exited, killed, silent) or the job being stopped")
    public static final class PeerFailure extends Event {
        @Label("Job")
        String job;
        @Label("Rank")
        int rank;
        @Label("Peer")
        @Description("-1 when the job is being stopped")
        int peer;
        @Label("Message")
        String message;
    }
}

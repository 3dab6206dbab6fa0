package io.tutti.net;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A JDK Flight Recorder event: a rail to a peer was taken out of use (silent while another rail of
 * the peer is heard) or rejoined (heard again), with the job, this rank, the peer and the rail.
 * Slow path: made only when a rail changes state.
 */
@Name("io.tutti.RailState")
@Label("Rail state change")
@Category("Tutti")
@Description("A network rail to a peer went down (silent) or came back up (heard again)")
public final class RailStateEvent extends Event {
    @Label("Job")
    String job;
    @Label("Rank")
    int rank;
    @Label("Peer")
    int peer;
    @Label("Rail")
    int rail;
    @Label("Interface")
    String railName;
    @Label("Up")
    boolean up;
    @Label("Why")
    String why;

    /** Records a change when a recording takes this event; nothing else. */
    static void emit(String job, int rank, int peer, int rail, String railName, boolean up, String why) {
        RailStateEvent e = new RailStateEvent();
        if (e.shouldCommit()) {
            e.job = job;
            e.rank = rank;
            e.peer = peer;
            e.rail = rail;
            e.railName = railName;
            e.up = up;
            e.why = why;
            e.commit();
        }
    }
}

package io.tutti.inter;

import io.tutti.Request;
import java.lang.foreign.MemorySegment;

/**
 * Messages from this rank to a rank of the other group of an intercommunicator, on a context of the
 * intercommunicator's own that the program's messages never use, so that they match only each
 * other, in the order sent. A receive longer than its segment fails with
 * {@link io.tutti.TuttiException.Truncation}.
 */
public interface Bridge {
    /** Sends {@code data} to {@code remoteRank}; returns once the segment may be reused. */
    void send(MemorySegment data, int remoteRank);

    /** Receives the next message of {@code remoteRank} into {@code into}. */
    void recv(MemorySegment into, int remoteRank);

    /** Starts a send of {@code data} to {@code remoteRank}. */
    Request isend(MemorySegment data, int remoteRank);

    /** Starts a receive of {@code remoteRank}'s next message into {@code into}. */
    Request irecv(MemorySegment into, int remoteRank);
}

package io.tutti.net;

/** Why a received datagram was dropped; each reason is counted per transport. */
public enum DropReason {
    /** Shorter than the datagram header. */
    SHORT,
    /** Not a Tutti datagram (magic). */
    MAGIC,
    /** A wire version this build does not speak. */
    VERSION,
    /** The payload length disagrees with the datagram's length. */
    LENGTH,
    /** The CRC32C does not match: corrupted on the way. */
    CRC,
    /** Sent by a rank of another job. */
    JOB,
    /** Addressed to another rank. */
    DEST,
    /** The source rank is out of range, this rank, or one not reached over the network. */
    SOURCE,
    /** An unknown datagram type. */
    TYPE,
    /** A field out of its bounds (fragment, sequence, acknowledgement). */
    FIELD,
    /** From an address that has not passed the HELLO challenge for its rank and rail. */
    UNAUTHENTICATED,
    /**
     * A MAC that does not match: a HELLO whose header or answer to our challenge was made with
     * another secret, or a datagram forged or altered by someone without the session's key.
     */
    BAD_MAC,
    /** A tag that is not the pair's session's: a stranger's, or sent before the session existed. */
    SESSION,
    /** A counter seen before (or older than the replay window): a datagram sent again by someone else. */
    REPLAY,
    /** Outside the receive window. */
    WINDOW,
    /** Fault injection on receive. */
    INJECTED,
    /**
     * A TCP connection closed before it authenticated, to make room for a newer one: more were open
     * than the job has peers and rails (a stranger holding connections open).
     */
    STRANGER
}

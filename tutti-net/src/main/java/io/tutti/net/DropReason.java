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
    /** A HELLO whose answer to our challenge is wrong (another secret). */
    BAD_MAC,
    /** Outside the receive window. */
    WINDOW,
    /** Fault injection on receive. */
    INJECTED
}

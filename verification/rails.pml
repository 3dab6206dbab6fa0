/*
 * The reliable stream of the network rails (tutti-net RailsTransport), one direction of one
 * peer pair, as built:
 *   - every DATA has a sequence number; the sender keeps it in slot seq % S until acknowledged;
 *   - the receiver stores DATA in slot seq % S if expected <= seq < expected + S, advances
 *     contig over the slots filled in order, delivers from expected up to contig;
 *   - ACK carries ack = contig (everything below received) and consumed = expected (everything
 *     below delivered, its slot free), and a NAK of the first gap [contig, ...) when there is one;
 *   - a NAK goes at once; a plain acknowledgement either at once (a duplicate, two or more
 *     datagrams not yet acknowledged) or it is held: it goes later, once, with the receiver's state
 *     of that moment (the ack delay ran out, or a DATA the other way carried it; a DATA is lost or
 *     corrupted like an ACK, so it is modelled as one), possibly after more datagrams arrived;
 *   - the sender sends while nextSeq < consumed + S, retransmits the NAKed sequence, the oldest
 *     unacknowledged one on a timeout and the newest as a tail probe;
 *   - two rails each way: a datagram goes on either, so datagrams overtake each other; each may
 *     be lost, corrupted (the CRC check drops it) or find its socket buffer full (lost).
 * A timeout may fire at any moment (any RTO); safety does not depend on the timing.
 * The TCP wire (TUTTI_NET=tcp) runs this same stream over connections, which lose nothing, with
 * neither NAKs nor timeout retransmissions: its datagrams still overtake each other across the two
 * rails, and what a rail found down carried is sent again on the other. That is this model with
 * no loss or corruption and the timeout left to the rail-down case: a subset of its behaviours.
 * Checked: delivery exactly once and in order, content intact, slots never reused too early,
 * and no invalid end state.
 */
#define N 3      /* records sent */
#define S 2      /* slots (window) */

mtype = { DATA, ACK };

chan d0 = [1] of { byte, byte, bool };       /* seq, payload, crc ok */
chan d1 = [1] of { byte, byte, bool };
chan a0 = [1] of { byte, byte, byte, bool, bool };  /* ack, consumed, nak from, has nak, crc ok */
chan a1 = [1] of { byte, byte, byte, bool, bool };

byte delivered = 0;

/* sends on either rail: delivered, corrupted or lost (also when the buffer is full) */
inline unreliable_data(s, p) {
    if
    :: nfull(d0) -> d0!s,p,true
    :: nfull(d1) -> d1!s,p,true
    :: nfull(d0) -> d0!s,p,false
    :: nfull(d1) -> d1!s,p,false
    :: skip
    fi
}

inline unreliable_ack(a, c, f, h) {
    if
    :: nfull(a0) -> a0!a,c,f,h,true
    :: nfull(a1) -> a1!a,c,f,h,true
    :: nfull(a0) -> a0!a,c,f,h,false
    :: nfull(a1) -> a1!a,c,f,h,false
    :: skip
    fi
}

inline handle_ack() {
    if
    :: !ok || a > nextSeq || c > a -> skip    /* CRC or field check drops it */
    :: else ->
        if
        :: a > acked -> acked = a
        :: else -> skip
        fi;
        if
        :: c > consumed -> consumed = c
        :: else -> skip
        fi;
        if
        :: h && f >= acked && f < nextSeq ->
            assert(slot[f % S] == f);
            unreliable_data(f, slot[f % S])
        :: else -> skip
        fi
    fi
}

active proctype Sender() {
    byte nextSeq = 0, acked = 0, consumed = 0;
    byte slot[S];
    byte a, c, f;
    bool h, ok;

    do
    :: nextSeq < N && nextSeq < consumed + S ->
        /* the payload of record k is k: the receiver can check content and order */
        slot[nextSeq % S] = nextSeq;
        unreliable_data(nextSeq, nextSeq);
        nextSeq++
    :: acked < nextSeq ->
        /* a timeout: the oldest unacknowledged, then the tail probe */
        assert(slot[acked % S] == acked);
        unreliable_data(acked, slot[acked % S]);
        if
        :: nextSeq - 1 > acked ->
            assert(slot[(nextSeq - 1) % S] == nextSeq - 1);
            unreliable_data(nextSeq - 1, slot[(nextSeq - 1) % S])
        :: else -> skip
        fi
    :: a0?a,c,f,h,ok -> handle_ack()
    :: a1?a,c,f,h,ok -> handle_ack()
    :: acked == N -> break
    od;
    /* everything acknowledged has been received, and with a window of S, delivered up to it */
    assert(delivered == N)
}

active proctype Receiver() {
    byte expected = 0, contig = 0, highest = 0;
    bool filled[S];
    byte seqOf[S];
    byte content[S];
    byte seq, p;
    bool ok, any = false;
    bool pending = false, fresh;

end:
    do
    :: d0?seq,p,ok -> goto gotdata
    :: d1?seq,p,ok -> goto gotdata
    :: pending ->
        /* the held acknowledgement: its delay ran out, or it rode on a DATA the other way. No gap
           is open here: here every datagram that finds one is NAKed at once, which clears pending
           (where the rails skip a repeated NAK, their plain ACK is the NAK with its resend lost) */
        pending = false;
        unreliable_ack(contig, expected, 0, false)
    od;

gotdata:
    fresh = false;
    if
    :: !ok -> skip                                  /* CRC mismatch: dropped */
    :: ok && seq < contig -> skip                   /* duplicate: acknowledged again below */
    :: ok && seq >= contig && seq >= expected + S -> skip   /* outside the window */
    :: ok && seq >= contig && seq < expected + S && filled[seq % S] ->
        assert(seqOf[seq % S] == seq)               /* a duplicate of a stored one */
    :: ok && seq >= contig && seq < expected + S && !filled[seq % S] ->
        filled[seq % S] = true;
        seqOf[seq % S] = seq;
        content[seq % S] = p;
        fresh = true;
        if
        :: !any || seq > highest -> highest = seq; any = true
        :: else -> skip
        fi;
        do
        :: filled[contig % S] && seqOf[contig % S] == contig -> contig++
        :: else -> break
        od;
        /* delivery: exactly once, in order, intact */
        do
        :: expected < contig ->
            assert(seqOf[expected % S] == expected);
            assert(content[expected % S] == delivered);
            delivered++;
            filled[expected % S] = false;
            expected++
        :: else -> break
        od
    fi;
    if
    :: ok && any && highest > contig -> pending = false; unreliable_ack(contig, expected, contig, true)
    :: else ->
        if
        :: pending = false; unreliable_ack(contig, expected, 0, false)
        :: fresh -> pending = true                  /* held; a duplicate is acknowledged at once */
        fi
    fi;
    assert(delivered <= N);
    goto end
}

/*
 * The inbound ring of a rank (tutti-core InboundRing, InboundRingDescriptor), as built, in units
 * of 64-byte lines:
 *   - producers claim a record with a CAS on the tail, after checking free space against their
 *     cached head and, when that is short, the consumer's published head; a record that does not
 *     fit before the end of the ring is preceded by a PADDING record up to the end;
 *   - a producer writes the record's length and type, then its body, then its stamp (the
 *     complement of its position; here position + 1, which is never 0 either);
 *   - the consumer reads the record at its head when the stamp there is that of the head's
 *     position, advances by the record's length, skips padding and delivers the rest;
 *   - before it publishes a new head (hands space back), the consumer clears the stamp word of
 *     every line it has read, and only that word.
 * A record's later lines carry payload, and a payload may hold any value: here it may hold the
 * stamp a record would have there one lap later, the worst a stale payload can do.
 * Checked: every record delivered exactly once, in each producer's order, never before it is
 * committed; no invalid end state; and (ring_live) every record sent is eventually delivered,
 * under weak fairness. Memory ordering is not modelled (Promela is sequentially consistent):
 * the jcstress tests of tutti-jcstress cover the release/acquire pairs.
 */
#define C 4          /* ring capacity in lines */
#define M 2          /* records per producer */
#define PRODUCERS 2
#define TOTAL (M * PRODUCERS)
#define PAD 1
#define MSG 2

byte stamp[C];       /* the stamp word of each line; a payload word in a record's later lines */
byte rlen[C];         /* record length in lines (header of the record's first line) */
byte typ[C];
byte who[C];         /* body: the producer and its sequence number */
byte seq[C];

byte tail = 0;       /* producers' claim position (CAS) */
byte head = 0;       /* the consumer's published head: space before it is free */
byte delivered = 0;
byte nextSeq[PRODUCERS];

proctype Producer(byte me) {
    byte n = 0, t, at, need, pad, lines, hc = 0;
    do
    :: n < M ->
        /* records of one or two lines, as eager messages of different sizes */
        if
        :: lines = 1
        :: lines = 2
        fi;
claim:
        t = tail;
        at = t % C;
        pad = (lines > C - at -> C - at : 0);
        need = lines + pad;
        if
        :: need > C - (t - hc) ->
            hc = head;
            if
            :: need > C - (t - hc) -> goto claim   /* full: the caller retries (a backlog) */
            :: else -> skip
            fi
        :: else -> skip
        fi;
        atomic {
            if
            :: tail == t -> tail = t + need
            :: else -> goto claim
            fi
        };
        if
        :: pad > 0 ->
            rlen[at] = pad;
            typ[at] = PAD;
            stamp[at] = t + 1;
            t = t + pad;
            at = t % C
        :: else -> skip
        fi;
        rlen[at] = lines;
        typ[at] = MSG;
        who[at] = me;
        seq[at] = n;
        if
        :: lines == 2 ->
            /* the payload of the second line: anything, even the stamp of the next lap there */
            if
            :: stamp[(at + 1) % C] = 0
            :: stamp[(at + 1) % C] = t + 1 + 1 + C
            fi
        :: else -> skip
        fi;
        stamp[at] = t + 1;   /* commit: the release store of the stamp */
        n++
    :: else -> break
    od
}

active proctype Consumer() {
    byte h = 0, released = 0, at, l, p;
    do
    :: delivered < TOTAL ->
        at = h % C;
        if
        :: stamp[at] == h + 1 ->
            l = rlen[at];
            assert(l >= 1 && l <= C - at);
            if
            :: typ[at] == MSG ->
                assert(who[at] < PRODUCERS);
                assert(seq[at] == nextSeq[who[at]]);   /* once, in order, committed */
                nextSeq[who[at]]++;
                delivered++
            :: else -> assert(typ[at] == PAD)
            fi;
            h = h + l
        :: else ->
            /* nothing there: hand back what was read, clearing one stamp word per line */
            if
            :: released != h ->
                p = released;
                do
                :: p != h -> stamp[p % C] = 0; p++
                :: else -> break
                od;
                released = h;
                head = h
            :: else -> skip
            fi
        fi
    :: else -> break
    od
}

init {
    atomic {
        run Producer(0);
        run Producer(1)
    }
}

ltl ring_live { <> (delivered == TOTAL) }

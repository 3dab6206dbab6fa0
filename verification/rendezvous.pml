/*
 * The shared-memory rendezvous of large messages between two ranks (tutti-core Rendezvous,
 * ExchangeRing), as built for the pipelined path:
 *   - the sender writes an RTS per message into the receiver's inbound ring (a FIFO from one
 *     producer), naming its send by a handle;
 *   - the receiver matches each RTS with the oldest posted receive (MPI's order), or keeps it as
 *     unexpected until a receive is posted; it answers with a CTS naming both handles;
 *   - the sender queues the sends in CTS order and fills the pair's exchange ring: it takes a free
 *     slot while tail - head < SLOTS, writes the receive's handle, the chunk's offset and the data,
 *     and publishes the slot (release store of the tail);
 *   - the receiver takes each published slot (acquire load of the tail), looks the handle up,
 *     copies the chunk to its offset, frees the slot (release store of the head), and completes
 *     the receive when all its chunks are in.
 * Receives are posted at any moment, before or after their RTS arrives. Cancelled receives are
 * not modelled: Tutti has no cancel of a matched receive. Checked: every chunk lands once, at its
 * offset, in the receive of its own message (the messages in sending order); no invalid end state;
 * and (rendezvous_live) every receive completes, under weak fairness.
 */
#define MSGS 2       /* messages, same source and tag */
#define CHUNKS 3     /* chunks per message */
#define SLOTS 2      /* exchange ring slots */

chan rts = [MSGS] of { byte };           /* sender's handle: the message number */
chan cts = [MSGS] of { byte, byte };     /* sender's handle, receiver's handle */

byte slotHandle[SLOTS];
byte slotOffset[SLOTS];
byte slotData[SLOTS];
byte tail = 0;        /* slots published (sender) */
byte head = 0;        /* slots consumed (receiver) */

byte got[MSGS];       /* chunks received per receive */
bool done[MSGS];
byte completed = 0;

active proctype Sender() {
    byte m = 0, s, r, sent = 0;
    byte queue[MSGS];                    /* receive handles, in CTS order */
    byte qMsg[MSGS];
    byte qHead = 0, qLen = 0, off = 0;
    do
    :: m < MSGS -> rts!m; m++
    :: cts?s, r ->
        queue[(qHead + qLen) % MSGS] = r;
        qMsg[(qHead + qLen) % MSGS] = s;
        qLen++
    :: qLen > 0 && tail - head < SLOTS ->
        /* a chunk of the oldest send with a CTS into a free slot */
        slotHandle[tail % SLOTS] = queue[qHead];
        slotOffset[tail % SLOTS] = off;
        slotData[tail % SLOTS] = qMsg[qHead] * CHUNKS + off;
        tail++;
        off++;
        if
        :: off == CHUNKS -> off = 0; qHead = (qHead + 1) % MSGS; qLen--; sent++
        :: else -> skip
        fi
    :: m == MSGS && sent == MSGS && qLen == 0 -> break
    od
}

active proctype Receiver() {
    byte posted = 0, matched = 0, s, h, o, d;
    byte unexpected[MSGS];
    byte uHead = 0, uLen = 0;
    do
    :: posted < MSGS ->
        /* post the next receive: it takes the oldest unexpected RTS, if one is kept */
        if
        :: uLen > 0 ->
            cts!unexpected[uHead], posted;
            assert(unexpected[uHead] == posted);   /* non-overtaking */
            uHead = (uHead + 1) % MSGS;
            uLen--;
            matched++
        :: else -> skip
        fi;
        posted++
    :: rts?s ->
        if
        :: matched < posted ->
            /* the oldest posted receive still waiting for its RTS */
            assert(s == matched);
            cts!s, matched;
            matched++
        :: else ->
            unexpected[(uHead + uLen) % MSGS] = s;
            uLen++
        fi
    :: head < tail ->
        h = slotHandle[head % SLOTS];
        o = slotOffset[head % SLOTS];
        d = slotData[head % SLOTS];
        assert(h < matched && !done[h]);      /* a receive that was matched and waits */
        assert(d == h * CHUNKS + o);          /* its own message's chunk, at its offset */
        assert(o < CHUNKS && ((got[h] >> o) & 1) == 0);   /* once */
        got[h] = got[h] | (1 << o);
        head++;
        if
        :: got[h] == (1 << CHUNKS) - 1 -> done[h] = true; completed++
        :: else -> skip
        fi
    :: completed == MSGS -> break
    od
}

ltl rendezvous_live { <> (completed == MSGS) }

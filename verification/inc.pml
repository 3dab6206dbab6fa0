/*
 * The data plane of the in-network aggregation (tutti-switch), one group of CLIENTS leaders under
 * one switch (the root: no spine), as built:
 *   - process Client stands for IncClient.TransferImpl (start, pump, accept): it cuts its region
 *     into P packets with request ids 0 .. P-1 and sends packet k while k - firstMissing < SLOTS
 *     (the window), takes a result in once (have[k]) and, on a timeout, sends again every packet
 *     of the window whose result is missing;
 *   - process Port(c) stands for AggregationSwitch.data, complete and down on client c's packets
 *     (the switch is one thread: each packet is handled in one step on the shared slots): request
 *     r uses slot r % SLOTS; a slot aggregating r adds a contribution whose child bit is clear and
 *     ignores a repeat; when every child is in, the slot is DONE and the result goes to every child;
 *     a contribution to a DONE slot of the same request is answered with its result, one of the
 *     shadow's request (the slot's previous one) with the shadow; a newer request takes over a DONE
 *     slot, which first moves its result to the shadow; anything else is dropped;
 *   - the network, both ways: packets in flight are a set (any order), FLIGHT per client and
 *     direction; a packet may be lost (LOSSES times), and is lost when the set is full (a full
 *     socket buffer).
 * A timeout fires once nothing of the client is in flight (the RTO exceeds the round trip), which
 * is what liveness needs; the repeats it causes are the duplicates the switch must not add twice.
 * Contribution of client c to request k: c + 1 + CLIENTS * k, a distinct value per pair.
 * Checked: the switch adds each client's contribution to each request at most once; every result
 * a client takes in is the sum of every client's contribution to that request, each once; a
 * shadow is overwritten only once every client has its result; no invalid end state; and
 * (inc_live) every client eventually has the result of every request, under weak fairness. Not
 * modelled: the ToR under a spine (WAITING, the aggregate sent up again), the control plane, the
 * tokens. Two transfers of one group in flight at once share this one window (IncClient's
 * GroupState.lowestMissing); with a window per transfer, as before, a request stalled for good
 * (findings/inc-two-transfers.pml). Bounds: 2 clients, P = 5 requests, SLOTS = 2 (slot 0 taken over twice: a shadow is
 * overwritten), LOSSES = 2, FLIGHT = 2. Spin 6.5.2: safety 401,858 states (about 3 s), liveness
 * the same states, 4.3 million visited (about 20 s).
 */
#define CLIENTS 2
#define P 5
#define SLOTS 2
#define LOSSES 2
#define FLIGHT 2    /* packets in flight each way per client (2: any order) */

#define FREE 0
#define AGGREGATING 1
#define DONE 2
#define ALL ((1 << CLIENTS) - 1)     /* every child's bit */

/*
 * The network each way per client: request id, value. Sorted sends (!!) keep the packets in flight
 * as a set, and a receiver takes any of them (the first or the second): the order is lost.
 */
chan up[CLIENTS] = [FLIGHT] of { byte, byte };
chan down[CLIENTS] = [FLIGHT] of { byte, byte };

byte lost = 0;

/* ghosts */
byte added[CLIENTS * P];     /* times the switch added client c's contribution to request k */
bool have[CLIENTS * P];      /* client c has the result of request k */
byte finished = 0;

#define contribution(c, k) ((c) + 1 + CLIENTS * (k))
#define SUM(k) (CLIENTS * (CLIENTS + 1) / 2 + CLIENTS * CLIENTS * (k))

inline toSwitch(c, r, v) {
    if
    :: nfull(up[c]) -> up[c]!!r, v
    :: lost < LOSSES -> lost++
    :: full(up[c]) -> skip         /* a full socket buffer */
    fi
}

inline toClient(c, r, v) {
    if
    :: nfull(down[c]) -> down[c]!!r, v
    :: lost < LOSSES -> lost++
    :: full(down[c]) -> skip
    fi
}

/* TransferImpl.accept: a result is taken in once, at its request's place; firstMissing moves on */
inline accept() {
    assert(r < P);
    if
    :: !have[me * P + r] ->
        assert(v == SUM(r));    /* every client's contribution to r, each once */
        have[me * P + r] = true;
        do
        :: first < P && have[me * P + first] -> first++
        :: else -> break
        od
    :: else -> skip
    fi
}

proctype Client(byte me) {
    byte nextToSend = 0, first = 0, k, r, v, x, y;
    /* each action is one step: a client shares nothing with the others but the network */
    do
    :: atomic {
        nextToSend < P && nextToSend - first < SLOTS ->
        /* pump: a new packet within the window */
        toSwitch(me, nextToSend, contribution(me, nextToSend));
        nextToSend++
    }
    :: atomic {
        first < nextToSend && empty(up[me]) && empty(down[me]) ->
        /* pump: a timeout, once what was in flight has landed or been lost (the RTO is above the
           round trip): every packet of the window without its result goes again */
        k = first;
        do
        :: k < nextToSend ->
            if
            :: !have[me * P + k] -> toSwitch(me, k, contribution(me, k))
            :: else -> skip
            fi;
            k++
        :: else -> break
        od;
        k = 0
    }
    :: atomic { down[me]?r, v -> accept(); r = 0; v = 0 }
    :: atomic { len(down[me]) == 2 -> down[me]?x, y; down[me]?r, v; down[me]!!x, y; accept(); r = 0; v = 0; x = 0; y = 0 }
    :: first == P -> break
    od;
    /* the transfer is done (poll returned true): later results are dropped */
    finished++;
end:
    do
    :: atomic { down[me]?r, v -> r = 0; v = 0 }
    od
}

/* AggregationSwitch.sendData of a slot's result (or shadow) to one child, or to all (down) */
inline result(c, r, v) {
    toClient(c, r, v)
}

/* every child's bit is set: the root's complete, DONE and the result down to every child */
inline complete(s) {
    state[s] = DONE;
    k = 0;
    do
    :: k < CLIENTS -> result(k, req[s], acc[s]); k++
    :: else -> break
    od
}

/* AggregationSwitch.data for a contribution v of client c to request r */
inline contribute(c, r, v) {
    s = r % SLOTS;
    if
    :: state[s] != FREE && req[s] == r ->
        if
        :: state[s] == AGGREGATING ->
            if
            :: (bitmap[s] >> c) & 1 -> skip     /* a repeat: counted, not added */
            :: else ->
                acc[s] = acc[s] + v;
                bitmap[s] = bitmap[s] | (1 << c);
                added[c * P + r]++;
                assert(added[c * P + r] == 1);
                if
                :: bitmap[s] == ALL -> complete(s)
                :: else -> skip
                fi
            fi
        :: else -> result(c, r, acc[s])          /* DONE: the child lost its result */
        fi
    :: else ->
        if
        :: shadowValid[s] && shadowReq[s] == r -> result(c, r, shadow[s])
        :: else ->
            if
            :: state[s] == FREE || (state[s] == DONE && r > req[s]) ->
                if
                :: state[s] == DONE ->
                    /* the slot's result becomes the shadow: no client may still need the old shadow */
                    k = 0;
                    do
                    :: k < CLIENTS ->
                        assert(!shadowValid[s] || have[k * P + shadowReq[s]]);
                        k++
                    :: else -> break
                    od;
                    shadow[s] = acc[s];
                    shadowReq[s] = req[s];
                    shadowValid[s] = true
                :: else -> skip
                fi;
                req[s] = r;
                state[s] = AGGREGATING;
                bitmap[s] = 1 << c;
                acc[s] = v;
                added[c * P + r]++;
                assert(added[c * P + r] == 1);
                if
                :: bitmap[s] == ALL -> complete(s)
                :: else -> skip
                fi
            :: else -> skip                       /* outside the window: dropped */
            fi
        fi
    fi
}

/*
 * The switch is one thread handling one packet at a time; each Port takes its client's packets and
 * runs the switch's handling of one as a single step on the shared slots. One process per client,
 * so that weak fairness serves every client's packets (not only a process's).
 */
byte state[SLOTS], req[SLOTS], bitmap[SLOTS], acc[SLOTS];
byte shadowReq[SLOTS], shadow[SLOTS];
bool shadowValid[SLOTS];

proctype Port(byte c) {
    byte r, v, s, k, x, y;
end:
    do
    :: atomic { up[c]?r, v -> contribute(c, r, v); r = 0; v = 0; s = 0; k = 0 }
    :: atomic { len(up[c]) == 2 -> up[c]?x, y; up[c]?r, v; up[c]!!x, y; contribute(c, r, v);
        r = 0; v = 0; s = 0; k = 0; x = 0; y = 0 }
    od
}

init {
    atomic {
        run Port(0);
        run Port(1);
        run Client(0);
        run Client(1)
    }
}

ltl inc_live { <> (finished == CLIENTS) }

/*
 * A finding, not a check (verification/check.sh does not run this directory): inc.pml with two
 * transfers of one group in flight at once, as two nonblocking allreduces on one communicator
 * would make them. Each IncClient.TransferImpl keeps its own window (k - firstMissing < slots),
 * so the second transfer's requests 2 and 3 take over the slots while the first transfer's
 * request 1 still needs slot 1; once slot 1 holds request 3, request 1 is older than the slot's
 * request and not its shadow's, and the switch drops it for good: inc_live is violated (an
 * acceptance cycle, P = 4 as two transfers of 2, SLOTS = 2, LOSSES = 2: safety holds, liveness
 * fails at depth about 560). In the code that ended in the transfer's timeout ("no result from
 * the switch"); IncClientTransfersTest reproduces it. Fixed: IncClient's window now counts from
 * the lowest request still without its result over all of the group's transfers
 * (GroupState.lowestMissing), which is inc.pml's single window. This file keeps the client as it
 * was. Run: copy it next to check.sh (verification/check.sh inc-two-transfers.pml).
 */
#define CLIENTS 2
#define P 4
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

#define T 2          /* transfers of one group in flight at once (two nonblocking allreduces) */
#define PT (P / T)    /* packets per transfer */
proctype Client(byte me) {
    byte nts[T], fst[T], k, r, v, x, y, t, first = 0;
    do
    :: atomic {
        nts[0] < PT && nts[0] - fst[0] < SLOTS ->
        toSwitch(me, nts[0], contribution(me, nts[0]));
        nts[0]++
    }
    :: atomic {
        nts[1] < PT && nts[1] - fst[1] < SLOTS ->
        toSwitch(me, PT + nts[1], contribution(me, PT + nts[1]));
        nts[1]++
    }
    :: atomic {
        (fst[0] < nts[0] || fst[1] < nts[1]) && empty(up[me]) && empty(down[me]) ->
        t = 0;
        do
        :: t < T ->
            k = fst[t];
            do
            :: k < nts[t] ->
                if
                :: !have[me * P + t * PT + k] -> toSwitch(me, t * PT + k, contribution(me, t * PT + k))
                :: else -> skip
                fi;
                k++
            :: else -> break
            od;
            t++
        :: else -> break
        od;
        k = 0; t = 0
    }
    :: atomic { down[me]?r, v -> accept(); r = 0; v = 0;
        t = 0;
        do
        :: t < T ->
            do
            :: fst[t] < PT && have[me * P + t * PT + fst[t]] -> fst[t]++
            :: else -> break
            od;
            t++
        :: else -> break
        od; t = 0 }
    :: first == P -> break
    od;
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

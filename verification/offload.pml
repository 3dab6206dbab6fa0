/*
 * The offload counters of a persistent collective (tutti-core io.tutti.offload), two ranks running
 * the 2^n program of an exchange for RUNS runs, as built:
 *   - process Rank stands for one rank's OffloadedCollective with its OffloadEngine, everything
 *     that runs under the rank's engine lock: OffloadedCollective.arm (OffloadEngine.start, then
 *     landHeld, then progress), poll (landHeld when running, then progress) and arrive/land (a
 *     packet of the peer; land calls OffloadEngine.onPut/onRemoteAdd);
 *   - progress is OffloadEngine.progress: per entry, an acquire load of the level, fire when it has
 *     reached the threshold, cursor first; COMPLETE clears running and the loop goes on, so the
 *     wrap (CNTR_ADD of minus the full level, posted after COMPLETE at the same threshold) fires in
 *     the same call; start switches to set epoch % sets and resets the cursor, not the counter;
 *   - the program is BucketPattern's for one SEND and one RECV with the peer: table 5's exchange
 *     (RTR at 0 adding 2, DAT and RTE at 2, the REDUCE at 3, COMPLETE and wrap -3 at 3) or, pre-posted,
 *     one PUT carrying data and count (at 0 adding 1; REDUCE, COMPLETE and wrap -1 at 1);
 *   - a PUT or add to the peer travels as a packet stamped with the sender's epoch over a FIFO
 *     (the peer's inbound ring); the receiver lands a packet of its current run while running and
 *     nothing of that run waits, keeps it (OffloadedCollective.held) if it is for the next run or
 *     others of this run wait, and drops anything else (asserted never to happen: a lost count);
 *   - or, between ranks of a node (direct), it is OffloadedCollective.tryWrite: a copy into the
 *     peer's temporary buffer of parity epoch & 1, then an atomic add to the peer's counter of that
 *     parity, from the sender's own thread, racing the owner's progress step by step.
 * init picks every variant: packets with one set or two (OffloadAreaDescriptor's parities), or
 * direct writes with two; table 5's exchange or pre-posted. The data word a PUT writes is the
 * sender's epoch. Checked: every entry fires exactly once per run, never before this run's own
 * arrivals reach its threshold (a run never fires on an earlier run's counts), the REDUCE reads
 * this run's data, each run starts with its counter at exactly what this run's arrivals added
 * (0 after the wrap), no packet is dropped, no invalid end state; and (offload_live) every rank
 * completes every run, under weak fairness. Memory ordering is not modelled (the acquire/release
 * pairs are Counter's; tutti-jcstress covers them). Not modelled: several counters (the single-
 * source pattern's completion counter), descriptors and the NIC tree's Rcnt registers, a rank
 * with some peers direct and others by packet. Bounds: 2 ranks, one counter, RUNS = 3 (both
 * parities, one reused), all six variants. Spin 6.5.2: safety 976,183 states (about 2 s),
 * liveness 928,861 states, 6.5 million visited (about 12 s).
 */
#define N 2
#define RUNS 3
#define EMAX 6
#define QUEUE 4     /* packets in flight to one rank: two per run, a peer at most one run ahead */

#define PUT 1
#define CNTR_ADD 2
#define REMOTE_ADD 3
#define REDUCE 7
#define COMPLETE 8

/* the program, the same on both ranks */
byte E;
byte op[EMAX];
short th[EMAX];
short val[EMAX];

bool direct;        /* writes into the peer's offload area instead of packets */
byte sets;          /* counter and buffer sets: run e uses set e % sets */

short level[2 * N];  /* counter of set s of rank r at s * N + r */
byte buf[2 * N];     /* the temporary buffer's data word, likewise */
chan net[N] = [QUEUE] of { bool, byte, short, byte };   /* put?, epoch, add, data */

byte epoch[N];
bool running[N];
byte completed[N];

/* ghosts: what this run's arrivals added on each rank, and each entry's firings this run */
short got[N * (RUNS + 2)];
byte fired[N * EMAX];

inline program(pre) {
    if
    :: pre ->
        E = 4;
        op[0] = PUT; th[0] = 0; val[0] = 1;
        op[1] = REDUCE; th[1] = 1;
        op[2] = COMPLETE; th[2] = 1;
        op[3] = CNTR_ADD; th[3] = 1; val[3] = -1
    :: else ->
        E = 6;
        op[0] = REMOTE_ADD; th[0] = 0; val[0] = 2;
        op[1] = PUT; th[1] = 2; val[1] = 0;
        op[2] = REMOTE_ADD; th[2] = 2; val[2] = 1;
        op[3] = REDUCE; th[3] = 3;
        op[4] = COMPLETE; th[4] = 3;
        op[5] = CNTR_ADD; th[5] = 3; val[5] = -3
    fi
}

/* OffloadedCollective.land with OffloadEngine.onPut / onRemoteAdd: data first, then the add */
inline land(r, isPut, e, v, d) {
    d_step {
        if
        :: isPut -> buf[(epoch[r] % sets) * N + r] = d
        :: else -> skip
        fi;
        level[(epoch[r] % sets) * N + r] = level[(epoch[r] % sets) * N + r] + v;
        got[r * (RUNS + 2) + e] = got[r * (RUNS + 2) + e] + v
    }
}

/* OffloadedCollective.put/remoteAdd: a packet, or tryWrite into the peer's area (two steps) */
inline send(isPut, v) {
    if
    :: direct ->
        if
        :: isPut -> buf[(epoch[me] & 1) * N + peer] = epoch[me]
        :: else -> skip
        fi;
        if
        :: v != 0 ->
            d_step {
                level[(epoch[me] & 1) * N + peer] = level[(epoch[me] & 1) * N + peer] + v;
                got[peer * (RUNS + 2) + epoch[me]] = got[peer * (RUNS + 2) + epoch[me]] + v
            }
        :: else -> skip
        fi
    :: else ->
        assert(len(net[peer]) < QUEUE);   /* QUEUE is enough: the ring never holds more */
        net[peer]!isPut, epoch[me], v, epoch[me]
    fi
}

/* OffloadEngine.progress on the one counter: every step reads the level (acquire) afresh */
inline progress() {
    if
    :: running[me] ->
        do
        :: cursor < E ->
            lv = level[(epoch[me] % sets) * N + me];
            if
            :: lv < th[cursor] -> break
            :: else -> skip
            fi;
            i = cursor;
            cursor++;
            /* fires once, and only on this run's own arrivals */
            assert(fired[me * EMAX + i] == 0);
            assert(got[me * (RUNS + 2) + epoch[me]] >= th[i]);
            fired[me * EMAX + i]++;
            if
            :: op[i] == PUT -> send(true, val[i])
            :: op[i] == REMOTE_ADD -> send(false, val[i])
            :: op[i] == CNTR_ADD -> level[(epoch[me] % sets) * N + me] = level[(epoch[me] % sets) * N + me] + val[i]
            :: op[i] == REDUCE -> assert(buf[(epoch[me] % sets) * N + me] == epoch[me])   /* this run's data */
            :: op[i] == COMPLETE -> running[me] = false; completed[me]++
            fi
        :: else -> break
        od
    :: else -> skip
    fi
}

/* OffloadedCollective.landHeld: lands the kept packets of the current run, keeps the rest in order */
inline landHeld() {
    k = hLen;
    do
    :: k > 0 ->
        d_step {
            hp = hPut[0]; he = hEpoch[0]; hv = hAdd[0]; hd = hData[0];
            j = 0;
            do
            :: j + 1 < hLen -> hPut[j] = hPut[j + 1]; hEpoch[j] = hEpoch[j + 1]; hAdd[j] = hAdd[j + 1];
                hData[j] = hData[j + 1]; j++
            :: else -> break
            od;
            hLen--
        }
        if
        :: he == epoch[me] -> land(me, hp, he, hv, hd)
        :: else -> hold(hp, he, hv, hd)
        fi;
        k--
    :: else -> break
    od
}

inline hold(p, e, v, d) {
    assert(hLen < QUEUE);
    hPut[hLen] = p; hEpoch[hLen] = e; hAdd[hLen] = v; hData[hLen] = d;
    hLen++
}

proctype Rank(byte me) {
    byte peer = 1 - me;
    byte cursor = 0, i, k, j, hLen = 0;
    short lv;
    bool hp, isPut;
    byte he, hd, pe, pd;
    short hv, pv;
    bool holding;
    bool hPut[QUEUE];
    byte hEpoch[QUEUE];
    short hAdd[QUEUE];
    byte hData[QUEUE];
    do
    :: !running[me] && epoch[me] < RUNS ->
        /* arm: OffloadEngine.start, landHeld, progress */
        k = 0;
        do
        :: k < E -> assert(epoch[me] == 0 || fired[me * EMAX + k] == 1); fired[me * EMAX + k] = 0; k++
        :: else -> break
        od;
        running[me] = true;
        epoch[me]++;
        cursor = 0;
        /* the wrap left the counter at what this run's early arrivals added, 0 without them */
        assert(level[(epoch[me] % sets) * N + me] == got[me * (RUNS + 2) + epoch[me]]);
        progress();
        landHeld();
        progress()
    :: nempty(net[me]) ->
        /* OffloadedCollective.arrive */
        net[me]?isPut, pe, pv, pd;
        holding = false;
        k = 0;
        do
        :: k < hLen -> holding = holding || hEpoch[k] == epoch[me]; k++
        :: else -> break
        od;
        if
        :: pe == epoch[me] && running[me] && !holding -> land(me, isPut, pe, pv, pd)
        :: else ->
            assert(pe == epoch[me] + 1 || (pe == epoch[me] && running[me]));   /* never dropped */
            hold(isPut, pe, pv, pd)
        fi
    :: running[me] && hLen > 0 ->
        /* poll */
        landHeld();
        progress()
    :: running[me] && cursor < E && level[(epoch[me] % sets) * N + me] >= th[cursor] ->
        /* poll, when OffloadEngine.ready says an entry would fire */
        progress()
    :: !running[me] && epoch[me] == RUNS && empty(net[me]) && hLen == 0 -> break
    od;
    /* every entry of the last run fired once, and the counters are back at 0 */
    k = 0;
    do
    :: k < E -> assert(fired[me * EMAX + k] == 1); k++
    :: else -> break
    od;
    assert(level[me] == 0 && level[N + me] == 0)
}

init {
    bool pre;
    if
    :: pre = false
    :: pre = true
    fi;
    if
    :: direct = false; sets = 1
    :: direct = false; sets = 2
    :: direct = true; sets = 2
    fi;
    program(pre);
    atomic {
        run Rank(0);
        run Rank(1)
    }
}

ltl offload_live { <> (completed[0] == RUNS && completed[1] == RUNS) }

package io.tutti.offload;

import io.tutti.coll.schedule.Schedule;
import io.tutti.offload.OffloadCompiler.Refused;
import io.tutti.reduce.OffloadAlu;
import java.util.BitSet;
import java.util.Map;
import java.util.function.IntFunction;
import static io.tutti.offload.OffloadCompiler.MAX_BUCKETS;

/**
 * The water tank's 2^n scheme ([water-tank] §4.2.1) for {@link OffloadCompiler#bucket}: it compiles
 * any schedule whose steps wait for their arrivals in one fixed order. Each rank lists the packets
 * it expects (a peer's RTR for each of its data sends, a peer's RTE or signal for each receive),
 * finds an order in which the set every entry waits for is a prefix (possible exactly when those
 * sets form a chain under inclusion; {@link ArrivalAnalysis}), and gives arrival i the bucket
 * 2^(A-1-i); an entry that needs the first k arrivals fires at the sum of their buckets, which no
 * combination of later buckets reaches. A data message becomes the table 5 exchange: the receiver's
 * RTR when its buffer is ready, the sender's DAT (a PUT) once its data is ready and the RTR is in,
 * then its RTE, which lands after the DAT because packets between two ranks arrive in order. A
 * zero-byte message (a barrier's) is one remote counter add (table 4). One counter per rank,
 * whatever N.
 */
final class BucketPattern {
    private BucketPattern() {
    }

    /** See {@link OffloadCompiler#bucket(IntFunction, int, OffloadAlu.Op, OffloadAlu.Type, boolean)}. */
    static OffloadProgram compile(IntFunction<Schedule> schedules, int rank, OffloadAlu.Op op, OffloadAlu.Type type,
                                  boolean prePosted) {
        ArrivalAnalysis.Ranks ranks = new ArrivalAnalysis.Ranks(schedules, prePosted);
        ArrivalAnalysis me = ranks.get(rank);
        Schedule s = me.s;
        if (me.problem != null) {
            throw new Refused(me.problem);
        }
        if (me.arrivals > MAX_BUCKETS) {
            throw new Refused(s.name() + " rank " + rank + " expects " + me.arrivals + " arrivals; one 64-bit counter"
                    + " holds at most " + MAX_BUCKETS + " buckets of the 2^n scheme");
        }
        OffloadProgram.Builder b = new OffloadProgram.Builder(s.name(), "2^n", rank, s.size())
                .arrivals(me.arrivals).rounds(me.rounds).alu(op, type);
        b.buffer(OffloadProgram.TEMP_BUFFER, s.tempBytes());
        int n = s.steps();
        int[] from = new int[me.arrivals];
        for (int i = 0; i < n; i++) {
            if (s.kind(i) == Schedule.RECV) {
                from[me.rte[i]] = s.peer(i);
            } else if (s.kind(i) == Schedule.SEND && s.length(i) > 0 && !prePosted) {
                from[me.rtr[i]] = s.peer(i);
            }
        }
        b.arrivalPeers(from);
        BitSet[] done = new BitSet[n];
        for (int i = 0; i < n; i++) {
            BitSet req = new BitSet();
            for (int d : s.dependencies(i)) {
                req.or(done[d]);
            }
            byte kind = s.kind(i);
            long len = s.length(i);
            BitSet after = (BitSet) req.clone();
            switch (kind) {
                case Schedule.RECV -> {
                    b.buffer(s.buffer(i), s.offset(i) + len);
                    if (len > 0 && !prePosted) {
                        // RTR: the buffer is ready, tell the sender
                        int k = prefix(req, s, i, "its receive buffer is ready");
                        ArrivalAnalysis peer = peer(ranks, s.peer(i));
                        int send = match(peer.sendByKey, rank, me, i, "send");
                        ArrivalAnalysis.checkLength(peer.s, send, s, i);
                        b.remoteAdd(me.threshold(k), k, s.peer(i), peer.weight(peer.rtr[send]), peer.rtr[send])
                                .role(OffloadProgram.ROLE_RTR);
                    }
                    after.set(me.rte[i]);
                }
                case Schedule.SEND -> {
                    ArrivalAnalysis peer = peer(ranks, s.peer(i));
                    int recv = match(peer.recvByKey, rank, me, i, "receive");
                    ArrivalAnalysis.checkLength(peer.s, recv, s, i);
                    if (len > 0 && prePosted) {
                        // DAT and RTE in one packet: the add lands after the data it counts
                        int k = prefix(req, s, i, "its data is ready");
                        b.put(me.threshold(k), k, s.peer(i), s.buffer(i), s.offset(i), len, peer.s.buffer(recv),
                                peer.s.offset(recv), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_DAT);
                    } else if (len > 0) {
                        after.set(me.rtr[i]);
                        int k = prefix(after, s, i, "its data and the peer's RTR are in");
                        long th = me.threshold(k);
                        b.put(th, k, s.peer(i), s.buffer(i), s.offset(i), len, peer.s.buffer(recv), peer.s.offset(recv),
                                0, -1).role(OffloadProgram.ROLE_DAT);
                        b.remoteAdd(th, k, s.peer(i), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_RTE);
                    } else {
                        int k = prefix(req, s, i, "it may signal");
                        b.remoteAdd(me.threshold(k), k, s.peer(i), peer.weight(peer.rte[recv]), peer.rte[recv])
                                .role(OffloadProgram.ROLE_SIGNAL);
                    }
                }
                case Schedule.COPY, Schedule.REDUCE -> {
                    if (len > 0) {
                        int k = prefix(req, s, i, "its operands are ready");
                        if (kind == Schedule.COPY) {
                            b.copy(me.threshold(k), k, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len);
                        } else {
                            if (op == null) {
                                throw new Refused(s.name() + " rank " + rank + " step " + i + " reduces data: give the"
                                        + " ALU operation and type");
                            }
                            b.reduce(me.threshold(k), k, s.buffer(i), s.offset(i), s.srcBuffer(i), s.srcOffset(i), len);
                        }
                    }
                }
                default -> throw new Refused(s.name() + ": unknown step kind " + kind);
            }
            done[i] = after;
        }
        long full = me.threshold(me.arrivals);
        b.complete(full, me.arrivals);
        if (full != 0) {
            // wrap the tank back to 0 for the next start (no CNTR_SUB exists)
            b.counterAdd(full, me.arrivals, -full).role(OffloadProgram.ROLE_FIN);
        }
        return b.build();
    }

    private static ArrivalAnalysis peer(ArrivalAnalysis.Ranks ranks, int p) {
        ArrivalAnalysis a = ranks.get(p);
        if (a.problem != null || a.arrivals > MAX_BUCKETS) {
            throw new Refused("peer rank " + p + " cannot take part in the 2^n scheme: " + (a.problem != null
                    ? a.problem : "it expects " + a.arrivals + " arrivals, more than " + MAX_BUCKETS));
        }
        return a;
    }

    private static int prefix(BitSet set, Schedule s, int step, String what) {
        int k = set.nextClearBit(0);
        if (set.cardinality() != k) {
            throw new Refused(s.name() + " rank " + s.rank() + " step " + step + " waits until " + what + ", which"
                    + " takes arrivals " + set + " of this rank's arrival order; they are not the first " + k
                    + ", so one counter's 2^n buckets cannot tell them from later ones");
        }
        return k;
    }

    private static int match(Map<Long, Integer> byKey, int rank, ArrivalAnalysis me, int step, String what) {
        Schedule s = me.s;
        Integer m = byKey.get(ArrivalAnalysis.key(rank, s.tag(step), me.ordinal[step]));
        if (m == null) {
            throw new Refused(s.name() + " rank " + s.rank() + " step " + step + " to/from rank " + s.peer(step)
                    + " tag " + s.tag(step) + " has no matching " + what);
        }
        return m;
    }
}

package io.tutti.coll;

import static io.tutti.coll.BinomialReduce.after;

/**
 * Allreduce by recursive doubling: ⌈log2 P⌉ rounds of pairwise exchange, each rank combining what
 * its partner holds. For P not a power of two the first 2·r ranks (r = P − 2^⌊log2 P⌋) fold pairwise
 * first, and the folded-out ranks get the result back at the end. Lower ranks' data is always the
 * left operand, so non-commutative operations keep rank order.
 */
public final class RecursiveDoublingAllreduce {
    private RecursiveDoublingAllreduce() {
    }

    public static Schedule build(int rank, int size, long bytes, boolean inPlace) {
        ScheduleBuilder b = new ScheduleBuilder("allreduce/recursive-doubling", rank, size);
        b.temp(bytes);
        int last = inPlace ? -1 : b.copy(Schedule.RECV_BUFFER, 0, Schedule.SEND_BUFFER, 0, bytes);
        int p2 = Integer.highestOneBit(size);
        int rem = size - p2;
        int newRank;
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                last = b.send(rank + 1, 0, Schedule.RECV_BUFFER, 0, bytes, after(last));
                newRank = -1;
            } else {
                int got = b.recv(rank - 1, 0, Schedule.TEMP_BUFFER, 0, bytes, after(last));
                last = b.reduce(Schedule.RECV_BUFFER, 0, Schedule.TEMP_BUFFER, 0, bytes, true, after(last, got));
                newRank = rank / 2;
            }
        } else {
            newRank = rank - rem;
        }
        if (newRank >= 0) {
            int round = 1;
            for (int mask = 1; mask < p2; mask <<= 1, round++) {
                int newPeer = newRank ^ mask;
                int peer = newPeer < rem ? newPeer * 2 + 1 : newPeer + rem;
                int sent = b.send(peer, round, Schedule.RECV_BUFFER, 0, bytes, after(last));
                int got = b.recv(peer, round, Schedule.TEMP_BUFFER, 0, bytes, after(last));
                // the scratch is reused next round, and our buffer changes: both must be done
                last = b.reduce(Schedule.RECV_BUFFER, 0, Schedule.TEMP_BUFFER, 0, bytes, peer < rank,
                        after(sent, got));
            }
        }
        if (rank < 2 * rem) {
            if (rank % 2 == 1) {
                b.send(rank - 1, 0x7FF, Schedule.RECV_BUFFER, 0, bytes, after(last));
            } else {
                b.recv(rank + 1, 0x7FF, Schedule.RECV_BUFFER, 0, bytes, after(last));
            }
        }
        return b.build();
    }
}

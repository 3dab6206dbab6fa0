package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Tutti;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ranks 0 and 1 exchange 256 KiB messages both ways, over and over, each checking every byte of
 * what it receives, until the test writes {@code DIR/stop}: rank 0 then marks its next message as
 * the last. Rank 0 writes {@code DIR/started} after the first rounds. Rank 0 prints how many
 * rounds went. Arguments: DIR.
 */
public final class RailSwitch {
    static final int LENGTH = 256 << 10;

    private RailSwitch() {
    }

    private static byte pattern(long round, int sender, int k) {
        return (byte) (round * 31 + sender * 17 + k * 7 + (k >> 9));
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int me = w.rank();
            int peer = 1 - me;
            byte[] out = new byte[LENGTH];
            byte[] in = new byte[LENGTH];
            boolean last = false;
            long round = 0;
            while (!last) {
                for (int k = 8; k < LENGTH; k++) {
                    out[k] = pattern(round, me, k);
                }
                boolean stop = me == 0 && round % 16 == 15 && Files.exists(dir.resolve("stop"));
                ByteBuffer.wrap(out).putLong(0, stop ? -1 : round);
                Request r = w.irecv(in, 0, LENGTH, peer, 5);
                Request s = w.isend(out, 0, LENGTH, peer, 5);
                Request.waitAll(r, s);
                long mark = ByteBuffer.wrap(in).getLong(0);
                if (mark != round && !(mark == -1 && me == 1)) {
                    throw new IllegalStateException("round " + round + ": message marked " + mark);
                }
                for (int k = 8; k < LENGTH; k++) {
                    if (in[k] != pattern(round, peer, k)) {
                        throw new IllegalStateException("round " + round + ", byte " + k + " from rank " + peer
                                + " is wrong");
                    }
                }
                last = stop || mark == -1;
                round++;
                if (me == 0 && round == 64) {
                    Files.writeString(dir.resolve("started"), "64 rounds");
                }
            }
            if (me == 0) {
                System.out.println("exchanged " + round + " rounds of 256 KiB each way, every byte checked");
            }
        }
    }
}

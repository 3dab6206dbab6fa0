package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;

/**
 * Rank 0 streams {@code COUNT} messages of {@code BYTES} bytes to rank 1, each checked; every 100 a
 * reply goes back, so the stream keeps moving and the last records' acknowledgements matter.
 * Prints {@code rank R: stream ok} on both ranks.
 */
public final class LossyStream {
    private LossyStream() {
    }

    public static void main(String[] args) {
        int count = Integer.parseInt(args[0]);
        int bytes = Integer.parseInt(args[1]);
        try (Tutti t = Tutti.init(args)) {
            Communicator w = t.world();
            byte[] buf = new byte[bytes];
            byte[] reply = new byte[8];
            for (int i = 0; i < count; i++) {
                if (w.rank() == 0) {
                    for (int k = 0; k < bytes; k++) {
                        buf[k] = (byte) (i * 31 + k);
                    }
                    w.send(buf, 0, bytes, 1, 1);
                } else if (w.rank() == 1) {
                    w.recv(buf, 0, bytes, 0, 1);
                    for (int k = 0; k < bytes; k++) {
                        if (buf[k] != (byte) (i * 31 + k)) {
                            throw new AssertionError("message " + i + " byte " + k + " is wrong");
                        }
                    }
                }
                if (i % 100 == 99) {
                    if (w.rank() == 1) {
                        w.send(reply, 0, 8, 0, 2);
                    } else if (w.rank() == 0) {
                        w.recv(reply, 0, 8, 1, 2);
                    }
                }
            }
            w.barrier();
            System.out.println("rank " + w.rank() + ": stream ok");
        }
    }
}

package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rank 0 sends 64 MiB to rank 1 in 1 MiB messages. After 8 MiB it writes {@code DIR/halfway} and
 * waits for {@code DIR/cut} (the test has then taken a rail down), and goes on; rank 1 checks
 * every byte. Arguments: DIR.
 */
public final class BigTransfer {
    static final int CHUNK = 1 << 20;
    static final int CHUNKS = 64;

    private BigTransfer() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            byte[] buf = new byte[CHUNK];
            if (w.rank() == 0) {
                for (int c = 0; c < CHUNKS; c++) {
                    for (int i = 0; i < CHUNK; i += 4096) {
                        buf[i] = (byte) (c * 31 + i / 4096);
                    }
                    w.send(buf, 0, CHUNK, 1, c);
                    if (c == 7) {
                        Files.writeString(dir.resolve("halfway"), "8 MiB sent");
                        while (!Files.exists(dir.resolve("cut"))) {
                            Thread.sleep(10);
                        }
                    }
                }
            } else if (w.rank() == 1) {
                for (int c = 0; c < CHUNKS; c++) {
                    w.recv(buf, 0, CHUNK, 0, c);
                    for (int i = 0; i < CHUNK; i += 4096) {
                        if (buf[i] != (byte) (c * 31 + i / 4096)) {
                            throw new IllegalStateException("chunk " + c + ", byte " + i + " is wrong");
                        }
                    }
                }
                System.out.println("received " + CHUNKS + " MiB intact");
            }
            w.barrier();
        }
    }
}

package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.nio.charset.StandardCharsets;

/** Reads its standard input to the end and prints what it read, one line: {@code rank R read 'TEXT'}. */
public final class ReadInput {
    private ReadInput() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            String text = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).strip();
            System.out.println("rank " + w.rank() + " read '" + text + "'");
            Ranks.barrier(w);
        }
    }
}

package io.tutti.transport.shm;

import io.tutti.bootstrap.ShmFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A producer in another process, for {@link InboundRingStressTest}: maps an existing inbound-ring file
 * and writes {@link RingRecords} records into it.
 *
 * <p>Arguments: ring file, producer id, record count, seed.
 */
public final class InboundRingProducerMain {
    private InboundRingProducerMain() {
    }

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        int producer = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        long seed = Long.parseLong(args[3]);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment segment = ShmFiles.mapExisting(file, arena);
            if (segment == null) {
                System.err.println("ring file " + file + " does not exist");
                System.exit(2);
            }
            InboundRing ring = new InboundRing(segment);
            // the parent kills us when it is done or fails; no other way to stop
            long refused = RingRecords.produce(ring, producer, count, seed, seq -> { }, () -> false);
            System.out.println("producer " + producer + " wrote " + count + " records, " + refused
                    + " claims refused");
        }
        System.exit(0);
    }
}

package io.tutti.monitor;

import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** Counters files of ranks in a job directory, as ranks make them, for tests; closing unmaps them. */
final class CountersFiles implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final Path dir;

    CountersFiles(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    /** Rank {@code rank} of {@code size}, pid {@code pid}, recorded in {@code rank-N.pid} as a joined rank is. */
    Counters rank(int rank, int size, long pid) throws IOException {
        Path f = dir.resolve(CountersDescriptor.fileName(rank));
        List<Counters.Operation> ops = List.of(new Counters.Operation("barrier", List.of("dissemination", "linear")),
                new Counters.Operation("allreduce", List.of("recursive-doubling", "ring")));
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long length = Counters.fileLength(size, ops);
            Counters c = Counters.format(ch.map(FileChannel.MapMode.READ_WRITE, 0, length, arena), true, "job", rank,
                    size, pid, ops);
            Files.writeString(dir.resolve("rank-" + rank + ".pid"), pid + " boot\n");
            return c;
        }
    }

    /** Removes rank {@code rank}'s record, as a rank leaving the job does. */
    void leave(int rank) throws IOException {
        Files.delete(dir.resolve("rank-" + rank + ".pid"));
    }

    @Override
    public void close() {
        arena.close();
    }
}

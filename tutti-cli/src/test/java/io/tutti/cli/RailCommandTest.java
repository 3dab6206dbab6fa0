package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.transport.RailCounters;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tutti rail}: its answers, and what it says when the job, the action or the rail is wrong. */
@Timeout(60)
class RailCommandTest {
    @TempDir
    Path root;

    /** Runs {@code tutti rail ARGS} on jobs under {@link #root}: exit code, out, err. */
    private String[] rail(String... args) {
        CommandLine cl = Main.commandLine();
        RailCommand cmd = cl.getSubcommands().get("rail").getCommand();
        cmd.root = root;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "rail";
        System.arraycopy(args, 0, all, 1, args.length);
        return new String[] {Integer.toString(cl.execute(all)), out.toString(), err.toString()};
    }

    @Test
    void aJobThatIsNotHereOrAWrongActionIsSaid() {
        String[] r = rail("feed", "down", "1");
        assertEquals("1", r[0]);
        assertTrue(r[2].startsWith("tutti rail: no job feed on this host"), r[2]);
        r = rail("feed", "off", "1");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("neither down nor up"), r[2]);
    }

    @Test
    void eachRankAnswersAndARankThatRefusesFailsTheCommand() throws Exception {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = ShmFiles.createAndMap(dir.resolve(CountersDescriptor.fileName(0)),
                    Counters.fileLength(2, List.of(new Counters.Operation("barrier", List.of("linear")))), arena);
            Counters c = Counters.format(s, true, "beef", 0, 2, 1, List.of(new Counters.Operation("barrier", List.of("linear"))));
            c.railName(0, "eth0");
            c.railName(1, "eth1");
            // the rank's transport: takes down rail 1, refuses rail 0 as its last
            Thread transport = Thread.ofPlatform().daemon().start(() -> {
                for (int answered = 0; answered < 2; ) {
                    long command = c.railCommand();
                    if (RailCounters.sequence(command) > answered) {
                        answered = RailCounters.sequence(command);
                        c.railAnswer(command, RailCounters.rail(command) == 0 ? RailCounters.LAST_RAIL
                                : RailCounters.DONE);
                    }
                    Thread.onSpinWait();
                }
            });
            String[] down = rail("beef", "down", "eth1");
            assertEquals("0", down[0], down[2]);
            assertEquals("rank 0: rail 1 (eth1) out of service", down[1].strip());
            String[] last = rail("beef", "down", "0", "--rank", "0");
            assertEquals("1", last[0]);
            assertTrue(last[2].startsWith("rank 0: refused: rail 0 (eth0) is its last rail in service"), last[2]);
            transport.join(10_000);
            String[] noRail = rail("beef", "up", "eth9");
            assertEquals("1", noRail[0]);
            assertEquals("tutti rail: rank 0 has no rail eth9; its rails: 0 (eth0), 1 (eth1)", noRail[2].strip());
        }
    }
}

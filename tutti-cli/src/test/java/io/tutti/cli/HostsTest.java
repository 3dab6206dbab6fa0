package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hostfiles in Open MPI's format and {@code --host} lists: what they mean, and the errors for bad ones. */
@Timeout(30)
class HostsTest {
    private static Hosts.Host host(String name, int slots, int max) {
        return new Hosts.Host(name, slots, max);
    }

    private static String error(List<String> lines) {
        return assertThrows(IllegalArgumentException.class, () -> Hosts.parseHostfile("hosts", lines)).getMessage();
    }

    @Test
    void aHostfileHasSlotsCommentsBlankLinesAndRepeatedHosts() {
        List<String> lines = List.of(
                "# the cluster",
                "node01 slots=4",
                "",
                "   node02   slots = 2  max_slots=3   # a comment after the host",
                "node03",
                "node04 max-slots=2",
                "node01 slots=2 max_slots=8",
                "\tnode05\tslots=1");
        assertEquals(List.of(host("node01", 6, 0), host("node02", 2, 3), host("node03", 1, 0), host("node04", 1, 2),
                host("node05", 1, 0)), Hosts.parseHostfile("hosts", lines));
        assertEquals(List.of(host("a", 5, 7)), Hosts.parseHostfile("hosts", List.of("a slots=2 max_slots=3",
                "a slots=3 max_slots=4")), "limits add up when every line of the host has one");
        assertEquals(List.of(host("a", Integer.MAX_VALUE, 0)), Hosts.parseHostfile("hosts", List.of(
                "a slots=999999999", "a slots=999999999", "a slots=999999999")), "a sum past int saturates");
    }

    @Test
    void aBadHostfileLineIsNamedWithItsNumberAndWhatIsWrong() {
        assertEquals("hosts line 2: 'slots=x' is not a count: give slots=N with N a whole number of at least 1",
                error(List.of("a slots=2", "b slots=x")));
        assertEquals("hosts line 1: 'slots=0' is not a count: give slots=N with N a whole number of at least 1",
                error(List.of("a slots=0")));
        assertEquals("hosts line 3: 'cores=4' is not understood: a line is 'hostname [slots=N] [max_slots=M]'",
                error(List.of("# x", "", "a cores=4")));
        assertEquals("hosts line 1: max_slots=2 is less than slots=4: max_slots is the most ranks the host takes,"
                + " so at least its slots", error(List.of("a slots=4 max_slots=2")));
        assertEquals("hosts line 1: slots is given twice", error(List.of("a slots=4 slots=2")));
        assertEquals("hosts line 1: 'slots=4' is not a host name: a line is 'hostname [slots=N] [max_slots=M]'",
                error(List.of("slots=4")));
        assertTrue(error(List.of("a slots")).startsWith("hosts line 1: 'slots=' is not a count"));
        assertEquals("hosts lists no hosts: write one 'hostname slots=N' per line",
                error(List.of("# nothing", "   ")));
    }

    @Test
    void aHostfileIsReadFromDiskAndAMissingOneSaysSo(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("hosts"), "h0 slots=2\nh1 slots=2\n");
        assertEquals(List.of(host("h0", 2, 0), host("h1", 2, 0)), Hosts.readHostfile(file));
        Path none = dir.resolve("nope");
        assertEquals("--hostfile " + none + ": there is no such file",
                assertThrows(IllegalArgumentException.class, () -> Hosts.readHostfile(none)).getMessage());
        Path bad = Files.writeString(dir.resolve("bad"), "h0 slots=2\nh1 slot=2\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Hosts.readHostfile(bad)).getMessage()
                .startsWith(bad + " line 2: 'slot=2' is not understood"));
    }

    @Test
    void aHostListGivesOneSlotEachUnlessCounted() {
        assertEquals(List.of(host("a", 4, 0), host("b", 4, 0)), Hosts.parseHostList(List.of("a:4", "b:4")));
        assertEquals(List.of(host("a", 1, 0), host("b", 1, 0)), Hosts.parseHostList(List.of("a", "b")));
        assertEquals(List.of(host("a", 3, 0), host("b", 1, 0)), Hosts.parseHostList(List.of("a", "b", "a:2")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hosts.parseHostList(List.of("a:four")));
        assertEquals("--host: 'a:four': the slots after ':' must be a whole number of at least 1, e.g. a:4",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hosts.parseHostList(List.of("a:0")));
        e = assertThrows(IllegalArgumentException.class, () -> Hosts.parseHostList(List.of(":4")));
        assertEquals("--host: ':4' is not a host name: give HOST or HOST:SLOTS, e.g. --host a:4,b:4", e.getMessage());
    }

    /** Found by HostsFuzzTest: a control character is no white space to the hostfile's split, and reached ssh inside a name. */
    @Test
    void aControlCharacterInAHostNameIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Hosts.parseHostfile("hosts", List.of("node\u001d1 slots=2")));
        assertTrue(e.getMessage().startsWith("hosts line 1: 'node\u001d1' is not a host name"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Hosts.parseHostList(List.of("node\u00071:2")));
        assertEquals(2, Hosts.parseHostfile("hosts", List.of("node-1.example slots=2")).getFirst().slots());
    }
}

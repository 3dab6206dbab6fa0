package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tutti.os.RawFd;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The PMI-2 client against a scripted server on the other end of a socketpair: the handshake, the
 * framing, the store's encoding and limits, and clear errors for refusals, silence and a closed socket.
 */
@Timeout(60)
class Pmi2ClientTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private int client = -1;
    private int server = -1;
    private Thread serving;
    /** The commands the server saw, in order. */
    private final List<Map<String, String>> seen = java.util.Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void pair() throws Throwable {
        assumeTrue(RawFd.available(), "raw file-descriptor calls need Linux");
        MethodHandle socketpair = LINKER.downcallHandle(LINKER.defaultLookup().find("socketpair").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(ValueLayout.JAVA_INT, 2);
            assertEquals(0, (int) socketpair.invokeExact(1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0, fds));
            client = fds.getAtIndex(ValueLayout.JAVA_INT, 0);
            server = fds.getAtIndex(ValueLayout.JAVA_INT, 1);
        }
    }

    @AfterEach
    void close() throws Throwable {
        MethodHandle close = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        for (int fd : new int[] {client, server}) {
            if (fd >= 0) {
                int ignored = (int) close.invokeExact(fd);
            }
        }
        if (serving != null) {
            serving.join(Duration.ofSeconds(10));
        }
    }

    /** Serves rank 1 of 3 of job "kvs_7": answers each command with {@code answer}, by default a standard server. */
    private void serve(Function<Map<String, String>, String> answer) {
        Map<String, String> kvs = new HashMap<>();
        serving = Thread.ofPlatform().daemon().start(() -> {
            try {
                byte[] buf = new byte[65536];
                StringBuilder in = new StringBuilder();
                while (in.indexOf("\n") < 0) {
                    int n = RawFd.read(server, buf, 0, buf.length, 20_000);
                    if (n == 0) {
                        return;
                    }
                    in.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
                seen.add(Pmi2Client.parseLine(in.substring(0, in.indexOf("\n"))));
                in.delete(0, in.indexOf("\n") + 1);
                write("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n", false);
                while (true) {
                    while (in.length() < 6 || in.length() < 6 + Integer.parseInt(in.substring(0, 6).trim())) {
                        int n = RawFd.read(server, buf, 0, buf.length, 20_000);
                        if (n == 0) {
                            return;
                        }
                        in.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    }
                    int len = Integer.parseInt(in.substring(0, 6).trim());
                    Map<String, String> cmd = Pmi2Client.parse(in.substring(6, 6 + len));
                    in.delete(0, 6 + len);
                    seen.add(cmd);
                    String custom = answer.apply(cmd);
                    if (custom != null) {
                        if (!custom.isEmpty()) {
                            write(custom, true);
                        }
                        continue;
                    }
                    write(switch (cmd.get("cmd")) {
                        case "fullinit" -> "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank="
                                + cmd.get("pmirank") + ";size=3;appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;";
                        case "job-getid" -> "cmd=job-getid-response;jobid=kvs_7;rc=0;";
                        case "kvs-put" -> {
                            kvs.put(cmd.get("key"), cmd.get("value"));
                            yield "cmd=kvs-put-response;rc=0;";
                        }
                        case "kvs-get" -> kvs.containsKey(cmd.get("key"))
                                ? "cmd=kvs-get-response;found=TRUE;value=" + kvs.get(cmd.get("key")) + ";rc=0;"
                                : "cmd=kvs-get-response;found=FALSE;rc=0;";
                        default -> "cmd=" + cmd.get("cmd") + "-response;rc=0;";
                    }, true);
                }
            } catch (Exception e) {
                // the test closed the socket
            }
        });
    }

    private void write(String text, boolean framed) throws Exception {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        String frame = framed ? String.format("%-6d", body.length) + text : text;
        RawFd.write(server, frame.getBytes(StandardCharsets.UTF_8), 10_000);
    }

    @Test
    void joinsPutsFencesGetsAndFinishes() throws Exception {
        serve(cmd -> null);
        Pmi2Client c = Pmi2Client.connect(client, 1, 10_000);
        assertEquals(1, c.rank());
        assertEquals(3, c.size());
        assertEquals("kvs_7", c.jobId());
        assertEquals(Map.of("cmd", "init", "pmi_version", "2", "pmi_subversion", "0"), seen.get(0));
        assertEquals("1", seen.get(1).get("pmirank"));

        PmiKeyValueStore store = new PmiKeyValueStore(c, Duration.ofSeconds(10));
        String odd = "a;b=c d%e\nf ü";
        store.put("rank", odd);
        store.fence();
        assertEquals(odd, store.get(1, "rank"), "values with ; = % blanks and non-ASCII survive");
        String wire = seen.stream().filter(m -> "kvs-put".equals(m.get("cmd"))).findFirst().orElseThrow().get("value");
        assertTrue(!wire.contains(";") && !wire.contains("=") && !wire.contains(" "), wire);
        Map<String, String> get = seen.get(seen.size() - 1);
        assertEquals("kvs_7", get.get("jobid"));
        c.finish(10_000);
        c.finish(10_000); // once only
        assertEquals(1, seen.stream().filter(m -> "finalize".equals(m.get("cmd"))).count());
    }

    @Test
    void bootstrapJoinsThroughPmiAndRankZeroPublishesTheSecretBeforeAnyFence() throws Exception {
        serve(cmd -> null);
        JobInfo job = Bootstrap.detect(Map.of("PMI_FD", Integer.toString(client), "PMI_RANK", "0", "PMI_SIZE", "3"));
        client = -1; // the process's PMI membership keeps it (and finalizes on it at exit)
        assertEquals(JobInfo.Launcher.MPICH, job.launcher());
        assertEquals("mpich-kvs_7", job.jobId(), "Hydra names its job only through PMI");
        PmiJob pmi = PmiJob.of(job);
        assertTrue(pmi != null, "Node finds the membership that made the job");
        Map<String, String> put = seen.stream().filter(m -> "kvs-put".equals(m.get("cmd"))).findFirst().orElseThrow();
        assertEquals(PmiJob.SECRET_KEY + "-0", put.get("key"), "rank 0's key");
        assertTrue(put.get("value").matches("[0-9a-f]{64}"), put.get("value"));
        assertTrue(seen.stream().noneMatch(m -> "kvs-fence".equals(m.get("cmd"))), "put before the first fence");
        assertArrayEquals(java.util.HexFormat.of().parseHex(put.get("value")), pmi.secret(Duration.ofSeconds(10)));
        JobInfo other = new JobInfo(JobInfo.Launcher.MPICH, "mpich-other", 0, 3, 0, 3, 0, job.jobDir(), job.kvsDir(),
                null, -1, false);
        assertNull(PmiJob.of(other), "a job Bootstrap did not make from it");
    }

    @Test
    void aMissingKeyAndATooLongValueAreClearErrors() throws Exception {
        serve(cmd -> null);
        PmiKeyValueStore store = new PmiKeyValueStore(Pmi2Client.connect(client, 1, 10_000), Duration.ofSeconds(10));
        store.fence();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get(0, "rank"));
        assertTrue(e.getMessage().contains("rank 0 put no 'rank'"), e.getMessage());

        store.put("big", "x".repeat(Pmi2Client.MAX_VALUE));
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> store.put("big2", "x".repeat(Pmi2Client.MAX_VALUE - 2) + ";"));
        assertTrue(tooLong.getMessage().contains("more than the 1024"), tooLong.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.put("k".repeat(Pmi2Client.MAX_KEY - 1), "v"));
        assertThrows(IllegalArgumentException.class, () -> store.put("a b", "v"));
    }

    @Test
    void aRefusalCarriesTheServersMessage() {
        serve(cmd -> "kvs-put".equals(cmd.get("cmd")) ? "cmd=kvs-put-response;rc=-1;errmsg=duplicate key;" : null);
        PmiKeyValueStore store = assertDoesNotTimeOut();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.put("k", "v"));
        assertTrue(e.getMessage().contains("refused kvs-put") && e.getMessage().contains("duplicate key"),
                e.getMessage());
    }

    @Test
    void aSilentServerTimesOut() throws Exception {
        serve(cmd -> "kvs-fence".equals(cmd.get("cmd")) ? "" : null); // never answers a fence
        Pmi2Client c = Pmi2Client.connect(client, 1, 10_000);
        PmiKeyValueStore store = new PmiKeyValueStore(c, Duration.ofMillis(300));
        TimeoutException t = assertThrows(TimeoutException.class, store::fence);
        assertTrue(t.getMessage().contains("did every rank start?"), t.getMessage());
    }

    @Test
    void aServerThatIsNotPmi2IsNamed() throws Exception {
        serving = Thread.ofPlatform().daemon().start(() -> {
            try {
                byte[] buf = new byte[1024];
                RawFd.read(server, buf, 0, buf.length, 20_000);
                write("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n", false);
            } catch (Exception e) {
                // closed
            }
        });
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Pmi2Client.connect(client, 0, 10_000));
        assertTrue(e.getMessage().contains("does not speak PMI-2") && e.getMessage().contains("--mpi=pmi2"),
                e.getMessage());
    }

    @Test
    void aClosedSocketIsNamed() throws Throwable {
        serving = Thread.ofPlatform().daemon().start(() -> { });
        MethodHandle shutdown = LINKER.downcallHandle(LINKER.defaultLookup().find("shutdown").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        assertEquals(0, (int) shutdown.invokeExact(server, 2 /* SHUT_RDWR */));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> Pmi2Client.connect(client, 0, 10_000));
        assertTrue(e.getMessage().contains("PMI_FD"), e.getMessage());
    }

    @Test
    void parsingUndoesDoubledSemicolons() {
        assertEquals(Map.of("cmd", "x", "value", "a;b", "rc", "0"), Pmi2Client.parse("cmd=x;value=a;;b;rc=0;"));
        assertEquals("", PmiKeyValueStore.decode(PmiKeyValueStore.encode("")));
        assertNull(Pmi2Client.parse("cmd=x;").get("rc"));
        assertArrayEquals("%3B%3D%25%20".getBytes(StandardCharsets.US_ASCII),
                PmiKeyValueStore.encode(";=% ").getBytes(StandardCharsets.US_ASCII));
    }

    /** Found by BootstrapWireFuzzTest: a word without '=' made one key of itself and the pair after it. */
    @Test
    void aWordWithoutAValueDoesNotHideTheNextKey() {
        assertEquals(Map.of("cmd", "x-response", "rc", "0"), Pmi2Client.parse("cmd=x-response;junk;rc=0;"));
        assertEquals("0", Pmi2Client.answer("x", "junk;cmd=x-response;rc=0;".getBytes(StandardCharsets.UTF_8)).get("rc"));
    }

    @Test
    void aNegativeLengthHeaderIsAnErrorThatSaysSo() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Pmi2Client.bodyLength("get", "-5    ".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(e.getMessage().contains("no length header ('-5')"), e.getMessage());
        assertEquals(42, Pmi2Client.bodyLength("get", "42    ".getBytes(StandardCharsets.US_ASCII)));
    }

    private PmiKeyValueStore assertDoesNotTimeOut() {
        try {
            return new PmiKeyValueStore(Pmi2Client.connect(client, 1, 10_000), Duration.ofSeconds(10));
        } catch (TimeoutException e) {
            throw new AssertionError("the scripted server did not answer", e);
        }
    }
}

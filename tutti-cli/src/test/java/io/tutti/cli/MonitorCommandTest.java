package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tutti monitor}'s command line: what it serves and says, and the mistakes it names. */
@Timeout(60)
class MonitorCommandTest {
    @TempDir
    Path root;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private CommandLine command(MonitorCommand m) {
        m.root = root;
        return new CommandLine(m).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    }

    @Test
    void anUnknownJobABadPortOrAnOpenTokenFileIsAUsageError() throws Exception {
        assertEquals(Launcher.EXIT_USAGE, command(new MonitorCommand()).execute("nosuchjob", "--port", "0"));
        assertTrue(err.toString().contains("tutti monitor: no job nosuchjob on this host"), err::toString);
        assertEquals(Launcher.EXIT_USAGE, command(new MonitorCommand()).execute("--port", "70000"));
        assertTrue(err.toString().contains("--port 70000 is not a port"), err::toString);
        Path token = root.resolve("token");
        Files.writeString(token, "t\n");
        Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-r--"));
        assertEquals(Launcher.EXIT_USAGE, command(new MonitorCommand()).execute("--port", "0", "--token-file",
                token.toString()));
        assertTrue(err.toString().contains("chmod 600"), err::toString);
    }

    @Test
    void servesTheJobsOfThisHostAndSaysControlIsDisabled() throws Exception {
        Files.createDirectories(root.resolve("tutti-abc"));
        Files.writeString(root.resolve("tutti-abc").resolve(StaleJobs.LAUNCHER_PID), ProcessHandle.current().pid() + "\n");
        MonitorCommand m = new MonitorCommand();
        CommandLine cl = command(m);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute("--port", "0"));
        try {
            Matcher url = null;
            for (int i = 0; i < 200 && (url == null || !url.find()); i++) {
                Thread.sleep(50);
                url = Pattern.compile("serving every job of this user on this host at (http://127\\.0\\.0\\.1:\\d+/)")
                        .matcher(out.toString());
            }
            assertTrue(url != null && url.find(0), out::toString);
            assertTrue(out.toString().contains("control is disabled (no --token-file): read-only"), out::toString);
            HttpResponse<String> jobs = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(url.group(1) + "api/jobs")).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(jobs.body().contains("\"job\":\"abc\""), jobs::body);
        } finally {
            m.stop.countDown();
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS));
    }

    @Test
    void helpNamesTheEndpointsAndTheDefaults() {
        assertEquals(0, command(new MonitorCommand()).execute("--help"));
        String help = out.toString();
        for (String s : new String[] {"/metrics", "/api/jobs", "default: 9464", "default: 127.0.0.1", "--token-file",
            "tutti run -n 4 --monitor 9464"}) {
            assertTrue(help.contains(s), () -> s + " not in:\n" + help);
        }
    }
}

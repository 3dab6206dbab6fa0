package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command the launcher builds for a rank under {@code --exec-prefix}: {@code ip netns exec}
 * inherits the environment, a remote-shell template ({@code ssh {host}}) gets the rank's TUTTI_*
 * variables on its command line, quoted so the remote shell gives back the very same words.
 */
@Timeout(30)
class ExecPrefixTest {
    private static Placement placement(String template) {
        return new Placement(List.of("h1", "h2"), 1, template, Map.of());
    }

    private static Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("TUTTI_RANK", "1");
        env.put("TUTTI_RAILS", "r0,r1");
        env.put("TUTTI_JVM_OPTS", "-Xmx1g -Dx='a b'");
        env.put("HOME", "/root");
        env.put("PATH", System.getenv("PATH"));
        return env;
    }

    @Test
    void ipNetnsExecPassesTheCommandAsItIs() {
        List<String> cmd = List.of("java", "-cp", "lib/*", "Main");
        Placement p = placement("ip netns exec {host}");
        assertEquals(List.of("ip", "netns", "exec", "h2", "java", "-cp", "lib/*", "Main"), p.command("h2", cmd, env()));
        assertEquals(cmd, Placement.LOCAL.command(null, cmd, env()));
    }

    @Test
    void sshGetsTheTuttiEnvironmentOnItsCommandLineQuoted() {
        List<String> cmd = List.of("java", "-cp", "lib/*", "Main");
        List<String> full = placement("ssh -o BatchMode=yes {host}").command("h1", cmd, env());
        assertEquals(List.of("ssh", "-o", "BatchMode=yes", "h1", "env", "'TUTTI_JVM_OPTS=-Xmx1g -Dx='\\''a b'\\'''",
                "TUTTI_RAILS=r0,r1", "TUTTI_RANK=1", "java", "-cp", "'lib/*'", "Main"), full);
    }

    /** What a remote shell makes of the words after the template: ssh joins them with spaces for it. */
    private static String throughShell(List<String> full, int templateWords) throws Exception {
        String line = String.join(" ", full.subList(templateWords, full.size()));
        Process p = new ProcessBuilder("/bin/sh", "-c", line).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    @Test
    void theRemoteShellGivesBackEveryWordAndVariableIntact() throws Exception {
        List<String> awkward = List.of("lib/*", "it's \"quoted\"", "$HOME `id` ;ls", "", "tab\there", "ü");
        List<String> cmd = new ArrayList<>(List.of("printf", "[%s]\\n"));
        cmd.addAll(awkward);
        Placement ssh = placement("ssh {host}");
        StringBuilder want = new StringBuilder();
        awkward.forEach(w -> want.append('[').append(w).append("]\n"));
        assertEquals(want.toString(), throughShell(ssh.command("h1", cmd, env()), 2));
        // and the variables reach the command
        List<String> show = List.of("/bin/sh", "-c", "printf '%s|%s|%s' \"$TUTTI_JVM_OPTS\" \"$TUTTI_RAILS\" \"${HOME-unset}\"");
        Map<String, String> e = env();
        e.put("HOME", "not passed");
        String got = throughShell(ssh.command("h1", show, e), 2);
        assertEquals("-Xmx1g -Dx='a b'|r0,r1|" + System.getenv().getOrDefault("HOME", "unset"), got);
    }
}

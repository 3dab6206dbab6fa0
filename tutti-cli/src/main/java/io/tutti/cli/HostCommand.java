package io.tutti.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tutti host}: drains hosts so that the next {@code tutti run} leaves them out, and brings them back. */
@Command(name = "host", usageHelpAutoWidth = true, mixinStandardHelpOptions = true,
        description = {
            "Keeps the list of drained hosts: 'tutti run' leaves them out of --hostfile, --host and --hosts,"
                + " saying so in one line (and fails when no host is left). Jobs already running are not touched.",
            "The list is this user's file $TUTTI_DRAINED_HOSTS, else $XDG_CONFIG_HOME/tutti/drained-hosts, else"
                + " ~/.config/tutti/drained-hosts: one host a line, named as hostfiles name it (case ignored)."},
        footer = {"", "Examples:",
            "  tutti host drain node3",
            "  tutti host list",
            "  tutti host undrain node3"})
public final class HostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "drain|undrain|list", description = "What to do.")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "HOST", description = "The host, for drain and undrain.")
    String host;

    /** The list; tests point it elsewhere. */
    DrainList list = DrainList.standard();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean needsHost = action.equals("drain") || action.equals("undrain");
        if (!needsHost && !action.equals("list")) {
            err.println("tutti host: unknown action '" + action + "': drain HOST, undrain HOST or list");
            return Launcher.EXIT_USAGE;
        }
        if (needsHost != (host != null)) {
            err.println(needsHost ? "tutti host " + action + ": name the host, e.g. tutti host " + action + " node3"
                    : "tutti host list takes no host");
            return Launcher.EXIT_USAGE;
        }
        if (needsHost && (host.isBlank() || host.chars().anyMatch(Character::isWhitespace) || host.startsWith("#"))) {
            err.println("tutti host " + action + ": '" + host + "' is not a host name");
            return Launcher.EXIT_USAGE;
        }
        try {
            switch (action) {
                case "drain" -> out.println(list.drain(host) ? "drained " + host + ": tutti run leaves it out"
                        + " (" + list.file() + ")" : host + " was drained already");
                case "undrain" -> out.println(list.undrain(host) ? "undrained " + host + ": tutti run uses it again"
                        : host + " was not drained (tutti host list shows those that are)");
                default -> {
                    Map<String, String> hosts = list.read();
                    if (hosts.isEmpty()) {
                        out.println("no drained hosts (" + list.file() + ")");
                    }
                    hosts.forEach((h, note) -> out.println(note.isEmpty() ? h : h + "  " + note));
                }
            }
        } catch (UncheckedIOException e) {
            err.println("tutti host: " + e.getMessage());
            return 1;
        }
        out.flush();
        return 0;
    }
}

package io.tutti.cli;

import io.tutti.Tutti;
import io.tutti.os.Platform;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code tutti} command: {@code run} (the launcher), {@code status}, {@code monitor}, {@code rail},
 * {@code host}, {@code javac}, {@code bench}, {@code sim}, {@code offload}, {@code switch} and {@code demo}. The exit code of the command is the exit code of
 * the JVM, so scripts and CI see a failed job as failed.
 */
@Command(name = "tutti", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        synopsisSubcommandLabel = "COMMAND",
        description = "Tutti: MPI-style point-to-point and collective communication for the JVM.",
        subcommands = {RunCommand.class, StatusCommand.class, MonitorCommand.class, RailCommand.class, HostCommand.class,
                JavacCommand.class, BenchCommand.class, SimCommand.class, OffloadCommand.class,
            SwitchCommand.class, DemoCommand.class,
            CommandLine.HelpCommand.class},
        footer = {"", "Run 'tutti COMMAND --help' for the options of a command."})
public final class Main implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Starts the command line and exits with its code. */
    public static void main(String[] args) {
        // System.exit, not a return: a thread-mode rank stuck past its timeout must not keep the JVM alive.
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code, without exiting; for tests and embedding. */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /**
     * The configured command line: program arguments after {@code run}'s main class, and everything
     * after {@code javac}, pass through untouched ({@code @file} arguments too: they are the program's
     * or javac's to read).
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExpandAtFiles(false);
        // Set after the subcommands are registered: picocli applies it only to those already present.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.getSubcommands().get("javac").setStopAtPositional(true).setUnmatchedOptionsArePositionalParams(true);
        cl.setParameterExceptionHandler(Main::usageError);
        return cl;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("tutti: give a command, e.g. tutti run -n 4 com.example.Main");
        err.println();
        spec.commandLine().usage(err);
        return Launcher.EXIT_USAGE;
    }

    /** A short error that names the command, instead of picocli's message followed by the whole help. */
    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + ex.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("See '" + name + " --help'.");
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * {@code tutti --version}: Tutti's version from the build, the JVM it runs on and where the Tutti
     * jars are: the {@code java} and the class path to give a program started by another launcher.
     */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String java = "java " + Runtime.version() + " (" + Platform.JAVA_VENDOR + ", " + Platform.JAVA_HOME + ")";
            Path jars = jarDirectory();
            return jars == null ? new String[] {"tutti " + version(), java}
                    : new String[] {"tutti " + version(), java, "jars " + jars};
        }

        /** The directory of the jar that holds the API, or null when it does not come from a jar. */
        static Path jarDirectory() {
            try {
                var source = Tutti.class.getProtectionDomain().getCodeSource();
                Path where = source == null ? null : Path.of(source.getLocation().toURI());
                return where != null && where.toString().endsWith(".jar") ? where.getParent().normalize() : null;
            } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
                return null;
            }
        }

        /** The project version Maven wrote into the jar's resources. */
        public static String version() {
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    String v = p.getProperty("version");
                    if (v != null && !v.startsWith("${")) {
                        return v;
                    }
                }
            } catch (IOException e) {
                // fall through: a version we cannot read is reported as such
            }
            return "(unknown version)";
        }
    }
}

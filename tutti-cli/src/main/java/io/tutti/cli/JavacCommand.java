package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.os.Platform;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.spi.ToolProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tutti javac}: javac of the JDK tutti runs on, with the Tutti jars added to the class path,
 * as Open MPI's {@code mpijavac} adds the MPI jar. Everything else is javac's: the options, where the
 * classes go, the messages and the exit code.
 */
@Command(name = "javac", usageHelpAutoWidth = true, sortOptions = false,
        description = {
            "Compiles a program that uses Tutti: javac of the JDK tutti runs on, with the Tutti jars on the class"
                + " path.",
            "",
            "Every argument goes to javac unchanged, except that the Tutti jars are added after the class path"
                + " given with -cp, -classpath or --class-path (default: $CLASSPATH, else the current directory,"
                + " as for javac). The classes go where javac puts them: into the -d directory, else next to each"
                + " source file. The exit code is javac's: 0 compiled, 1 compile errors, 2 bad options.",
        },
        footer = {
            "",
            "javac's own options: tutti javac -help. A -cp inside an @argfile would replace the Tutti jars:"
                + " give it on the command line.",
            "",
            "Examples:",
            "  tutti javac Ring.java && tutti run -n 4 Ring",
            "  tutti javac -d build/classes -cp lib/util.jar src/com/example/*.java",
            "  tutti run -n 4 --cp build/classes:lib/util.jar com.example.Ring",
        })
public final class JavacCommand implements Callable<Integer> {
    private static final Set<String> CLASS_PATH_OPTIONS = Set.of("-cp", "-classpath", "--class-path");

    @Spec
    CommandSpec spec;

    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Parameters(paramLabel = "JAVAC_ARGS", description = "javac's options and the source files.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        if (args.isEmpty()) {
            err.println("tutti javac: give the source files to compile, e.g. tutti javac Ring.java; see"
                    + " 'tutti javac --help'");
            return Launcher.EXIT_USAGE;
        }
        Optional<ToolProvider> javac = ToolProvider.findFirst("javac");
        if (javac.isEmpty()) {
            err.println("tutti javac: " + Platform.JAVA_HOME + " is a Java runtime without javac: run tutti with a"
                    + " JDK 25 (set JAVA_HOME to it)");
            return Launcher.EXIT_FAILURE;
        }
        List<String> full;
        try {
            full = withClassPath(args, Platform.CLASS_PATH, LaunchEnvironment.current().get("CLASSPATH"));
        } catch (Launcher.UsageException e) {
            err.println("tutti javac: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        int code = javac.get().run(out, err, full.toArray(String[]::new));
        out.flush();
        err.flush();
        return code;
    }

    /**
     * javac's arguments with {@code tutti} (the Tutti jars) after the class path they give, or after
     * javac's default ({@code envClasspath}, else ".") when they give none.
     */
    static List<String> withClassPath(List<String> args, String tutti, String envClasspath) {
        List<String> full = new ArrayList<>(args.size() + 2);
        boolean given = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (CLASS_PATH_OPTIONS.contains(a) && i + 1 < args.size()) {
                full.add(a);
                full.add(join(args.get(++i), tutti));
                given = true;
            } else if (a.startsWith("--class-path=")) {
                full.add("--class-path=" + join(a.substring("--class-path=".length()), tutti));
                given = true;
            } else {
                if (a.startsWith("@") && setsClassPath(Path.of(a.substring(1)))) {
                    throw new Launcher.UsageException(a.substring(1) + " sets the class path, which would leave out"
                            + " the Tutti jars: give -cp on the command line instead");
                }
                full.add(a);
            }
        }
        if (!given) {
            String base = envClasspath == null || envClasspath.isBlank() ? "." : envClasspath;
            full.addAll(0, List.of("-cp", join(base, tutti)));
        }
        return full;
    }

    /** Whether an @argfile names a class path option; one javac cannot read is left for javac to report. */
    private static boolean setsClassPath(Path argfile) {
        try {
            for (String word : Files.readString(argfile).split("\\s+")) {
                String w = word.replace("\"", "").replace("'", "");
                if (CLASS_PATH_OPTIONS.contains(w) || w.startsWith("--class-path=")) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : a + File.pathSeparator + b;
    }
}

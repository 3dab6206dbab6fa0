package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The mpi API (Open MPI's Java bindings over Tutti, module tutti-mpi): each program of
 * {@code io.tutti.systest.mpi} is written as a user's would be ({@code MPI.Init(args)} ...
 * {@code MPI.Finalize()}), checks its own results and exits non-zero on the first failure; here the
 * real launcher runs it at 2 and 8 ranks, and every rank must have said it passed.
 */
@Timeout(150)
class MpiApiIT {
    @TempDir
    Path work;

    @ParameterizedTest(name = "{0} at {1} ranks")
    @CsvSource({
        "MpiBasics, 2, basics ok", "MpiBasics, 8, basics ok",
        "MpiSendRecv, 2, send/recv ok", "MpiSendRecv, 8, send/recv ok",
        "MpiSendRecvCombined, 2, sendRecv ok", "MpiSendRecvCombined, 8, sendRecv ok",
        "MpiProbe, 2, probe ok", "MpiProbe, 8, probe ok",
        "MpiModes, 2, send modes ok", "MpiModes, 8, send modes ok",
        "MpiErrors, 2, errors ok", "MpiErrors, 8, errors ok",
        "MpiNonblocking, 2, nonblocking ok", "MpiNonblocking, 8, nonblocking ok",
        "MpiCollectives, 2, collectives ok", "MpiCollectives, 8, collectives ok",
        "MpiCollectivesNonblocking, 2, nonblocking collectives ok",
        "MpiCollectivesNonblocking, 8, nonblocking collectives ok",
        "MpiMessage, 2, matched probe ok", "MpiMessage, 8, matched probe ok",
        "MpiCommunicators, 2, communicators ok", "MpiCommunicators, 8, communicators ok",
        "MpiIntercomm, 2, intercommunicators ok", "MpiIntercomm, 8, intercommunicators ok",
        "MpiDatatypes, 2, datatypes ok", "MpiDatatypes, 8, datatypes ok",
        "MpiEnvironment, 2, environment ok", "MpiEnvironment, 8, environment ok",
        "MpiTopologies, 2, topologies ok", "MpiTopologies, 8, topologies ok",
        "MpiWindows, 2, windows ok", "MpiWindows, 8, windows ok",
        "MpiWindowErrors, 2, window errors ok", "MpiWindowErrors, 8, window errors ok",
        "MpiPorts, 2, ports ok", "MpiPorts, 8, ports ok",
    })
    void programPasses(String program, int ranks, String passed) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), "run", "--verbose", "-n", Integer.toString(ranks),
                "--timeout", "120s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi." + program);
        assertExit(0, r);
        assertEquals(ranks, r.stdout().lines().filter(l -> l.endsWith(": " + passed)).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /** The bindings' gets from ranks on other hosts ({@code --transport net}), whose data may come after the call. */
    @ParameterizedTest(name = "{0} ranks")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 4})
    void getsAcrossHostsCompleteWhenMpiSays(int ranks) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), "run", "--verbose", "-n", Integer.toString(ranks),
                "--transport", "net", "--timeout", "120s", "--cp", Launch.testClasses(),
                "io.tutti.systest.mpi.MpiWindowsAcrossHosts");
        assertExit(0, r);
        assertEquals(ranks, r.stdout().lines().filter(l -> l.endsWith(": windows across hosts ok")).count(),
                r::toString);
        r.assertNoJobDirectory();
    }

    /**
     * The MPI-IO programs, in a directory of their own under the test's: they must leave it empty
     * (every file they make is deleted, on close or by File.delete).
     */
    @ParameterizedTest(name = "{0} at {1} ranks")
    @CsvSource({
        "MpiFiles, 2, files ok", "MpiFiles, 8, files ok",
        "MpiFileErrors, 2, file errors ok", "MpiFileErrors, 8, file errors ok",
    })
    void fileProgramPasses(String program, int ranks, String passed) throws Exception {
        Path files = Files.createDirectory(work.resolve("files"));
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), "run", "--verbose", "-n", Integer.toString(ranks),
                "--timeout", "120s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi." + program,
                files.toString());
        assertExit(0, r);
        assertEquals(ranks, r.stdout().lines().filter(l -> l.endsWith(": " + passed)).count(), r::toString);
        try (Stream<Path> left = Files.list(files)) {
            assertEquals(List.of(), left.toList(), "files the program left behind");
        }
        r.assertNoJobDirectory();
    }

    /**
     * The MPI-IO program with every pair of ranks over the network ({@code --transport net}, as across
     * hosts): the shared file pointer, a window at rank 0, moves by fetch-and-adds over the rails.
     */
    @Test
    void filesShareTheirPointerAcrossHosts() throws Exception {
        Path files = Files.createDirectory(work.resolve("files"));
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), "run", "--verbose", "-n", "3", "--transport", "net",
                "--timeout", "120s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi.MpiFiles", files.toString());
        assertExit(0, r);
        assertEquals(3, r.stdout().lines().filter(l -> l.endsWith(": files ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /**
     * Ranks as threads of one JVM ({@code --threads}): each rank loads package mpi through a class
     * loader of its own, so each has its own MPI state, and the programs pass unchanged.
     */
    @ParameterizedTest(name = "{0} {2} as 4 threads")
    @CsvSource({
        "MpiThreadRanks, thread ranks ok, ''", "MpiThreadRanks, thread ranks ok, from-a-thread",
        "MpiSendRecv, send/recv ok, ''", "MpiCollectives, collectives ok, ''",
        "MpiCommunicators, communicators ok, ''", "MpiWindows, windows ok, ''",
    })
    void programPassesAsThreads(String program, String passed, String argument) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), "run", "--verbose", "--threads", "-n", "4",
                "--timeout", "120s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi." + program, argument);
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.endsWith(": " + passed)).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /**
     * The default error handler, MPI.ERRORS_ARE_FATAL, and abort: the job ends with the error's class
     * (or abort's code) and one line naming the rank and the call, at once (not at the job's
     * timeout). With ranks as threads of one JVM (4 of them), the launcher's line naming the rank
     * follows; the JVM's other ranks do not go on.
     */
    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource({
        "error, processes, 6, 'mpi: rank 1 (MPI.COMM_WORLD): send: invalid destination rank 2'",
        "abort, processes, 3, 'mpi: MPI_ABORT was called on rank 1 in communicator MPI.COMM_WORLD with error code 3'",
        "error, threads, 6, 'mpi: rank 3 (MPI.COMM_WORLD): send: invalid destination rank 4'",
        "abort, threads, 3, 'mpi: MPI_ABORT was called on rank 3 in communicator MPI.COMM_WORLD with error code 3'",
    })
    void fatalErrorsEndTheJob(String how, String as, int code, String line) throws Exception {
        boolean threads = as.equals("threads");
        List<String> run = new java.util.ArrayList<>(List.of("run", "--verbose", "-n", threads ? "4" : "2"));
        if (threads) {
            run.add("--threads");
        }
        run.addAll(List.of("--timeout", "120s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi.MpiFatal", how));
        Launch.Result r = Launch.run(work, Duration.ofSeconds(140), run.toArray(String[]::new));
        assertExit(code, r);
        List<String> said = r.stderr().lines().toList();
        int rankLine = said.indexOf(said.stream().filter(l -> l.startsWith(line)).findFirst().orElse(""));
        assertTrue(rankLine >= 0, r::toString);
        if (threads) {
            assertTrue(said.indexOf("tutti run: rank 3 exited with code " + code
                    + "; stopping the other ranks (threads of this JVM)") > rankLine, r::toString);
        }
        assertFalse(r.stdout().contains("not ended"), r::toString);
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(90)) < 0, r::toString);
        r.assertNoJobDirectory();
    }
}

package io.tutti.systest;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layer rules of every module, over the main classes of all of them: no two packages depend on
 * each other (directly or around a cycle), each layer imports only what is below it, and only
 * {@code io.tutti.bootstrap} reads the environment. A change that breaks a rule fails the build;
 * the package map and the reasons are in the README and in each package's {@code package-info.java}.
 */
class LayerRulesTest {
    /** The packages of tutti-core, bottom to top as the README's package map lists them. */
    private static final String[] CORE = {"io.tutti", "io.tutti.os..", "io.tutti.idle..", "io.tutti.wire..",
        "io.tutti.rails..", "io.tutti.reduce..", "io.tutti.transport..", "io.tutti.metrics..", "io.tutti.bootstrap..",
        "io.tutti.p2p..",
        "io.tutti.coll..", "io.tutti.offload..", "io.tutti.rma..", "io.tutti.inter..", "io.tutti.runtime.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tutti", "mpi");
        // every module's main classes, or the rules below would pass by seeing nothing
        for (String module : new String[] {"io.tutti.p2p.Engine", "io.tutti.net.RailsTransport",
            "io.tutti.sw.AggregationSwitch", "io.tutti.sim.EventLoop", "io.tutti.cli.Main", "io.tutti.monitor.MonitorServer", "io.tutti.bench.P2pBenchmark",
            "io.tutti.report.Charts", "mpi.MPI"}) {
            assertTrue(classes.contain(module), module + " was not imported: the rules would check nothing");
        }
    }

    /** Each package of Tutti is its own slice: a cycle between any two packages breaks the rule. */
    private static final SliceAssignment BY_PACKAGE = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            return c.getPackageName().startsWith("io.tutti") ? SliceIdentifier.of(c.getPackageName())
                    : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages of io.tutti";
        }
    };

    private static void check(ArchRule rule) {
        rule.check(classes);
    }

    @Test
    void noPackageCycles() {
        check(SlicesRuleDefinition.slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles());
    }

    @Test
    void theApiImportsNothingBelowIt() {
        check(noClasses().that().resideInAPackage("io.tutti").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.idle.."))))
                .because("every layer imports the API; the runtime is found with ServiceLoader"));
    }

    @Test
    void theCoreNeverImportsTheOtherModules() {
        check(noClasses().that().resideInAnyPackage(CORE).should().dependOnClassesThat().resideInAnyPackage(
                "io.tutti.net..", "io.tutti.sim..", "io.tutti.sw..", "io.tutti.cli..", "io.tutti.bench..",
                "io.tutti.samples..", "io.tutti.report.."));
    }

    @Test
    void theReportFormatsImportNothingOfTutti() {
        check(noClasses().that().resideInAPackage("io.tutti.report..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAPackage("io.tutti.report..")))));
    }

    @Test
    void theStripingPolicyImportsNothingOfTutti() {
        check(noClasses().that().resideInAPackage("io.tutti.rails..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAPackage("io.tutti.rails.."))))
                .because("the policy is a pure function that tutti-net and the simulator both call: loads in,"
                        + " rails out, no I/O"));
    }

    @Test
    void onlyBootstrapReadsTheEnvironment() {
        check(noClasses().that().resideOutsideOfPackage("io.tutti.bootstrap..")
                .and().doNotHaveFullyQualifiedName("io.tutti.os.Platform")
                .should().callMethod(System.class, "getenv")
                .orShould().callMethod(System.class, "getenv", String.class)
                .orShould().callMethod(System.class, "getProperties")
                .orShould().callMethod(System.class, "getProperty", String.class)
                .orShould().callMethod(System.class, "getProperty", String.class, String.class)
                .orShould().callMethod(Integer.class, "getInteger", String.class)
                .orShould().callMethod(Long.class, "getLong", String.class)
                .orShould().callMethod(Boolean.class, "getBoolean", String.class)
                .because("settings are read once, through io.tutti.Config and each component's record"));
    }

    @Test
    void collectivesDoNotImportTransportsOrBootstrap() {
        check(noClasses().that().resideInAPackage("io.tutti.coll..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tutti.transport..", "io.tutti.bootstrap..")
                .because("collectives reach peers through the point-to-point engine only"));
    }

    @Test
    void theAgreementUsesTheApiAndTheEngineOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.coll.ft..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.p2p..",
                        "io.tutti.coll.ft..", "io.tutti.idle.."))))
                .because("the agreement must run on a revoked communicator: point-to-point on its own context,"
                        + " never through the collectives that revoking stops"));
    }

    @Test
    void theEngineDoesNotImportBootstrap() {
        check(noClasses().that().resideInAPackage("io.tutti.p2p..").should().dependOnClassesThat()
                .resideInAPackage("io.tutti.bootstrap..")
                .because("the engine sees its job through io.tutti.transport.Fabric"));
    }

    @Test
    void windowsUseTheEngineOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.rma..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tutti.bootstrap..", "io.tutti.coll..", "io.tutti.offload..",
                        "io.tutti.runtime..", "io.tutti.transport..")
                .because("windows reach their peers' memory through the engine's shared files, waits and RMA records"));
        check(noClasses().that().resideInAnyPackage(CORE).and().resideOutsideOfPackages("io.tutti.rma..",
                "io.tutti.runtime..").should().dependOnClassesThat().resideInAPackage("io.tutti.rma..")
                .because("only the runtime wires windows under the API"));
    }

    @Test
    void intercommunicatorsAreBuiltOnTheApiOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.inter..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.inter.."))))
                .because("the rules of making intercommunicators are pure functions of ranks and arguments; their"
                        + " collectives are schedules of io.tutti.coll.algo, which the runtime runs"));
        check(noClasses().that().resideInAnyPackage(CORE).and().resideOutsideOfPackages("io.tutti.inter..",
                "io.tutti.runtime..").should().dependOnClassesThat().resideInAPackage("io.tutti.inter..")
                .because("only the runtime wires intercommunicators under the API"));
    }

    @Test
    void theCountersImportTheApiAndTheTransportSpiOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.metrics..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.metrics..",
                        "io.tutti.transport")))).because("every layer counts into them, and readers outside the"
                + " job (tutti status) map them: they sit just above the API and the transport SPI"));
    }

    @Test
    void theMonitorReadsTheCountersOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.monitor..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.metrics..",
                        "io.tutti.monitor..")))).because("the monitor maps the ranks' counters files read-only and"
                + " serves them; which jobs to watch is the command line's to find"));
    }

    @Test
    void theNetworkTransportCountsThroughTheSpi() {
        check(noClasses().that().resideInAPackage("io.tutti.net..").should().dependOnClassesThat()
                .resideInAPackage("io.tutti.metrics..")
                .because("tutti-net publishes its rails' counters through io.tutti.transport.RailCounters"));
    }

    @Test
    void theSwitchClientCountsThroughItsPort() {
        check(noClasses().that().resideInAPackage("io.tutti.sw..").should().dependOnClassesThat()
                .resideInAPackage("io.tutti.metrics..")
                .because("the switch client counts through io.tutti.coll.inc.InNetworkAggregation.Context#count, with"
                        + " the port's names of what it counts"));
    }

    @Test
    void bootstrapDoesNotImportTheRings() {
        check(noClasses().that().resideInAPackage("io.tutti.bootstrap..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tutti.transport.shm..", "io.tutti.p2p..", "io.tutti.coll..",
                        "io.tutti.offload..", "io.tutti.runtime.."));
    }

    @Test
    void theSwitchUsesTheCoreOnlyThroughItsPort() {
        check(noClasses().that().resideInAPackage("io.tutti.sw..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tutti.p2p..", "io.tutti.coll", "io.tutti.coll.algo..", "io.tutti.coll.schedule..",
                        "io.tutti.coll.slots..", "io.tutti.offload..", "io.tutti.rma..", "io.tutti.transport..",
                        "io.tutti.bootstrap..",
                        "io.tutti.runtime..")
                .because("the switch and its client need the API, the wire format, the reduction kernels and the"
                        + " in-network port (io.tutti.coll.inc) only"));
    }

    @Test
    void theSwitchNeverImportsTheSimulator() {
        check(noClasses().that().resideInAPackage("io.tutti.sw..").should().dependOnClassesThat()
                .resideInAPackage("io.tutti.sim..")
                .because("the simulator drives the switch's packet logic with its own clock and links; the switch"
                        + " is the same code whether a socket or the simulator feeds it"));
    }

    @Test
    void theSimulatorDrivesTheSwitchLogicNotItsSockets() {
        check(noClasses().that().resideInAPackage("io.tutti.sim..").should().dependOnClassesThat()
                .haveFullyQualifiedName("io.tutti.sw.SwitchServer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("io.tutti.sw.IncClient")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("io.tutti.sw.IncProvider")
                .orShould().dependOnClassesThat().resideInAPackage("java.nio.channels..")
                .because("switch mode runs AggregationSwitch in simulated time: packets are handed to it, never"
                        + " sent through a socket"));
    }

    @Test
    void theSamplesUseTheApiOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.samples..").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAnyPackage("io.tutti", "io.tutti.samples..")))));
    }

    @Test
    void theMpiSamplesUseTheMpiApiOnly() {
        check(noClasses().that().resideInAPackage("io.tutti.samples.mpi").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAPackage("io.tutti.samples.mpi"))))
                .because("they are Open MPI Java programs as their users write them: package mpi only"));
    }

    @Test
    void theMpiApiUsesTheApiOnly() {
        check(noClasses().that().resideInAPackage("mpi").should().dependOnClassesThat(
                resideInAPackage("io.tutti..").and(not(resideInAPackage("io.tutti"))))
                .because("the mpi package translates the bindings' API onto io.tutti's public one; what it misses"
                        + " there is a gap to state, not an internal to reach into"));
    }

    @Test
    void everyPackageSaysItsJob() throws IOException {
        Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
        List<String> missing = new ArrayList<>();
        try (Stream<Path> dirs = Files.walk(root, 12)) {
            for (Path dir : dirs.filter(Files::isDirectory).filter(d -> d.toString().contains("/src/main/java/"))
                    .toList()) {
                boolean sources;
                try (Stream<Path> files = Files.list(dir)) {
                    sources = files.anyMatch(f -> f.toString().endsWith(".java"));
                }
                if (sources && !Files.exists(dir.resolve("package-info.java"))) {
                    missing.add(root.relativize(dir).toString());
                }
            }
        }
        assertEquals(List.of(), missing, "packages without a package-info.java that says their job");
    }
}

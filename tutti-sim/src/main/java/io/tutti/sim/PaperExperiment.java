package io.tutti.sim;

import java.util.List;
import java.util.Map;

/**
 * An experiment that reproduces a paper's tables ([BCL-3], [MNC]), or Tutti's own measured figures
 * ({@code tutti-rma}), from a calibration file: the
 * published cells are constants of the implementing class, with their table numbers; {@link #fit}
 * calibrates the free parameters (if any) on the thesis' own LogGP figures and at most one column;
 * {@link #run} simulates every cell. {@link #band} is the largest |error| a predicted cell may have,
 * as the experiment's documentation states and {@code ExperimentFidelityTest} asserts.
 */
public interface PaperExperiment {
    /** The fidelity target every predicted cell aims at (issue: ±15 % per cell). */
    double TARGET = 0.15;

    /** The command-line name, e.g. {@code bcl3-latency}. */
    String name();

    /** The plot's and the tables' title. */
    String title();

    /** The calibration file under docs/sim it reads by default. */
    String calibration();

    /** The free parameters {@link #fit} sets (empty: nothing fitted). */
    List<String> fitted();

    /** Fits the free parameters, starting from {@code p}. */
    List<Fit.Result> fit(SimParams p);

    /** Every cell, simulated with {@code p}. */
    List<PaperCell> run(SimParams p);

    /** The band every predicted cell is held to (relative error). */
    double band();

    /** How many predicted cells lie within {@link #TARGET}, at least (all, unless the documentation says less). */
    default int withinTargetAtLeast() {
        return Integer.MAX_VALUE;
    }

    /** The experiments by name. */
    static Map<String, PaperExperiment> all() {
        return Map.of("bcl3-latency", Bcl3Experiments.LATENCY, "bcl3-bandwidth", Bcl3Experiments.BANDWIDTH,
                "bcl3-barrier", Bcl3Experiments.BARRIER,
                "bcl3-dual-nic", Bcl3Experiments.DUAL_NIC, "bcl3-collectives", Bcl3Experiments.COLLECTIVES, "bcl3-bisection", Bcl3Experiments.BISECTION,
                "mnc-rails", MncRailsExperiment.INSTANCE, "tutti-rma", TuttiRmaExperiment.INSTANCE);
    }
}

package io.tutti.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Tutti's own one-sided figures across the network, predicted by {@link OneSided} from the LogGP
 * parameters of the same rails ({@code tutti bench loggp --transport net}, docs/sim/tutti-rails.cal)
 * and set beside what {@code tutti bench put|get|putbw|getbw --transport net} measured on the same
 * machine in the same minutes (docs/perf/rma.md, "The simulator's one-sided model"). One parameter is
 * fitted on one cell: L, on the 8 B put with its flush. The ping-pong's L (RTT/2 − o_s − o_r) also
 * holds both applications' matching, which a one-sided round trip does not pay; the other seven cells
 * are predictions.
 */
public final class TuttiRmaExperiment implements PaperExperiment {
    /** The one instance. */
    public static final TuttiRmaExperiment INSTANCE = new TuttiRmaExperiment();

    private static final int ROUNDS = 20;
    private static final int WINDOW = 64;
    private static final long MIB = 1 << 20;
    private static final double BAND = 0.76;
    private static final int WITHIN = 1;

    /** A measured figure: the benchmark, its size, the value (µs per operation, or MB/s for the bandwidths). */
    private record Measured(String bench, OneSided.Kind kind, long bytes, double value) {
        boolean bandwidth() {
            return bench.endsWith("bw");
        }
    }

    // docs/perf/rma.md, "The simulator's one-sided model": medians of three runs of bench/compare-rma.sh 3 --net,
    // 2026-11-27 13:53-13:58 UTC, right after the LogGP run of tutti-rails.cal (gets packed in the batch)
    private static final List<Measured> MEASURED = List.of(
            new Measured("put", OneSided.Kind.PUT, 8, 12.31),
            new Measured("put", OneSided.Kind.PUT, MIB, 371.10),
            new Measured("get", OneSided.Kind.GET, 8, 14.62),
            new Measured("get", OneSided.Kind.GET, MIB, 772.32),
            new Measured("putbw", OneSided.Kind.PUT, 8, 36.3),
            new Measured("putbw", OneSided.Kind.PUT, MIB, 1294.8),
            new Measured("getbw", OneSided.Kind.GET, 8, 27.8),
            new Measured("getbw", OneSided.Kind.GET, MIB, 1393.6));

    private TuttiRmaExperiment() {
    }

    @Override
    public String name() {
        return "tutti-rma";
    }

    @Override
    public String title() {
        return "Tutti's one-sided operations over the rails, from the rails' LogGP figures (L fitted on the 8 B put)";
    }

    @Override
    public String calibration() {
        return "tutti-rails.cal";
    }

    @Override
    public List<String> fitted() {
        return List.of("L");
    }

    @Override
    public List<Fit.Result> fit(SimParams p) {
        Measured put = MEASURED.getFirst();
        return List.of(Fit.fit(p, List.of("L"), 0, 100_000, put.value(), q -> simulate(q, put)));
    }

    /** Today's reach, not a target met (docs/perf/rma.md): the largest |error| of a predicted cell, rounded up. */
    @Override
    public double band() {
        return BAND;
    }

    @Override
    public int withinTargetAtLeast() {
        return WITHIN;
    }

    private static double simulate(SimParams p, Measured m) {
        OneSided.Pattern pat = OneSided.Pattern.of(m.kind(), m.bytes(), m.bandwidth() ? WINDOW : 1);
        LogGPNetwork net = new LogGPNetwork(p.L());
        return m.bandwidth() ? OneSided.mbPerSecond(net, p, pat, ROUNDS) : OneSided.nanosPerRound(net, p, pat, ROUNDS) / 1e3;
    }

    @Override
    public List<PaperCell> run(SimParams p) {
        List<PaperCell> cells = new ArrayList<>();
        for (Measured m : MEASURED) {
            cells.add(new PaperCell(name(), "tutti bench " + m.bench() + " --transport net",
                    m.bytes() == 8 ? "8 B" : "1 MiB", m.bench(), m.bandwidth() ? "MB/s" : "µs", m.value(),
                    simulate(p, m), m == MEASURED.getFirst()));
        }
        return cells;
    }
}

package io.tutti.sim;

import java.util.List;
import java.util.Map;

/**
 * [MNC]'s measurements on two Myrinet 2000 rails (2 Gbit/s links, two LANai 9 NICs on one
 * 64-bit/66 MHz PCI bus per PC): the point-to-point bandwidth on one rail and on two (figure 7:
 * 202 and 268 MB/s), and two flows sharing one link (§1, figure 2: 50 % of a lone flow's
 * bandwidth each when both go one way, about 80 % each when they go opposite ways). The host bus is
 * the paper's own measured PCI rates (§3: DMA reads 315 MB/s, writes 372 MB/s), half-duplex and
 * shared by both NICs and both directions; rails are chosen by the transport's striping policy.
 * One parameter is fitted on one cell, the single-rail bandwidth: {@code packet_gap}, the links' time
 * per packet beyond its bytes. Message size 256 KiB, streamed (the paper does not give it).
 */
public final class MncRailsExperiment implements PaperExperiment {
    /** The one instance. */
    public static final MncRailsExperiment INSTANCE = new MncRailsExperiment();

    private static final long BYTES = 256 << 10;
    private static final int MESSAGES = 16;

    private MncRailsExperiment() {
    }

    @Override
    public String name() {
        return "mnc-rails";
    }

    @Override
    public String title() {
        return "[MNC] figures 2 and 7: two rails, two flows on one link";
    }

    @Override
    public String calibration() {
        return "mnc.cal";
    }

    @Override
    public List<String> fitted() {
        return List.of("packet_gap");
    }

    @Override
    public double band() {
        return 0.18;
    }

    @Override
    public int withinTargetAtLeast() {
        return 2;
    }

    @Override
    public List<Fit.Result> fit(SimParams p) {
        double target = MESSAGES * BYTES * 1e3 / 202.0 / 1e3;
        return List.of(Fit.fit(p, List.of("packet_gap"), 0, 100_000, target, q -> alone(q, 1) / 1e3));
    }

    /** Time (ns) of one flow from host 0 to host 1 over {@code rails} rails. */
    private static long alone(SimParams p, int rails) {
        SimParams q = p.with(Map.of("rails", Integer.toString(rails)));
        return Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), q, 1), q,
                List.of(new Traffic.Flow(0, 1, MESSAGES, BYTES)))[0];
    }

    /** Mean bandwidth share (%) of two flows, ranks 0, 1 on host 0 and 2, 3 on host 1, against one alone. */
    private static double shared(SimParams p, boolean opposite) {
        List<Traffic.Flow> flows = List.of(new Traffic.Flow(0, 2, MESSAGES, BYTES),
                opposite ? new Traffic.Flow(3, 1, MESSAGES, BYTES) : new Traffic.Flow(1, 3, MESSAGES, BYTES));
        long[] done = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, 2), p, flows);
        double lone = Traffic.mbPerSecond(flows.getFirst(), alone(p, 1));
        return 100 * (Traffic.mbPerSecond(flows.get(0), done[0]) + Traffic.mbPerSecond(flows.get(1), done[1])) / 2
                / lone;
    }

    @Override
    public List<PaperCell> run(SimParams p) {
        long bytes = MESSAGES * BYTES;
        return List.of(
                new PaperCell(name(), "figure 7", "1 rail", "point-to-point bandwidth", "MB/s", 202,
                        bytes * 1e3 / alone(p, 1), true),
                new PaperCell(name(), "figure 7", "2 rails", "point-to-point bandwidth", "MB/s", 268,
                        bytes * 1e3 / alone(p, 2), false),
                new PaperCell(name(), "figure 2", "2 flows, one way", "share of a lone flow", "%", 50,
                        shared(p, false), false),
                new PaperCell(name(), "figure 2", "2 flows, opposite ways", "share of a lone flow", "%", 80,
                        shared(p, true), false));
    }
}

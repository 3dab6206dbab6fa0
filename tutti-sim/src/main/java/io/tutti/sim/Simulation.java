package io.tutti.sim;

/** Runs one collective: a rank model over a network, every rank starting at t0 = 0. */
public final class Simulation {
    private Simulation() {
    }

    /**
     * Runs {@code model} over {@code network} until no event is left. {@code progress} (may be
     * null) is told the fraction of work done, now and then. {@code network} may be null for a model
     * that carries its messages itself ({@link SwitchModel}).
     */
    public static SimResult run(RankModel model, Network network, java.util.function.DoubleConsumer progress) {
        EventLoop engine = new EventLoop(1 << 16);
        if (network != null) {
            network.attach(engine);
        }
        model.attach(engine, network);
        model.start(0);
        engine.run(progress == null ? null : (events, now) -> progress.accept(model.progress()));
        return model.finish(engine.processed());
    }
}

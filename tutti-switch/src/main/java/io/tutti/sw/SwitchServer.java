package io.tutti.sw;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The switch process: one UDP socket per port, a duty-cycle loop that receives datagrams and hands
 * them to the {@link AggregationSwitch}, and the fault injection that drops a configured share of
 * the INC packets it receives. The loop parks in {@link Selector#select(long)} while nothing
 * arrives, so an idle switch costs no CPU; it wakes at least every {@value #SWEEP_MILLIS} ms to
 * reclaim groups whose lease ran out and to report packets it refused.
 */
public final class SwitchServer implements AutoCloseable {
    private static final long SWEEP_MILLIS = 1000;

    private final AggregationSwitch logic;
    private final Selector selector;
    private final List<DatagramChannel> channels = new ArrayList<>();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(65536).order(ByteOrder.LITTLE_ENDIAN);
    private final SplittableRandom random;
    private final double loss;
    private long injected;
    private volatile boolean running = true;
    private java.util.function.IntConsumer onGroups = g -> { };
    private int reportedGroups;
    private java.util.function.Consumer<AggregationSwitch.Counters> onRefused = c -> { };
    private long reportedRefused;

    /** Binds the ports; a ToR learns its spines' ids from their first query replies. */
    public SwitchServer(SwitchConfig config) throws IOException {
        this.selector = Selector.open();
        for (InetSocketAddress port : config.ports()) {
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.bind(port);
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ);
            channels.add(ch);
        }
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("a switch needs at least one port");
        }
        this.random = new SplittableRandom(config.seed());
        this.loss = config.loss();
        DatagramChannel first = channels.getFirst();
        this.logic = new AggregationSwitch(config, Map.of(), (packet, to) -> {
            try {
                first.send(packet, to);
            } catch (IOException e) {
                // an unreachable neighbour is a lost packet: the senders' timeouts recover
            }
        });
    }

    /** The bound address of port {@code i} (the real port when 0 was asked for). */
    public InetSocketAddress port(int i) {
        try {
            return (InetSocketAddress) channels.get(i).getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public AggregationSwitch logic() {
        return logic;
    }

    /** Packets dropped by fault injection. */
    public long injectedLosses() {
        return injected;
    }

    /** Called from the loop whenever the number of hosted groups changed (for status output). */
    public void onGroupsChanged(java.util.function.IntConsumer listener) {
        this.onGroups = listener;
    }

    /**
     * Called from the loop, at most once per sweep, when packets were refused since the last call
     * (a control packet without a valid tag, a data packet with a wrong token), for status output.
     */
    public void onRefused(java.util.function.Consumer<AggregationSwitch.Counters> listener) {
        this.onRefused = listener;
    }

    /** Runs until {@link #stop()}. */
    public void run() throws IOException {
        long nextSweep = System.nanoTime() + SWEEP_MILLIS * 1_000_000L;
        while (running) {
            selector.select(SWEEP_MILLIS);
            selector.selectedKeys().clear();
            for (DatagramChannel ch : channels) {
                InetSocketAddress from;
                while ((from = (InetSocketAddress) ch.receive(rx.clear())) != null) {
                    rx.flip();
                    if (loss > 0 && io.tutti.wire.IncPacketDescriptor.marked(rx) && random.nextDouble() < loss) {
                        injected++;
                        continue;
                    }
                    logic.receive(rx, from, System.nanoTime());
                }
            }
            if (logic.groups() != reportedGroups) {
                reportedGroups = logic.groups();
                onGroups.accept(reportedGroups);
            }
            long now = System.nanoTime();
            if (now - nextSweep > 0) {
                logic.sweep(now);
                nextSweep = now + SWEEP_MILLIS * 1_000_000L;
                long refused = logic.counters().refused + logic.counters().wrongToken;
                if (refused != reportedRefused) {
                    reportedRefused = refused;
                    onRefused.accept(logic.counters());
                }
            }
        }
    }

    /** Makes {@link #run()} return; any thread. */
    public void stop() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void close() {
        stop();
        for (DatagramChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
    }
}

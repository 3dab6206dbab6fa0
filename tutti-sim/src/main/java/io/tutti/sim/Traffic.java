package io.tutti.sim;

import java.util.List;

/**
 * Point-to-point traffic straight on a {@link Network}, for the papers' latency and bandwidth
 * tables: each flow's sending rank hands its messages to the network one after another, each after
 * its CPU has spent o_s (o_s + ⌈s/8⌉ words of programmed I/O are the network's business), and the
 * receiving rank's CPU takes each in o_r after it has arrived, in arrival order. All flows start
 * at t0 = 0. The same network model, host bus and rails as the collectives run on.
 */
public final class Traffic {
    private Traffic() {
    }

    /** {@code messages} messages of {@code bytes} bytes from rank {@code src} to rank {@code dst}. */
    public record Flow(int src, int dst, int messages, long bytes) {
        public Flow {
            if (messages < 1 || bytes < 0 || src == dst) {
                throw new IllegalArgumentException("a flow has at least one message, no negative size and two ranks");
            }
        }
    }

    /** Per flow, the time its last message was taken in by the receiving CPU (ns). */
    public static long[] run(Network net, SimParams p, List<Flow> flows) {
        EventLoop engine = new EventLoop(1 << 12);
        net.attach(engine);
        int n = flows.size();
        int ranks = 0;
        for (Flow f : flows) {
            ranks = Math.max(ranks, Math.max(f.src(), f.dst()) + 1);
        }
        // a rank's sending and receiving CPUs are apart (the SMP nodes' other processors), each serial
        long[] sendCpu = new long[ranks];
        long[] recvCpu = new long[ranks];
        long[] done = new long[n];
        int[] received = new int[n];
        int[] sent = new int[n];
        int[] ids = new int[2];
        ids[0] = engine.register((now, payload) -> {
            int f = (int) (payload >>> 32);
            Flow flow = flows.get(f);
            int r = flow.dst();
            long over = net.nicOf(flow.src()) == net.nicOf(r) ? p.shmRecvOverhead() : p.or();
            recvCpu[r] = Math.max(now, recvCpu[r]) + over;
            if (++received[f] == flow.messages()) {
                done[f] = recvCpu[r];
            }
        });
        ids[1] = engine.register((now, payload) -> {
            int f = (int) payload;
            Flow flow = flows.get(f);
            boolean local = net.nicOf(flow.src()) == net.nicOf(flow.dst());
            long t = Math.max(now, sendCpu[flow.src()]) + (local ? p.shmSendOverhead() : p.os());
            sendCpu[flow.src()] = t;
            // handed over when the CPU is done with it; the rank's next send of this flow after that
            net.carry(t, flow.src(), flow.dst(), flow.bytes(), ids[0], ((long) f << 32) | sent[f]);
            if (++sent[f] < flow.messages()) {
                engine.schedule(ids[1], t, f);
            }
        });
        for (int f = 0; f < n; f++) {
            engine.schedule(ids[1], 0, f);
        }
        engine.run(null);
        for (int f = 0; f < n; f++) {
            if (received[f] != flows.get(f).messages()) {
                throw new SimulationException("flow " + f + " received " + received[f] + " of "
                        + flows.get(f).messages() + " messages");
            }
        }
        return done;
    }

    /** Bandwidth of flow f in MB/s (10^6 bytes per second), from its messages and completion. */
    public static double mbPerSecond(Flow f, long doneNs) {
        return (double) f.messages() * f.bytes() * 1e3 / doneNs;
    }
}

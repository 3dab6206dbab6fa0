package io.tutti.p2p;

import java.util.concurrent.locks.LockSupport;

/**
 * A duty-cycle agent that drives an engine while the application computes, so that nonblocking
 * and persistent operations advance without it: the software NIC of a rank. Each duty cycle tries
 * the engine's lock (never waits for it: whoever holds it is making progress already), does what
 * has arrived, polls the collectives in flight, then backs off while idle — spin, yield, then park
 * for growing periods up to {@link #MAX_PARK_NANOS} — so that an idle agent costs little CPU on a
 * machine whose cores the ranks need.
 */
final class ProgressAgent implements Runnable {
    static final int SPINS = 100;
    static final int YIELDS = 50;
    static final long MAX_PARK_NANOS = 50_000;

    private final Engine engine;
    private final Thread thread;
    private volatile boolean running = true;

    ProgressAgent(Engine engine, String name) {
        this.engine = engine;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        int idle = 0;
        while (running) {
            int work = engine.agentDutyCycle();
            if (work > 0) {
                idle = 0;
            } else if (idle < SPINS) {
                Thread.onSpinWait();
                idle++;
            } else if (idle < SPINS + YIELDS) {
                Thread.yield();
                idle++;
            } else {
                LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1_000L << Math.min(16, idle - SPINS - YIELDS)));
                idle++;
            }
        }
    }

    /** Stops the agent and waits for it; called by the engine's owner on close. */
    void stop() {
        running = false;
        if (Thread.currentThread() != thread) {
            LockSupport.unpark(thread);
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

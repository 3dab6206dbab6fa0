package io.tutti.p2p;

import io.tutti.idle.Idle;
import java.util.concurrent.locks.LockSupport;

/**
 * A duty-cycle agent that drives an engine while the application computes, so that nonblocking
 * and persistent operations advance without it: the software NIC of a rank. Each duty cycle tries
 * the engine's lock (never waits for it: whoever holds it is making progress already), does what
 * has arrived, polls the collectives in flight, then backs off while idle ({@link Idle#AGENT}: brief
 * spins and yields, then parks of at most 50 µs) so that an idle agent costs little CPU on a
 * machine whose cores the ranks need.
 */
final class ProgressAgent implements Runnable {
    private final Progress progress;
    private final Thread thread;
    private final Idle idle = new Idle(Idle.AGENT);
    private volatile boolean running = true;

    ProgressAgent(Progress progress, String name) {
        this.progress = progress;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        while (running) {
            if (progress.agentCycle() > 0) {
                idle.reset();
            } else {
                idle.idle();
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

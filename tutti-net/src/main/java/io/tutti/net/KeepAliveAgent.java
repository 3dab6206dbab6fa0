package io.tutti.net;

import java.util.concurrent.locks.LockSupport;

/**
 * A duty-cycle agent that keeps a {@link RailsTransport} alive while its owner computes: every
 * {@code period} it runs {@link RailsTransport#keepAlive()}, which polls the rails (reads, answers,
 * sends heartbeats, judges silence) only when the owner has not polled them for a while. Its idle
 * strategy is a park of one period: the agent costs a wake-up per period and nothing on the
 * owner's path. A daemon thread, one per transport, started by {@link RailsTransport#connect()}
 * and stopped by its {@code close}.
 */
final class KeepAliveAgent implements Runnable {
    /** How long {@link #stop} waits for a duty cycle in progress to end. */
    private static final long STOP_WAIT_MS = 2000;

    private final RailsTransport transport;
    private final long periodNanos;
    private final Thread thread;
    /** Written by the stopping thread, read by the agent each cycle: volatile. */
    private volatile boolean running = true;

    KeepAliveAgent(RailsTransport transport, long periodNanos, String name) {
        this.transport = transport;
        this.periodNanos = Math.max(1_000_000L, periodNanos);
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        while (running) {
            try {
                transport.keepAlive();
            } catch (RuntimeException e) {
                // the owner's next poll meets the same state and reports it; the agent keeps listening
            }
            LockSupport.parkNanos(this, periodNanos);
        }
    }

    /** Ends the agent and waits (bounded) for a cycle in progress; idempotent. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread && thread.isAlive()) {
            try {
                thread.join(STOP_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The agent's thread (tests). */
    Thread thread() {
        return thread;
    }
}

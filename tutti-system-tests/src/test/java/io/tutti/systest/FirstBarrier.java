package io.tutti.systest;

import io.tutti.Tutti;

/** Joins the job, completes one barrier, and rank 0 prints the wall-clock time then (epoch ms). */
public final class FirstBarrier {
    private FirstBarrier() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            tutti.world().barrier();
            if (tutti.world().rank() == 0) {
                System.out.println("barrier-done " + System.currentTimeMillis());
            }
        }
    }
}

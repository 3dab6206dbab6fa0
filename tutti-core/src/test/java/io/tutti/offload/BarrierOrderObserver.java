package io.tutti.offload;

/**
 * Checks a barrier's promise while the harness runs it again and again: no rank completes run k
 * before every rank has started run k.
 */
final class BarrierOrderObserver implements OffloadHarness.Observer {
    private final int[] started;

    BarrierOrderObserver(int ranks) {
        this.started = new int[ranks];
    }

    @Override
    public void started(int rank, int run) {
        started[rank] = run;
    }

    @Override
    public void completed(int rank, int run) {
        for (int r = 0; r < started.length; r++) {
            if (started[r] < run) {
                throw new AssertionError("rank " + rank + " left barrier " + run + " before rank " + r
                        + " entered it");
            }
        }
    }
}

package io.tutti.samples;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.Window;

/**
 * A work queue without a master: one counter in rank 0's window, which every rank increments with
 * {@link Window#fetchAndOp} and reads after {@link Window#flush} to draw the next task number, until
 * all tasks are drawn. The counter is
 * atomic, so each task is done by exactly one rank however the ranks interleave; rank 0 checks that
 * with an allreduce of what each rank did.
 *
 * <p>Run with {@code tutti run -n 4 io.tutti.samples.DistributedCounter [TASKS]}.
 */
public final class DistributedCounter {
    private DistributedCounter() {
    }

    public static void main(String[] args) {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        try (Tutti tutti = Tutti.init(args)) {
            Communicator world = tutti.world();
            long[] done = new long[2]; // tasks done here, and the sum of their numbers
            try (Window counter = world.allocateWindow(world.rank() == 0 ? Long.BYTES : 0, Long.BYTES)) {
                long[] one = {1};
                long[] ticket = new long[1];
                counter.lockAll();
                while (true) {
                    counter.fetchAndOp(one, ticket, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                    // the old value is defined once the flush returns (from another host it comes later)
                    counter.flush(0);
                    if (ticket[0] >= tasks) {
                        break;
                    }
                    done[0]++;
                    done[1] += ticket[0]; // "doing" task number ticket[0]
                }
                counter.unlockAll();
            }
            long[] total = new long[2];
            world.allreduce(done, total, 2, Datatype.LONG, ReduceOp.SUM);
            System.out.printf("counter: rank %d did %d of %d tasks%n", world.rank(), done[0], tasks);
            if (world.rank() == 0) {
                long expected = (long) tasks * (tasks - 1) / 2;
                boolean ok = total[0] == tasks && total[1] == expected;
                System.out.printf("counter: %d tasks done in all, each once: %s%n", total[0], ok ? "yes" : "NO");
                if (!ok) {
                    throw new IllegalStateException("tasks were lost or done twice: " + total[0] + " done, number sum "
                            + total[1] + " instead of " + expected);
                }
            }
        }
    }
}

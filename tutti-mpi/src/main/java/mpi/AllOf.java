package mpi;

import io.tutti.Request;
import io.tutti.Status;

/**
 * Several of Tutti's requests as one, complete when all are: a nonblocking neighbourhood
 * collective, which is point-to-point messages to and from each neighbour.
 */
final class AllOf implements Request {
    private final Request[] parts;
    private final Status status = new Status();

    AllOf(Request[] parts) {
        this.parts = parts;
    }

    @Override
    public Status waitFor() {
        waitFor(null);
        return status;
    }

    @Override
    public void waitFor(Status into) {
        Request.waitAll(parts);
    }

    @Override
    public boolean test() {
        boolean all = true;
        for (Request r : parts) {
            if (r != null && !r.isDone() && !r.test()) {
                all = false;
            }
        }
        return all;
    }

    @Override
    public boolean isActive() {
        for (Request r : parts) {
            if (r != null && r.isActive()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isDone() {
        for (Request r : parts) {
            if (r != null && !r.isDone()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Status status() {
        return status;
    }
}

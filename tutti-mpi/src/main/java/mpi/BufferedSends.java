package mpi;

import io.tutti.Communicator;
import io.tutti.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The buffer of buffered-mode sends ({@link Comm#bSend}): the array the program attached, used as a
 * ring. Each send copies its message into the next free bytes (taking {@link MPI#BSEND_OVERHEAD}
 * more, as MPI counts) and starts Tutti's nonblocking send from there; the bytes are free again once
 * that send has completed, which every later buffered send and {@link #detach} check, oldest first.
 */
final class BufferedSends {
    private record InFlight(int start, int end, Request request) {
    }

    private final byte[] buffer;
    private final MemorySegment memory;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    BufferedSends(byte[] buffer) {
        this.buffer = buffer;
        this.memory = MemorySegment.ofArray(buffer);
    }

    byte[] buffer() {
        return buffer;
    }

    /** Copies the region's message into the buffer and starts sending it. */
    void send(Communicator c, Region r, int dest, int tag) throws MPIException {
        int n = (int) r.byteCount();
        int start = reserve(n + MPI.BSEND_OVERHEAD, n);
        r.copyOut(memory, start);
        Request request = c.isend(buffer, start, n, dest, tag);
        inFlight.addLast(new InFlight(start, start + n + MPI.BSEND_OVERHEAD, request));
    }

    /** Where {@code span} bytes are free, after releasing the sends that have completed. */
    private int reserve(int span, int n) throws MPIException {
        while (!inFlight.isEmpty() && inFlight.peekFirst().request().test()) {
            inFlight.removeFirst();
        }
        if (inFlight.isEmpty()) {
            if (span <= buffer.length) {
                return 0;
            }
        } else {
            int head = inFlight.peekFirst().start();
            int tail = inFlight.peekLast().end();
            if (tail > head) {                      // in use: [head, tail)
                if (buffer.length - tail >= span) {
                    return tail;
                }
                if (head >= span) {
                    return 0;
                }
            } else if (head - tail >= span) {       // in use: [head, end) and [0, tail)
                return tail;
            }
        }
        throw Errors.error(MPI.ERR_BUFFER, "bSend: a message of " + n + " bytes needs " + span + " bytes (with"
                + " MPI.BSEND_OVERHEAD) of the attached buffer of " + buffer.length + " bytes, and " + inFlight.size()
                + " buffered sends still hold the rest: attach a larger buffer with MPI.attachBuffer");
    }

    /** Waits for every buffered send in flight; the buffer is then the program's again. */
    void detach() {
        while (!inFlight.isEmpty()) {
            inFlight.removeFirst().request().waitFor();
        }
    }
}

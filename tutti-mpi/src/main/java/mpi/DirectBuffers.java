package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

/**
 * The memory of direct buffers as segments, from the buffer's first element to its capacity
 * whatever its position and limit (the bindings ignore both), with the slice of the bytes a call
 * moves. The last few buffers and their last slice are kept, so that a loop over the same buffers
 * makes no segment per message; they stay reachable until they drop out.
 */
final class DirectBuffers {
    private static final int ENTRIES = 4;

    private final Buffer[] buffers = new Buffer[ENTRIES];
    private final MemorySegment[] wholes = new MemorySegment[ENTRIES];
    private final MemorySegment[] slices = new MemorySegment[ENTRIES];
    private int next;
    /** The whole segment of the buffer last looked up by {@link #slice}. */
    MemorySegment whole;

    /**
     * The first {@code bytes} bytes of {@code buffer}'s memory; {@link #whole} is then all of it.
     * Fails with {@link MPI#ERR_BUFFER} if the buffer is shorter.
     */
    MemorySegment slice(Buffer buffer, long bytes, String call) throws MPIException {
        int i = indexOf(buffer);
        MemorySegment all = wholes[i];
        whole = all;
        if (bytes > all.byteSize()) {
            throw Errors.error(MPI.ERR_BUFFER, call + ": " + bytes + " bytes do not fit the direct buffer of "
                    + all.byteSize() + " bytes (" + buffer.capacity() + " elements)");
        }
        MemorySegment s = slices[i];
        if (s == null || s.byteSize() != bytes) {
            s = bytes == all.byteSize() ? all : all.asSlice(0, bytes);
            slices[i] = s;
        }
        return s;
    }

    private int indexOf(Buffer buffer) {
        for (int i = 0; i < ENTRIES; i++) {
            if (buffers[i] == buffer) {
                return i;
            }
        }
        int i = next;
        next = (next + 1) % ENTRIES;
        buffers[i] = buffer;
        // from element 0 to the capacity; the program's buffer keeps its position and limit
        wholes[i] = MemorySegment.ofBuffer(buffer.duplicate().clear());
        slices[i] = null;
        return i;
    }
}

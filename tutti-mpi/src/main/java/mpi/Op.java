package mpi;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reduction operation: the predefined ones are the constants of {@link MPI} ({@link MPI#SUM},
 * {@link MPI#MAXLOC}, ...), each standing for one of Tutti's {@link ReduceOp}s; {@link MPI#REPLACE}
 * and {@link MPI#NO_OP} are for one-sided accumulates, which have none. A user operation
 * ({@link #Op(UserFunction, boolean)}) runs as one of Tutti's {@link UserOp}s, on the host.
 */
public final class Op implements Freeable {
    private final String name;
    /** Tutti's operation, or null for REPLACE, NO_OP and user operations. */
    final ReduceOp tutti;
    private final UserFunction function;
    private final boolean commute;
    /** The user operation as Tutti runs it, for the type of the call in progress; null for predefined ones. */
    final User user;
    private boolean freed;

    Op(String name, ReduceOp tutti) {
        this.name = name;
        this.tutti = tutti;
        this.function = null;
        this.commute = true;
        this.user = null;
    }

    /**
     * A user operation (MPI_OP_CREATE): {@code function} combines items; {@code commute} says whether
     * the order of the operands may change (if not, Tutti keeps them in rank order).
     */
    public Op(UserFunction function, boolean commute) {
        this.name = "a user operation";
        this.tutti = null;
        this.function = function;
        this.commute = commute;
        this.user = new User();
    }

    /** Whether the operation is commutative (MPI_OP_COMMUTATIVE): true for every predefined operation. */
    public boolean isCommutative() {
        return commute;
    }

    /**
     * Frees a user operation (MPI_OP_FREE): null afterwards. The predefined operations cannot be freed:
     * MPI refuses, and so does this, with {@link MPI#ERR_OP}.
     */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (user == null) {
            throw Errors.error(MPI.ERR_OP, "Op.free: " + name + " is a predefined operation and cannot be freed");
        }
        freed = true;
    }

    /** Whether this is a freed operation: never, for the predefined ones. */
    public boolean isNull() {
        return freed;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * The user function as Tutti's operation: hands it the operands as byte buffers in native order,
     * counted in items of the call's type (set by the call, as in the bindings); operands in memory a
     * byte buffer cannot view (an {@code int[]} say) are copied through byte arrays.
     */
    final class User implements UserOp {
        /** The type of the reduction in progress. */
        Datatype type;

        @Override
        public void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count,
                          io.tutti.Datatype t) {
            long bytes = count * t.extent();
            int items = (int) (count / Math.max(1, type.collPer));
            MemorySegment a = in.asSlice(inOffset, bytes);
            MemorySegment b = inout.asSlice(inoutOffset, bytes);
            try {
                if (type.base.kind == Datatype.BOOLEAN) {
                    booleans(a, b, items);
                    return;
                }
                ByteBuffer x = view(a);
                ByteBuffer y = view(b);
                function.call(x, y, items, type);
                if (y.isReadOnly() || !b.isNative() && !(b.heapBase().orElse(null) instanceof byte[])) {
                    MemorySegment.copy(MemorySegment.ofBuffer(y.clear()), 0, b, 0, bytes);
                }
            } catch (MPIException e) {
                throw new IllegalStateException("the user operation failed: " + e.getMessage(), e);
            }
        }

        private void booleans(MemorySegment a, MemorySegment b, int items) throws MPIException {
            int n = (int) a.byteSize();
            boolean[] x = new boolean[n];
            boolean[] y = new boolean[n];
            for (int i = 0; i < n; i++) {
                x[i] = a.get(ValueLayout.JAVA_BYTE, i) != 0;
                y[i] = b.get(ValueLayout.JAVA_BYTE, i) != 0;
            }
            function.call(x, y, items, type);
            for (int i = 0; i < n; i++) {
                b.set(ValueLayout.JAVA_BYTE, i, y[i] ? (byte) 1 : (byte) 0);
            }
        }

        private static ByteBuffer view(MemorySegment s) {
            if (s.isNative() || s.heapBase().orElse(null) instanceof byte[]) {
                return s.asByteBuffer().order(ByteOrder.nativeOrder());
            }
            byte[] copy = s.toArray(ValueLayout.JAVA_BYTE);
            return ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder());
        }

        @Override
        public boolean commutative() {
            return commute;
        }

        /** One item of the call's type: the collectives hand the function whole items only. */
        @Override
        public int elementsPerItem() {
            return Math.max(1, type.collPer);
        }
    }
}

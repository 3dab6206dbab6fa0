package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The function of a user operation ({@link Op#Op(UserFunction, boolean)}): override one of the two
 * {@code call}s to combine {@code count} items, {@code inOut[i] = in[i] op inOut[i]}. The buffer
 * form gets the items as bytes in native order (use {@code asIntBuffer()} and so on); by default
 * it copies them into arrays of the type's element type and calls the array form, as the bindings
 * do. Booleans come as {@code boolean[]} arrays to the array form.
 */
public abstract class UserFunction {
    /** Combines {@code count} items of {@code datatype} held in arrays of its element type. */
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype) throws MPIException {
        throw new UnsupportedOperationException("Not supported yet: override call(Object, Object, int, Datatype)"
                + " or call(ByteBuffer, ByteBuffer, int, Datatype)");
    }

    /** Combines {@code count} items of {@code datatype} as bytes in native order. */
    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) throws MPIException {
        int n = (int) Math.min(in.remaining(), inOut.remaining());
        ByteBuffer a = in.duplicate().order(ByteOrder.nativeOrder());
        ByteBuffer b = inOut.duplicate().order(ByteOrder.nativeOrder());
        switch (datatype.base.kind) {
            case Datatype.CHAR -> {
                char[] x = new char[n / 2];
                char[] y = new char[n / 2];
                a.asCharBuffer().get(x);
                b.asCharBuffer().get(y);
                call(x, y, count, datatype);
                b.asCharBuffer().put(y);
            }
            case Datatype.SHORT -> {
                short[] x = new short[n / 2];
                short[] y = new short[n / 2];
                a.asShortBuffer().get(x);
                b.asShortBuffer().get(y);
                call(x, y, count, datatype);
                b.asShortBuffer().put(y);
            }
            case Datatype.INT -> {
                int[] x = new int[n / 4];
                int[] y = new int[n / 4];
                a.asIntBuffer().get(x);
                b.asIntBuffer().get(y);
                call(x, y, count, datatype);
                b.asIntBuffer().put(y);
            }
            case Datatype.LONG -> {
                long[] x = new long[n / 8];
                long[] y = new long[n / 8];
                a.asLongBuffer().get(x);
                b.asLongBuffer().get(y);
                call(x, y, count, datatype);
                b.asLongBuffer().put(y);
            }
            case Datatype.FLOAT, Datatype.FLOAT_COMPLEX -> {
                float[] x = new float[n / 4];
                float[] y = new float[n / 4];
                a.asFloatBuffer().get(x);
                b.asFloatBuffer().get(y);
                call(x, y, count, datatype);
                b.asFloatBuffer().put(y);
            }
            case Datatype.DOUBLE, Datatype.DOUBLE_COMPLEX -> {
                double[] x = new double[n / 8];
                double[] y = new double[n / 8];
                a.asDoubleBuffer().get(x);
                b.asDoubleBuffer().get(y);
                call(x, y, count, datatype);
                b.asDoubleBuffer().put(y);
            }
            default -> {
                byte[] x = new byte[n];
                byte[] y = new byte[n];
                a.get(x);
                b.get(y);
                call(x, y, count, datatype);
                b.clear();
                b.put(y);
            }
        }
    }
}

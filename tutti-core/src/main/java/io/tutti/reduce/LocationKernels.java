package io.tutti.reduce;

/**
 * The location kernels, MAXLOC and MINLOC on (value, index) pairs: {@code n} counts elements, so the
 * pairs are (d[i], d[i + 1]) for even i. The source pair wins when its value is strictly better, or
 * equal with a smaller index (MPI's tie rule). Floating-point values are ranked by a total order (see
 * {@link io.tutti.ReduceOp#MAXLOC} and {@link io.tutti.ReduceOp#MINLOC}): with plain {@code <} and {@code ==}, a NaN
 * would compare neither way and the result would depend on the operand order.
 */
final class LocationKernels {
    private LocationKernels() {
    }

    static void maxloc(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            short a = s[i];
            short b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void minloc(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            short a = s[i];
            short b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void maxloc(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int a = s[i];
            int b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void minloc(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int a = s[i];
            int b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void maxloc(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            long a = s[i];
            long b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void minloc(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            long a = s[i];
            long b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void maxloc(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = Float.compare(s[i], d[i]);
            if (c > 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void minloc(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = compareNanFirst(s[i], d[i]);
            if (c < 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void maxloc(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = Double.compare(s[i], d[i]);
            if (c > 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    static void minloc(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = compareNanFirst(s[i], d[i]);
            if (c < 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    /**
     * {@link Double#compare} with NaN moved below every number, so that MINLOC lets NaN win as
     * {@link Math#min} does; two NaNs stay equal. Exact for floats too, which widen losslessly.
     */
    private static int compareNanFirst(double a, double b) {
        return a != a || b != b ? Double.compare(b, a) : Double.compare(a, b);
    }
}

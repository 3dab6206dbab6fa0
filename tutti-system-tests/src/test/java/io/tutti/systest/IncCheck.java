package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Metrics;
import io.tutti.Tutti;
import io.tutti.ReduceOp;

/**
 * Rank program of the in-network aggregation tests: allreduce of every operation the switches
 * reduce, on INT, LONG, FLOAT and DOUBLE, 4 B to 4 KiB, each checked against the value every rank
 * can compute; then a MAXLOC (which the switches do not reduce). Prints one line per rank, and one
 * of its counters: allreduce calls by the {@code inc} algorithm and by the host's, and the in-network
 * counters ({@code name=value}).
 */
public final class IncCheck {
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.BAND,
        ReduceOp.BOR, ReduceOp.BXOR, ReduceOp.LAND, ReduceOp.LOR, ReduceOp.LXOR};
    private static final Datatype[] TYPES = {Datatype.INT, Datatype.LONG, Datatype.FLOAT, Datatype.DOUBLE};
    private static final int[] SIZES = {4, 8, 64, 256, 260, 1024, 4096};

    private IncCheck() {
    }

    static long value(int rank, int i, ReduceOp op) {
        return switch (op) {
            case PROD -> (rank + i) % 3 == 0 ? 2 : 1;
            case LAND, LOR, LXOR -> (rank * 7 + i) % 3 == 0 ? 0 : 1;
            default -> (rank + 1) * 31L + i * 7L - 40;
        };
    }

    static long combine(ReduceOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            case LAND -> (a != 0 && b != 0) ? 1 : 0;
            case LOR -> (a != 0 || b != 0) ? 1 : 0;
            default -> ((a != 0) ^ (b != 0)) ? 1 : 0;
        };
    }

    public static void main(String[] args) {
        try (Tutti t = Tutti.init(args)) {
            Communicator w = t.world();
            int checks = 0;
            for (ReduceOp op : OPS) {
                for (Datatype type : TYPES) {
                    if (!op.supports(type)) {
                        continue;
                    }
                    for (int bytes : SIZES) {
                        check(w, op, type, bytes / type.size());
                        checks++;
                    }
                }
            }
            int[] pair = {w.rank(), w.rank()};
            int[] max = new int[2];
            w.allreduce(pair, max, 1, Datatype.INT2, ReduceOp.MAXLOC);
            if (max[0] != w.size() - 1 || max[1] != w.size() - 1) {
                throw new AssertionError("MAXLOC gave " + max[0] + "," + max[1]);
            }
            System.out.println("rank " + w.rank() + ": inc allreduce ok (" + checks + " checks)");
            Metrics.Collective all = t.metrics().collective("allreduce");
            StringBuilder counters = new StringBuilder("rank " + w.rank() + ": counters allreduce-inc="
                    + all.calls("inc") + " allreduce-host=" + (all.calls() - all.calls("inc")));
            t.metrics().inNetwork().forEach((name, v) -> counters.append(' ').append(name).append('=').append(v));
            System.out.println(counters);
        }
    }

    private static void check(Communicator w, ReduceOp op, Datatype type, int count) {
        int n = w.size();
        double[] got = new double[count];
        switch (type) {
            case INT -> {
                int[] a = new int[count];
                int[] out = new int[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (int) value(w.rank(), i, op);
                }
                w.allreduce(a, out, count, type, op);
                for (int i = 0; i < count; i++) {
                    got[i] = out[i];
                }
            }
            case LONG -> {
                long[] a = new long[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(w.rank(), i, op);
                }
                w.allreduce(Communicator.IN_PLACE, a, count, type, op);
                for (int i = 0; i < count; i++) {
                    got[i] = a[i];
                }
            }
            case FLOAT -> {
                float[] a = new float[count];
                float[] out = new float[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(w.rank(), i, op);
                }
                w.allreduce(a, out, count, type, op);
                for (int i = 0; i < count; i++) {
                    got[i] = out[i];
                }
            }
            default -> {
                double[] a = new double[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(w.rank(), i, op);
                }
                w.allreduce(a, got, count, type, op);
            }
        }
        for (int i = 0; i < count; i++) {
            long e = value(0, i, op);
            for (int r = 1; r < n; r++) {
                e = combine(op, e, value(r, i, op));
            }
            double expected = type == Datatype.INT ? (int) e : type == Datatype.FLOAT ? (float) e : e;
            if (got[i] != expected) {
                throw new AssertionError(op + " on " + count + " " + type + ": element " + i + " is " + got[i]
                        + ", expected " + expected);
            }
        }
    }
}

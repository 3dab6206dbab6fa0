package io.tutti.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Fits one model parameter (or several set to one value) so that a simulated figure matches a
 * published one, by bisection over whole nanoseconds. The figure must not decrease as the
 * parameter grows (a per-message cost does not make anything faster), which the bisection relies
 * on. The experiments use it on their calibration column only.
 */
public final class Fit {
    private Fit() {
    }

    /** The fitted value and how close it came. */
    public record Result(List<String> names, long value, double simulated, double target) {
        /** {@code name = value} lines for a calibration file. */
        public String describe() {
            return String.join(", ", names) + " = " + value + " (simulated " + String.format(java.util.Locale.ROOT,
                    "%.3f", simulated) + " against " + String.format(java.util.Locale.ROOT, "%.3f", target) + ")";
        }
    }

    /**
     * The value in {@code [lo, hi]} of the parameters {@code names} (all set to it) whose figure
     * {@code figure(params)} is closest to {@code target}.
     */
    public static Result fit(SimParams base, List<String> names, long lo, long hi, double target,
                             ToDoubleFunction<SimParams> figure) {
        if (lo < 0 || hi < lo) {
            throw new IllegalArgumentException("fit range [" + lo + ", " + hi + "] is empty or negative");
        }
        long a = lo;
        long b = hi;
        while (b - a > 1) {
            long mid = (a + b) >>> 1;
            if (figure.applyAsDouble(with(base, names, mid)) < target) {
                a = mid;
            } else {
                b = mid;
            }
        }
        double fa = figure.applyAsDouble(with(base, names, a));
        double fb = figure.applyAsDouble(with(base, names, b));
        boolean takeA = Math.abs(fa - target) <= Math.abs(fb - target);
        return new Result(names, takeA ? a : b, takeA ? fa : fb, target);
    }

    /** {@code base} with every parameter of {@code names} set to {@code value}. */
    public static SimParams with(SimParams base, List<String> names, long value) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String n : names) {
            m.put(n, Long.toString(value));
        }
        return base.with(m);
    }
}

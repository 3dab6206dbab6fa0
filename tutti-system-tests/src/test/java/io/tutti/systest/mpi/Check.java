package io.tutti.systest.mpi;

import java.util.Arrays;
import mpi.MPIException;

/** The checks of the mpi programs: a failed one throws, so the rank, and with it the job, exits non-zero. */
final class Check {
    private Check() {
    }

    /** A call of the mpi API, expected to fail. */
    interface Call {
        void run() throws MPIException;
    }

    static void that(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void equal(long expected, long actual, String what) {
        if (expected != actual) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static void equal(Object expected, Object actual, String what) {
        if (!java.util.Objects.deepEquals(expected, actual)) {
            throw new AssertionError(what + ": expected " + deep(expected) + ", got " + deep(actual));
        }
    }

    private static String deep(Object o) {
        return o instanceof Object[] a ? Arrays.deepToString(a) : Arrays.deepToString(new Object[] {o});
    }

    /** Runs {@code call}, which must fail with an MPIException of {@code errorClass}; returns it. */
    static MPIException fails(int errorClass, String what, Call call) {
        try {
            call.run();
        } catch (MPIException e) {
            if (e.getErrorClass() != errorClass) {
                throw new AssertionError(what + ": expected error class " + errorClass + ", got "
                        + e.getErrorClass() + " (" + e.getMessage() + ")", e);
            }
            return e;
        }
        throw new AssertionError(what + ": expected an MPIException of class " + errorClass + ", none was thrown");
    }
}

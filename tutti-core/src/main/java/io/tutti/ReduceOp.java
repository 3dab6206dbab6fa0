package io.tutti;

import java.util.Objects;

/**
 * The predefined reduction operations, with MPI's meaning (MPI 4.1, section 6.9.2). Each combines
 * two operands element by element; {@code io.tutti.reduce.Reduction} runs them.
 *
 * <ul>
 *   <li><b>Arithmetic</b> ({@link #SUM}, {@link #PROD}, {@link #MAX}, {@link #MIN}) on BYTE, SHORT,
 *       CHAR, INT, LONG, FLOAT, DOUBLE. Integer arithmetic wraps like Java's; BYTE and SHORT are
 *       signed, CHAR is unsigned 16-bit (so {@code MAX(0xFFFF, 1)} is {@code 0xFFFF}). Floating-point
 *       MAX and MIN follow {@link Math#max(double, double)} and {@link Math#min(double, double)}:
 *       a NaN operand gives NaN, and {@code 0.0} is larger than {@code -0.0}.</li>
 *   <li><b>Logical</b> ({@link #LAND}, {@link #LOR}, {@link #LXOR}) on the integer types: non-zero is
 *       true; the result is 1 or 0 of the element type.</li>
 *   <li><b>Bitwise</b> ({@link #BAND}, {@link #BOR}, {@link #BXOR}) on the integer types.</li>
 *   <li><b>Location</b> ({@link #MAXLOC}, {@link #MINLOC}) on the pair types only, see {@link #MAXLOC}.</li>
 * </ul>
 */
public enum ReduceOp {
    /** Sum. */
    SUM,
    /** Product. */
    PROD,
    /** Maximum. */
    MAX,
    /** Minimum. */
    MIN,
    /**
     * Maximum value and its index, on (value, index) pairs: the pair with the larger value; on equal
     * values, that value with the smaller index (MPI's rule, which makes the operation commutative).
     * Floating-point values are ordered as by {@link Double#compare}, consistently with {@link #MAX}:
     * NaN is larger than every number and {@code 0.0} than {@code -0.0}; two NaNs count as equal.
     */
    MAXLOC,
    /**
     * Minimum value and its index, on (value, index) pairs: the pair with the smaller value; on equal
     * values, that value with the smaller index. Floating-point values are ordered consistently with
     * {@link #MIN}: NaN is smaller than every number, {@code -0.0} smaller than {@code 0.0}, and two
     * NaNs count as equal.
     */
    MINLOC,
    /** Logical and: 1 if both operands are non-zero, else 0. */
    LAND,
    /** Logical or: 1 if either operand is non-zero, else 0. */
    LOR,
    /** Logical exclusive or: 1 if exactly one operand is non-zero, else 0. */
    LXOR,
    /** Bitwise and. */
    BAND,
    /** Bitwise or. */
    BOR,
    /** Bitwise exclusive or. */
    BXOR;

    /**
     * Whether {@code a ∘ b == b ∘ a}. True for every predefined operation, which lets schedules
     * combine partial results in whatever order they arrive. Floating-point SUM and PROD are
     * commutative but not associative, so their result may still depend on the algorithm's grouping.
     */
    public boolean commutative() {
        return true;
    }

    /** Whether this operation is defined on {@code type}; see the class description for the table. */
    public boolean supports(Datatype type) {
        Objects.requireNonNull(type, "type");
        return switch (this) {
            case SUM, PROD, MAX, MIN -> !type.isPair();
            case MAXLOC, MINLOC -> type.isPair();
            case LAND, LOR, LXOR, BAND, BOR, BXOR -> isInteger(type);
        };
    }

    /**
     * Throws unless this operation {@linkplain #supports supports} {@code type}. Meant for the entry
     * points of the collectives, so that a wrong combination fails before anything is sent.
     *
     * @throws TuttiException.InvalidArgument naming the operation, the type and what to use instead
     */
    public void check(Datatype type) {
        if (!supports(type)) {
            throw new TuttiException.InvalidArgument(unsupportedMessage(type));
        }
    }

    private static boolean isInteger(Datatype type) {
        return switch (type) {
            case BYTE, SHORT, CHAR, INT, LONG -> true;
            default -> false;
        };
    }

    /** Says what the user most likely meant, since "not supported" alone sends them to the spec. */
    private String unsupportedMessage(Datatype type) {
        String base = type.base().name();
        return switch (this) {
            case MAXLOC, MINLOC -> this + " is defined for pair types only (SHORT2, INT2, LONG2, FLOAT2, DOUBLE2), not "
                    + type + "; put (value, index) pairs in the buffer and use " + pairOf(type);
            case SUM, PROD, MAX, MIN -> this + " is not defined for the pair type " + type
                    + " (pairs are for MAXLOC and MINLOC); use " + base + " with twice the count to reduce both halves"
                    + " element-wise";
            default -> {
                String kind = switch (this) {
                    case LAND, LOR, LXOR -> "logical";
                    default -> "bitwise";
                };
                String head = this + " is defined for integer types only (BYTE, SHORT, CHAR, INT, LONG), not " + type;
                if (type.isPair()) {
                    yield head + "; pairs are for MAXLOC and MINLOC: use " + base + " with twice the count for a "
                            + kind + " reduction of both halves";
                }
                if (kind.equals("logical")) {
                    yield head + "; reduce the truth values as BYTE or INT instead (1 for true, 0 for false)";
                }
                yield head + "; use " + (type == Datatype.FLOAT ? "INT on Float.floatToRawIntBits"
                        : "LONG on Double.doubleToRawLongBits") + " to combine the bits of floating-point values";
            }
        };
    }

    private static String pairOf(Datatype type) {
        return switch (type) {
            case SHORT -> "SHORT2";
            case INT -> "INT2";
            case LONG -> "LONG2";
            case FLOAT -> "FLOAT2";
            case DOUBLE -> "DOUBLE2";
            default -> "INT2 (or SHORT2)"; // BYTE and CHAR have no pair type: widen the values
        };
    }
}

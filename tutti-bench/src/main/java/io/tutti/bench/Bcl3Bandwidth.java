package io.tutti.bench;

/**
 * The collective benchmark suite of [BCL-3] (§5.3 "均衡通信性能", balanced communication
 * performance): for each operation the bandwidth
 * figure it reports and the theoretical value it compares that figure with.
 *
 * <p>Notation as in [BCL-3]: {@code MsgLen} the message length (here: the benchmark's size, bytes
 * per rank), {@code N} the repetitions, {@code T_Total} the total run time (so {@code T_Total / N}
 * is the time of one operation, {@code t} below), {@code P} the number of processes,
 * {@code B_Node} a node's point-to-point bandwidth, {@code T_l = MsgLen / B_Node}.
 *
 * <table>
 * <caption>Formulas</caption>
 * <tr><th>op</th><th>figure</th><th>theoretical value</th><th>[BCL-3]</th></tr>
 * <tr><td>barrier</td><td>L = T_Total / N</td><td>(none)</td><td>eq. 5.5, table 5.10</td></tr>
 * <tr><td>bcast</td><td>MsgLen·N·(P−1) / T_Total</td><td>(P−1)·B_Node / ⌈log2 P⌉</td>
 *     <td>eq. 5.6, 5.7, table 5.11, fig. 5.16</td></tr>
 * <tr><td>reduce</td><td>MsgLen·N·(P−1) / T_Total</td><td>(P−1)·B_Node / ⌈log2 P⌉</td>
 *     <td>eq. 5.8, 5.9, table 5.12, fig. 5.18</td></tr>
 * <tr><td>scatter</td><td>MsgLen·N·(P−1) / T_Total</td><td>B_Node (the root's link)</td>
 *     <td>eq. 5.10, table 5.13</td></tr>
 * <tr><td>gather</td><td>MsgLen·N·(P−1) / T_Total</td><td>B_Node (the root's link)</td>
 *     <td>eq. 5.11, table 5.14</td></tr>
 * <tr><td>shift</td><td>MsgLen·N·P / T_Total</td><td>P·B_Node / 2</td>
 *     <td>eq. 5.12, 5.13, table 5.15, fig. 5.19</td></tr>
 * <tr><td>alltoall</td><td>MsgLen·N·(P−1)·P / T_Total</td><td>P·B_Node / 2</td>
 *     <td>eq. 5.14, 5.15, table 5.16, fig. 5.20</td></tr>
 * </table>
 *
 * <p>[BCL-3] has no allreduce, allgather or reduce-scatter benchmark. For those the same method
 * is applied here (count the bytes delivered; bound = the busiest node's messages × T_l), marked
 * "by analogy" in the output: allreduce as a reduce followed by a bcast, MsgLen·N·(P−1) / T_Total
 * against (P−1)·B_Node / (2⌈log2 P⌉); allgather and reducescatter, where every rank receives P−1
 * blocks and sends P−1 (2(P−1) messages per node, as in alltoall), MsgLen·N·(P−1)·P / T_Total
 * against P·B_Node / 2.
 *
 * <p>Bandwidths are in bytes per second; [BCL-3] prints MB/s (tables 5.11–5.16).
 */
public final class Bcl3Bandwidth {
    private Bcl3Bandwidth() {
    }

    /** ⌈log2 p⌉ for p ≥ 1: the rounds of a binomial ([BCL-3]'s "binary") tree over p processes. */
    static int ceilLog2(int p) {
        if (p < 1) {
            throw new IllegalArgumentException("process count must be positive: " + p);
        }
        return 32 - Integer.numberOfLeadingZeros(p - 1);
    }

    /** Whether [BCL-3] (or its method, by analogy) gives a bandwidth figure for {@code op}. */
    static boolean hasBandwidth(String op) {
        return !op.equals("barrier");
    }

    /** Whether the formulas for {@code op} are [BCL-3]'s own (false: the same method by analogy). */
    static boolean inBcl3(String op) {
        return switch (op) {
            case "barrier", "bcast", "reduce", "scatter", "gather", "shift", "alltoall" -> true;
            default -> false;
        };
    }

    /**
     * How many messages of {@code MsgLen} one operation delivers, the multiplier of MsgLen·N in the
     * figure: P−1 (bcast 5.6, reduce 5.8, scatter 5.10, gather 5.11, allreduce by analogy), P (shift
     * 5.12), (P−1)·P (alltoall 5.14, allgather and reducescatter by analogy).
     */
    static long messagesPerOperation(String op, int p) {
        return switch (op) {
            case "bcast", "reduce", "scatter", "gather", "allreduce" -> p - 1L;
            case "shift" -> p;
            case "alltoall", "allgather", "reducescatter" -> (p - 1L) * p;
            default -> throw new IllegalArgumentException("no bandwidth figure for " + op);
        };
    }

    /**
     * [BCL-3]'s bandwidth figure in bytes/s: MsgLen·N·k / T_Total = MsgLen·k / t, with
     * t = T_Total / N the seconds one operation takes and k from {@link #messagesPerOperation}.
     */
    static double bandwidth(String op, long msgLen, int p, double secondsPerOperation) {
        return (double) msgLen * messagesPerOperation(op, p) / secondsPerOperation;
    }

    /**
     * The theoretical bandwidth in bytes/s for a node bandwidth {@code bNode} (bytes/s), one process
     * per node; NaN for one process (nothing is communicated).
     */
    static double bound(String op, int p, double bNode) {
        if (p < 2) {
            return Double.NaN;
        }
        return switch (op) {
            // eq. 5.7 and 5.9: the root (busiest node) sends ⌈log2 P⌉ messages, each taking T_l.
            case "bcast", "reduce" -> (p - 1) * bNode / ceilLog2(p);
            // by analogy: a reduce then a bcast, 2⌈log2 P⌉ message times.
            case "allreduce" -> (p - 1) * bNode / (2.0 * ceilLog2(p));
            // text after tables 5.13 and 5.14: limited by the root's own link.
            case "scatter", "gather" -> bNode;
            // eq. 5.13: two messages (one out, one in) per node and operation.
            case "shift" -> p * bNode / 2;
            // eq. 5.15: 2(P−1) messages per node; allgather and reducescatter by analogy.
            case "alltoall", "allgather", "reducescatter" -> p * bNode / 2;
            default -> throw new IllegalArgumentException("no bandwidth bound for " + op);
        };
    }

    /** The formulas for {@code op}, with their reference in [BCL-3], for the output header. */
    static String describe(String op) {
        return switch (op) {
            case "barrier" -> "L_Barrier = T_Total / N ([BCL-3] eq. 5.5, table 5.10)";
            case "bcast" -> "B_Bcast = MsgLen*N*(P-1)/T_Total (eq. 5.6, table 5.11); bound B0 = (P-1)*B_Node/ceil(log2 P)"
                    + " (eq. 5.7, fig. 5.16)";
            case "reduce" -> "B_Reduce = MsgLen*N*(P-1)/T_Total (eq. 5.8, table 5.12); bound B0 = (P-1)*B_Node/ceil(log2 P)"
                    + " (eq. 5.9, fig. 5.18)";
            case "scatter" -> "B_Scatter = MsgLen*N*(P-1)/T_Total (eq. 5.10, table 5.13); bound B_Node, the root's link"
                    + " (text after table 5.13)";
            case "gather" -> "B_Gather = MsgLen*N*(P-1)/T_Total (eq. 5.11, table 5.14); bound B_Node, the root's link"
                    + " (text after table 5.14)";
            case "shift" -> "B_Shift = MsgLen*N*P/T_Total (eq. 5.12, table 5.15); bound B0 = P*B_Node/2 (eq. 5.13,"
                    + " fig. 5.19)";
            case "alltoall" -> "B_All2all = MsgLen*N*(P-1)*P/T_Total (eq. 5.14, table 5.16); bound B0 = P*B_Node/2"
                    + " (eq. 5.15, fig. 5.20)";
            case "allreduce" -> "not in [BCL-3]; by analogy with eq. 5.8/5.9 (reduce then bcast):"
                    + " B = MsgLen*N*(P-1)/T_Total, bound (P-1)*B_Node/(2*ceil(log2 P))";
            case "allgather", "reducescatter" -> "not in [BCL-3]; by analogy with eq. 5.14/5.15 (2(P-1) messages"
                    + " per node): B = MsgLen*N*(P-1)*P/T_Total, bound P*B_Node/2";
            default -> throw new IllegalArgumentException("unknown operation " + op);
        };
    }
}

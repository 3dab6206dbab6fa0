package io.tutti.offload;

/**
 * One deferred-work entry, as a value for reports and tests (the program itself keeps entries in
 * primitive arrays): when counter {@code counter} reaches {@code threshold}, perform {@code op}.
 * The fields follow [water-tank]'s columns: Th = {@code threshold}, Ot = {@code op}, Iv/Cl/Cr =
 * {@code value} (the amount added to the local counter for CNTR_ADD, to the peer's counter for
 * REMOTE_CNTR_ADD, by each landing packet for PUT, NIC_REDUCE and TRIGGERED_BCAST), Pq = {@code peer},
 * Ci = {@code targetCounter}.
 *
 * @param index         position in the program (firing order for one counter)
 * @param op            one of the {@code OffloadProgram} operation codes
 * @param counter       the triggering counter (Ct)
 * @param threshold     level at which it fires (Th)
 * @param peer          the rank it sends to (Pq), or -1
 * @param value         Iv / Cl / Cr
 * @param targetCounter the counter it adds to (Ci): the peer's, or the local one for CNTR_ADD
 * @param buffer        local region: buffer id ({@link OffloadProgram#SEND_BUFFER} ...)
 * @param offset        local region: byte offset
 * @param length        local region: bytes
 */
public record DeferredWork(int index, byte op, int counter, long threshold, int peer, long value, int targetCounter,
                           byte buffer, long offset, long length) {
    /** The operation's name as the dump prints it. */
    public String opName() {
        return OffloadProgram.opName(op);
    }
}

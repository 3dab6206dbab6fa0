/**
 * Fault-tolerant agreement (ULFM's agree, and the failed set shrink agrees on): a consensus the
 * survivors reach despite ranks failing before or during it, as a state machine
 * ({@link io.tutti.coll.ft.Agreement}) and its run over the point-to-point engine
 * ({@link io.tutti.coll.ft.AgreementRun}), on a context that revoking a communicator leaves open.
 *
 * <p>May import: the API ({@code io.tutti}) and the engine ({@code io.tutti.p2p}); nothing else.
 */
package io.tutti.coll.ft;

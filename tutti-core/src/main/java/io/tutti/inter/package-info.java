/**
 * The pure rules of making intercommunicators ({@link io.tutti.inter.Handshake}: what the leaders
 * check and agree, the order of a merge, the check of a member-only group creation). Their
 * collectives are schedules ({@code io.tutti.coll.algo.InterSchedules}); the runtime wires both.
 *
 * <p>May import: {@code io.tutti} only (the API): rules over ranks and arguments, no messages; the
 * runtime imports this package.
 */
package io.tutti.inter;

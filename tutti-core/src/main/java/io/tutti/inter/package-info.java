/**
 * Intercommunicators' logic: their collectives ({@link io.tutti.inter.InterCollectives}), made of a
 * collective on each group's own communicator and messages between the groups over a
 * {@link io.tutti.inter.Bridge}, and the pure rules of making them ({@link io.tutti.inter.Handshake}:
 * what the leaders check and agree, the order of a merge, the check of a member-only group creation).
 * The runtime wires them to the engine.
 *
 * <p>May import: {@code io.tutti} only (the API), so that the collectives are built from the public
 * communicator calls; the runtime imports this package.
 */
package io.tutti.inter;

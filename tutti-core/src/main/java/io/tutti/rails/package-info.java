/**
 * The multi-rail striping policy as pure functions: which of a host's rails (NICs) a record goes
 * on, from the rails' loads. The network transport (tutti-net's {@code Striping}) and the
 * simulator's packet network both call it, so the rails are chosen by one implementation in
 * both worlds.
 *
 * <p>May import: nothing of Tutti (no I/O, no state: loads come in, rails go out).
 */
package io.tutti.rails;

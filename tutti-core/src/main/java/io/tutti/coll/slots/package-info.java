/**
 * Shared-memory slots: the mechanism behind the SLOTS and SLOTS_REDUCE steps, through which the
 * ranks of one node run small collectives by publishing into and reading each other's slot areas.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.p2p},
 * {@code io.tutti.coll.schedule}.
 */
package io.tutti.coll.slots;

/**
 * Shared-memory transport: the lock-free rings ranks of one node send each other messages through
 * (the inbound ring, one per rank; the data-exchange rings of large messages), with their layouts.
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}.
 */
package io.tutti.transport.shm;

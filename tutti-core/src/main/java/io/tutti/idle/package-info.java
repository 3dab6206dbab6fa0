/**
 * How a thread with nothing to do waits: {@link io.tutti.idle.Idle}, the one back-off (spin, yield,
 * park or sleep) behind every wait in Tutti, and its policies.
 *
 * <p>May import: {@code io.tutti.os}.
 */
package io.tutti.idle;

/**
 * The wire format: byte layouts of the message header every transport carries and of the
 * in-network aggregation packets, as descriptor classes with their pictures.
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.wire;

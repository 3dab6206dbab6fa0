/**
 * The transport SPI: what the point-to-point engine needs from the network rails
 * ({@link io.tutti.transport.RemoteTransport}, found with {@link java.util.ServiceLoader}) and from
 * the job it runs in ({@link io.tutti.transport.KeyValueStore}).
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.transport;

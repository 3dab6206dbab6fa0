/**
 * The transport SPI: what the point-to-point engine needs from the network rails
 * ({@link io.tutti.transport.RemoteTransport}, found with {@link java.util.ServiceLoader}) and from
 * the job it runs in ({@link io.tutti.transport.KeyValueStore}), and the clock by which the rails and
 * the launcher's rendezvous judge a peer's silence ({@link io.tutti.transport.SilenceWatch}).
 *
 * <p>May import: {@code io.tutti}.
 */
package io.tutti.transport;

/**
 * The network rails: the {@link io.tutti.transport.RemoteTransport} between hosts, a reliable,
 * ordered, authenticated stream of records per peer over one or more UDP or TCP rails
 * ({@link io.tutti.net.RailsTransport}, found by the engine through
 * {@link io.tutti.net.RailsTransportProvider}). The façade and its parts: handshake, reliability,
 * striping, liveness, framing, statistics, fault injection; the wires; the datagram and rail-table
 * layouts; the settings ({@link io.tutti.net.NetConfig}).
 *
 * <p>May import: {@code io.tutti}, {@code io.tutti.os}, {@code io.tutti.idle}, {@code io.tutti.wire},
 * {@code io.tutti.transport}, and {@code io.tutti.bootstrap} for {@code ShmFiles} (the node's rail
 * table file). Nothing in tutti-core imports this package.
 */
package io.tutti.net;

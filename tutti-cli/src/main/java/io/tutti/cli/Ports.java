package io.tutti.cli;

import io.tutti.bootstrap.RendezvousWire;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The ports and published names of one {@code tutti run} ({@code Tutti.openPort},
 * {@code Communicator.accept}/{@code connect}, {@code Tutti.publishName}): one table for the job and
 * every job its ranks spawn or join, so a port opened in one is reached from any other. An accept
 * and a connect on a port meet in a new job ({@link Joiner}) with the accepting group's ranks first;
 * each side gets its secret sealed with its own job's ({@link RendezvousWire#seal}), as the two
 * sides may share no secret. Accepts and connects meet in the order they came. Names and ports are
 * bounded in number and length: a program that opens them in a loop gets a clear refusal.
 */
final class Ports {
    /** At most this many open ports and this many published names: more is a leak in the program. */
    static final int MAX_ENTRIES = 4096;
    /** The longest service name or port name taken (MPI_MAX_PORT_NAME is 1024 in Open MPI too). */
    static final int MAX_NAME = 1024;
    private static final String PREFIX = "tutti-port:";

    /** Makes the job where an accept and a connect meet. */
    interface Joiner {
        /** A new job of {@code size} ranks, with its rendezvous listening: its directory and addresses. */
        Joined join(int size) throws IOException;
    }

    /** A job made for a meeting: its directory (id and secret) and its rendezvous addresses. */
    record Joined(JobDirectory dir, String addresses) {
    }

    /** One side waiting at a port: its group's size, its job's secret, and where its answer goes. */
    private record Side(int size, byte[] jobSecret, CompletableFuture<String> answer) {
    }

    /** The sides waiting at one port, accepts and connects apart. */
    private record Port(ArrayDeque<Side> accepts, ArrayDeque<Side> connects) {
    }

    private final Joiner joiner;
    /** What tells this run's port names from another run's: a refusal can then say so. */
    private final String run;
    private final Map<String, Port> ports = new HashMap<>();
    private final Map<String, String> names = new HashMap<>();
    private long next;

    Ports(Joiner joiner) {
        this.joiner = joiner;
        byte[] tag = new byte[4];
        new SecureRandom().nextBytes(tag);
        this.run = HexFormat.of().formatHex(tag);
    }

    /**
     * Carries out {@code operation} for a rank of the job with secret {@code jobSecret}; blocks for
     * an accept or connect until its other side comes. Exceptions say what was wrong.
     */
    String answer(byte[] jobSecret, String operation, List<String> args) throws Exception {
        return switch (operation) {
            case "open" -> {
                arguments(operation, args, 0);
                yield open();
            }
            case "close" -> {
                arguments(operation, args, 1);
                close(args.get(0));
                yield "";
            }
            case "accept", "connect" -> {
                arguments(operation, args, 2);
                yield meet(args.get(0), operation.equals("accept"), Integer.parseInt(args.get(1)), jobSecret);
            }
            case "publish" -> {
                arguments(operation, args, 2);
                publish(args.get(0), args.get(1));
                yield "";
            }
            case "lookup" -> {
                arguments(operation, args, 1);
                yield lookup(args.get(0));
            }
            case "unpublish" -> {
                arguments(operation, args, 2);
                unpublish(args.get(0), args.get(1));
                yield "";
            }
            default -> throw new IllegalArgumentException("unknown port operation '" + operation + "'");
        };
    }

    private static void arguments(String operation, List<String> args, int n) {
        if (args.size() != n) {
            throw new IllegalArgumentException("a port " + operation + " with " + args.size() + " arguments, not " + n);
        }
        for (String a : args) {
            if (a.isEmpty() || a.length() > MAX_NAME) {
                throw new IllegalArgumentException("a name of " + a.length() + " characters: from 1 to " + MAX_NAME);
            }
        }
    }

    private synchronized String open() {
        if (ports.size() >= MAX_ENTRIES) {
            throw new IllegalStateException(MAX_ENTRIES + " ports are open already: close the ones no longer used");
        }
        String name = PREFIX + run + ":" + next++;
        ports.put(name, new Port(new ArrayDeque<>(), new ArrayDeque<>()));
        return name;
    }

    private Port port(String name) {
        Port p = ports.get(name);
        if (p != null) {
            return p;
        }
        if (name.startsWith(PREFIX) && !name.startsWith(PREFIX + run + ":")) {
            throw new IllegalArgumentException("port '" + name + "' belongs to another tutti run: accept and"
                    + " connect meet within one tutti run (its ranks and the processes they spawn)");
        }
        throw new IllegalArgumentException("no port '" + name + "' is open: it was closed, or never opened"
                + " (openPort makes one)");
    }

    private void close(String name) {
        Port p;
        synchronized (this) {
            p = port(name);
            ports.remove(name);
        }
        IllegalArgumentException closed = new IllegalArgumentException("port '" + name + "' was closed while"
                + " waiting at it");
        p.accepts().forEach(s -> s.answer().completeExceptionally(closed));
        p.connects().forEach(s -> s.answer().completeExceptionally(closed));
    }

    /**
     * Waits for the other side at port {@code name}, then makes the joined job and answers both:
     * its id, addresses, secret sealed for each side's job, and the two sizes, accepting side first.
     */
    private String meet(String name, boolean accepting, int size, byte[] jobSecret) throws Exception {
        if (size < 1) {
            throw new IllegalArgumentException("a group of " + size + " ranks cannot meet at a port");
        }
        Side mine = new Side(size, jobSecret, new CompletableFuture<>());
        Side other;
        synchronized (this) {
            Port p = port(name);
            other = (accepting ? p.connects() : p.accepts()).poll();
            if (other == null) {
                (accepting ? p.accepts() : p.connects()).add(mine);
            }
        }
        if (other != null) {
            Side acceptor = accepting ? mine : other;
            Side connector = accepting ? other : mine;
            try {
                if ((long) acceptor.size() + connector.size() > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("groups of " + acceptor.size() + " and " + connector.size()
                            + " ranks are too many for one job");
                }
                Joined j = joiner.join(acceptor.size() + connector.size());
                for (Side s : List.of(acceptor, connector)) {
                    s.answer().complete(j.dir().id() + "\n" + j.addresses() + "\n"
                            + HexFormat.of().formatHex(RendezvousWire.seal(s.jobSecret(), j.dir().id(), j.dir().secret()))
                            + "\n" + acceptor.size() + "\n" + connector.size());
                }
            } catch (IOException | RuntimeException e) {
                other.answer().completeExceptionally(e);
                throw e;
            }
        }
        try {
            return mine.answer().get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private synchronized void publish(String service, String port) {
        String had = names.get(service);
        if (had != null) {
            throw new IllegalArgumentException("service '" + service + "' is published already (as port '" + had
                    + "'): unpublish it first");
        }
        if (names.size() >= MAX_ENTRIES) {
            throw new IllegalStateException(MAX_ENTRIES + " names are published already: unpublish the ones no"
                    + " longer used");
        }
        names.put(service, port);
    }

    private synchronized String lookup(String service) {
        String port = names.get(service);
        if (port == null) {
            throw new IllegalArgumentException("no service '" + service + "' is published in this tutti run");
        }
        return port;
    }

    private synchronized void unpublish(String service, String port) {
        String had = names.get(service);
        if (had == null || !had.equals(port)) {
            throw new IllegalArgumentException(had == null ? "service '" + service + "' is not published"
                    : "service '" + service + "' is published as port '" + had + "', not '" + port + "'");
        }
        names.remove(service);
    }
}

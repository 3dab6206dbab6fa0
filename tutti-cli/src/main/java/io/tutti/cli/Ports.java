package io.tutti.cli;

import io.tutti.bootstrap.RendezvousClient;
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
 * every job its ranks spawn or join. An accept and a connect on a port meet in a new job
 * ({@link Joiner}) with the accepting group's ranks first; each side gets its secret sealed with its
 * own job's ({@link RendezvousWire#seal}), as the two sides may share no secret. A port's name holds
 * a credential and the rendezvous it was opened at, so a connect from another {@code tutti run}
 * goes through that run's launcher, which proves the credential here ({@link #relay}); names are
 * this run's only. Accepts and connects meet in the order they came; names and ports are bounded.
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

    /** An open port: its credential, and the sides waiting at it, accepts and connects apart. */
    private record Port(byte[] token, ArrayDeque<Side> accepts, ArrayDeque<Side> connects) {
    }

    /** A port name taken apart: its run, its number in that run, its credential and where it was opened. */
    private record Name(String run, String id, byte[] token, List<String> addresses) {
        /** {@code PREFIX run:n:credential@address,...}, or null when {@code name} is not a port's name. */
        static Name parse(String name) {
            int at = name.indexOf('@');
            String[] parts = at < 0 || !name.startsWith(PREFIX) ? new String[0]
                    : name.substring(PREFIX.length(), at).split(":", -1);
            if (parts.length != 3 || at == name.length() - 1) {
                return null;
            }
            try {
                return new Name(parts[0], parts[0] + ":" + parts[1], HexFormat.of().parseHex(parts[2]),
                        List.of(name.substring(at + 1).split(",")));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /** How long a connect for another run's port may take to reach and convince that run's launcher. */
    private static final java.time.Duration RELAY_CONNECT = java.time.Duration.ofSeconds(30);
    /** How long a relayed connect waits for its accept: until the job's own timeout ends it. */
    private static final java.time.Duration RELAY_WAIT = java.time.Duration.ofDays(365);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Joiner joiner;
    /** What tells this run's port names from another run's: a refusal can then say so. */
    private final String run;
    private final Map<String, Port> ports = new HashMap<>();
    private final Map<String, String> names = new HashMap<>();
    private long next;

    Ports(Joiner joiner) {
        this.joiner = joiner;
        byte[] tag = new byte[4];
        RANDOM.nextBytes(tag);
        this.run = HexFormat.of().formatHex(tag);
    }

    /**
     * Carries out {@code operation} for a rank of the job with secret {@code jobSecret} (null: a
     * client of another run that proved a port's credential, which may only connect), where a port
     * opened now is reached at {@code here} (this rendezvous's addresses); blocks for an accept or
     * connect until its other side comes, or until {@code asking} says the asker has gone (its side
     * is then taken off the port). Exceptions say what was wrong.
     */
    String answer(byte[] jobSecret, String here, String operation, List<String> args,
                  java.util.function.BooleanSupplier asking) throws Exception {
        if (jobSecret == null && !operation.equals("connect")) {
            throw new IllegalArgumentException("a client of another run may only connect to a port");
        }
        return switch (operation) {
            case "open" -> {
                arguments(operation, args, 0);
                yield open(here);
            }
            case "close" -> {
                arguments(operation, args, 1);
                close(args.get(0));
                yield "";
            }
            case "accept", "connect" -> {
                arguments(operation, args, 2);
                yield meet(args.get(0), operation.equals("accept"), Integer.parseInt(args.get(1)), jobSecret, asking);
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

    /** The credential of open port {@code id} ("run:n"), or null: what a client of another run must prove. */
    synchronized byte[] token(String id) {
        Port p = ports.get(id);
        return p == null ? null : p.token().clone();
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

    private synchronized String open(String here) {
        if (ports.size() >= MAX_ENTRIES) {
            throw new IllegalStateException(MAX_ENTRIES + " ports are open already: close the ones no longer used");
        }
        byte[] token = new byte[32];
        RANDOM.nextBytes(token);
        String id = run + ":" + next++;
        ports.put(id, new Port(token, new ArrayDeque<>(), new ArrayDeque<>()));
        return PREFIX + id + ":" + HexFormat.of().formatHex(token) + "@" + here;
    }

    /** This run's open port {@code name}: a name of another run's port, or of none open, is refused. */
    private Port port(String name) {
        Name n = Name.parse(name);
        Port p = n == null ? null : ports.get(n.id());
        if (p != null && java.security.MessageDigest.isEqual(p.token(), n.token())) {
            return p;
        }
        if (n != null && !n.run().equals(run)) {
            throw new IllegalArgumentException("port '" + name + "' belongs to another tutti run: only a connect"
                    + " reaches it there");
        }
        throw new IllegalArgumentException("no port '" + name + "' is open: it was closed, or never opened"
                + " (openPort makes one)");
    }

    private void close(String name) {
        Port p;
        synchronized (this) {
            p = port(name);
            ports.remove(Name.parse(name).id());
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
    private String meet(String name, boolean accepting, int size, byte[] jobSecret,
                        java.util.function.BooleanSupplier asking) throws Exception {
        if (size < 1) {
            throw new IllegalArgumentException("a group of " + size + " ranks cannot meet at a port");
        }
        Name n = Name.parse(name);
        if (!accepting && jobSecret != null && n != null && !n.run().equals(run)) {
            return relay(name, n, size, jobSecret);
        }
        Side mine;
        Side other;
        synchronized (this) {
            Port p = port(name);
            // a client of another run proved the port's credential: its side's secret is that credential
            mine = new Side(size, jobSecret != null ? jobSecret : p.token(), new CompletableFuture<>());
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
                    s.answer().complete(new RendezvousWire.Meeting(j.dir().id(), j.addresses(),
                            RendezvousWire.seal(s.jobSecret(), j.dir().id(), j.dir().secret()), acceptor.size(),
                            connector.size()).text());
                }
            } catch (IOException | RuntimeException e) {
                other.answer().completeExceptionally(e);
                throw e;
            }
        }
        try {
            while (true) {
                try {
                    return mine.answer().get(ASKER_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    if (!asking.getAsBoolean() && withdraw(name, mine)) {
                        throw new IllegalStateException("the asker of this " + (accepting ? "accept" : "connect")
                                + " has gone");
                    }
                }
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** How often a side waiting at a port looks whether its asker is still there. */
    private static final long ASKER_CHECK_MILLIS = 500;

    /** Takes {@code side} off port {@code name} if it still waits there; false when it has met already. */
    private synchronized boolean withdraw(String name, Side side) {
        Name n = Name.parse(name);
        Port p = n == null ? null : ports.get(n.id());
        if (p == null) {
            return !side.answer().isDone();
        }
        return p.accepts().remove(side) || p.connects().remove(side);
    }

    /**
     * A connect at another run's port: this launcher proves the port's credential to that run's
     * (at the port's rendezvous addresses) and waits there for the meeting; the joined job's secret,
     * sealed for the credential, is sealed again for the connecting job ({@code jobSecret}).
     */
    private static String relay(String name, Name n, int size, byte[] jobSecret) throws Exception {
        RendezvousClient there;
        try {
            there = RendezvousClient.connect(n.addresses(), RendezvousWire.PORT_CLIENT + n.id(), -1, n.token(),
                    RELAY_CONNECT, why -> { });
        } catch (IOException e) {
            throw new IllegalArgumentException("port '" + name + "' of another tutti run cannot be reached: "
                    + e.getMessage(), e);
        }
        try {
            return RendezvousWire.Meeting.parse(there.port("connect", RELAY_WAIT, name, Integer.toString(size)))
                    .resealed(n.token(), jobSecret).text();
        } finally {
            there.disconnect();
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

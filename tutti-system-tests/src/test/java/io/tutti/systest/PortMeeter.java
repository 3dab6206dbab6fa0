package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.util.List;

/**
 * Ports and published names as a client/server program uses them. With {@code split}, the world's
 * first half opens a port, publishes it and accepts; the second half looks it up and connects; with
 * {@code spawn}, the ranks publish a port, spawn two processes of this class, which look it up and
 * connect from their own job. Each side checks what came over the intercommunicator both ways, both
 * merge for an allreduce, then the server withdraws the name and closes the port, and the misuses
 * (a name published twice, unknown names, a closed port, another run's port out of reach) must each
 * fail with InvalidArgument. With {@code serve FILE} and {@code dial FILE}, two separate runs meet:
 * the server writes its port's name to FILE, the client reads it there and connects. Each process
 * prints one line ending in "ports ok" when every check held.
 */
public final class PortMeeter {
    private PortMeeter() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator world = tutti.world();
            if (args[0].equals("split")) {
                int half = world.size() / 2;
                boolean server = world.rank() < half;
                Communicator group = world.split(server ? 0 : 1, world.rank());
                String port = null;
                if (server && group.rank() == 0) {
                    port = tutti.openPort();
                    tutti.publishName("meeter", port);
                    expectInvalid(() -> tutti.publishName("meeter", "elsewhere"), "published already");
                }
                world.barrier();
                if (server) {
                    Intercommunicator clients = group.accept(port, 0);
                    exchange(world, clients, 0, half);
                    group.barrier();
                    if (group.rank() == 0) {
                        tutti.unpublishName("meeter", port);
                        tutti.closePort(port);
                    }
                    world.barrier();
                } else {
                    Intercommunicator servers = group.connect(group.rank() == 0 ? tutti.lookupName("meeter") : null, 0);
                    exchange(world, servers, half, 0);
                    world.barrier();
                    // the server has withdrawn its name and closed its port by now
                    expectInvalid(() -> tutti.lookupName("meeter"), "no service 'meeter'");
                    expectInvalid(() -> group.connect("tutti-port:00000000:0:" + "00".repeat(32)
                            + "@unix:/nonexistent/rendezvous.sock", 0), "of another tutti run cannot be reached");
                }
                expectInvalid(() -> tutti.lookupName("never-published"), "no service 'never-published'");
                expectInvalid(() -> tutti.unpublishName("never-published", "p"), "is not published");
                System.out.println("rank " + world.rank() + " of " + world.size() + ": ports ok");
            } else if (args[0].equals("spawn")) {
                String port = world.rank() == 0 ? tutti.openPort() : null;
                if (port != null) {
                    tutti.publishName("meeter-spawn", port);
                }
                Intercommunicator kids = world.spawn(PortMeeter.class.getName(), List.of("connect"), 2, 0);
                Intercommunicator met = world.accept(port, 0);
                check(met.remoteSize() == 2 && kids.remoteSize() == 2, "sizes " + met + ", " + kids);
                exchange(world, met, 0, world.size());
                if (port != null) {
                    tutti.closePort(port);
                }
                System.out.println("parent " + world.rank() + ": ports ok");
            } else if (args[0].equals("serve")) {
                // another tutti run connects: the port's name reaches it in a file, as text may
                String port = world.rank() == 0 ? tutti.openPort() : null;
                if (port != null) {
                    java.nio.file.Path file = java.nio.file.Path.of(args[1]);
                    java.nio.file.Path tmp = java.nio.file.Path.of(args[1] + ".tmp");
                    java.nio.file.Files.writeString(tmp, port);
                    java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
                Intercommunicator met = world.accept(port, 0);
                exchange(world, met, 0, world.size());
                if (port != null) {
                    tutti.closePort(port);
                }
                System.out.println("server " + world.rank() + ": ports ok");
            } else if (args[0].equals("dial")) {
                String port = null;
                if (world.rank() == 0) {
                    java.nio.file.Path file = java.nio.file.Path.of(args[1]);
                    long deadline = System.nanoTime() + 120_000_000_000L;
                    while (!java.nio.file.Files.exists(file) && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    port = java.nio.file.Files.readString(file);
                }
                Intercommunicator met = world.connect(port, 0);
                exchange(world, met, met.remoteSize(), 0);
                System.out.println("client " + world.rank() + ": ports ok");
            } else {
                // spawned: connect from this job to the port the parents published in theirs
                String port = world.rank() == 0 ? tutti.lookupName("meeter-spawn") : null;
                Intercommunicator met = world.connect(port, 0);
                check(met.remoteSize() == tutti.parent().remoteSize(), "sizes " + met);
                exchange(world, met, met.remoteSize(), 0);
                System.out.println("child " + world.rank() + ": ports ok");
            }
        }
    }

    /**
     * Each rank sends its number plus {@code mine} (its group's first number) to every remote rank and
     * checks theirs, counted from {@code theirs}; then both merge, the accepting side first, for an allreduce.
     */
    private static void exchange(Communicator world, Intercommunicator other, int mine, int theirs) {
        boolean accepting = mine == 0;
        for (int j = 0; j < other.remoteSize(); j++) {
            other.send(new int[] {mine + other.rank()}, j, 5);
        }
        for (int j = 0; j < other.remoteSize(); j++) {
            int[] got = new int[1];
            other.recv(got, j, 5);
            check(got[0] == theirs + j, "remote rank " + j + " sent " + got[0] + ", not " + (theirs + j));
        }
        Communicator all = other.merge(!accepting);
        int total = other.size() + other.remoteSize();
        check(all.size() == total && all.rank() == (accepting ? 0 : other.remoteSize()) + other.rank(), "merged " + all);
        long[] sum = {all.rank()};
        all.allreduce(sum, ReduceOp.SUM);
        check(sum[0] == (long) total * (total - 1) / 2, "merged allreduce gave " + sum[0]);
    }

    private static void expectInvalid(Runnable call, String says) {
        try {
            call.run();
        } catch (TuttiException.InvalidArgument e) {
            check(e.getMessage().contains(says), "the error '" + e.getMessage() + "' does not say '" + says + "'");
            return;
        }
        throw new AssertionError("a misuse that should say '" + says + "' returned");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("port check failed: " + what);
        }
    }
}

package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.util.List;

/**
 * Dynamic processes: started with a count N, the job spawns N processes of this class, which find
 * their parents through {@code Tutti.parent()}; both sides exchange over the intercommunicator both
 * ways, the children run a collective among themselves, and both merge into one communicator for an
 * allreduce. A child that is given {@code fail} exits with code 3 after the exchange. Started with
 * {@code bad}, rank 0 asks for an invalid spawn and every rank must get the same clear error; with
 * {@code never-joins}, the spawned processes exit before they join, and the spawn must fail at once.
 * Each process prints one line ending in "ok" when every check held.
 */
public final class Spawner {
    private Spawner() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("exit-at-once")) {
            System.exit(4); // a spawned process that never joins
        }
        try (Tutti tutti = Tutti.init(args)) {
            Intercommunicator parent = tutti.parent();
            if (parent != null) {
                child(tutti.world(), parent, args);
            } else if (args[0].equals("bad")) {
                badSpawn(tutti.world());
            } else if (args[0].equals("multiple")) {
                multiple(tutti.world());
            } else if (args[0].equals("never-joins")) {
                neverJoins(tutti.world());
            } else {
                parents(tutti.world(), Integer.parseInt(args[0]), args.length > 1 && args[1].equals("fail"));
            }
        }
    }

    private static void parents(Communicator world, int count, boolean childFails) {
        Intercommunicator kids = world.spawn(Spawner.class.getName(),
                List.of("child", "two words", childFails ? "fail" : "-"), count, 0);
        check(kids.size() == world.size() && kids.rank() == world.rank() && kids.remoteSize() == count,
                "intercommunicator " + kids);
        for (int c = 0; c < count; c++) {
            kids.send(new int[] {world.rank() * 100 + c}, c, 7);
        }
        for (int c = 0; c < count; c++) {
            int[] got = new int[1];
            kids.recv(got, c, 8);
            check(got[0] == c * 1000 + world.rank(), "child " + c + " answered " + got[0]);
        }
        if (childFails) {
            System.out.println("parent " + world.rank() + ": exchange ok");
            return;
        }
        Communicator all = kids.merge(false);
        int total = world.size() + count;
        check(all.size() == total && all.rank() == world.rank(), "merged " + all);
        long[] sum = {all.rank()};
        all.allreduce(sum, ReduceOp.SUM);
        check(sum[0] == (long) total * (total - 1) / 2, "merged allreduce gave " + sum[0]);
        System.out.println("parent " + world.rank() + " of " + world.size() + ": spawned " + count + ", ok");
    }

    private static void child(Communicator world, Intercommunicator parent, String[] args) {
        check(args.length == 3 && args[0].equals("child") && args[1].equals("two words"),
                "arguments " + List.of(args));
        int parents = parent.remoteSize();
        for (int p = 0; p < parents; p++) {
            int[] got = new int[1];
            parent.recv(got, p, 7);
            check(got[0] == p * 100 + world.rank(), "parent " + p + " sent " + got[0]);
            parent.send(new int[] {world.rank() * 1000 + p}, p, 8);
        }
        if (args[2].equals("fail")) {
            System.out.flush();
            System.exit(3);
        }
        long[] sum = {world.rank()};
        world.allreduce(sum, ReduceOp.SUM);
        check(sum[0] == (long) world.size() * (world.size() - 1) / 2, "children's allreduce gave " + sum[0]);
        Communicator all = parent.merge(true);
        check(all.rank() == parents + world.rank() && all.size() == parents + world.size(), "merged " + all);
        long[] total = {all.rank()};
        all.allreduce(total, ReduceOp.SUM);
        check(total[0] == (long) all.size() * (all.size() - 1) / 2, "merged allreduce gave " + total[0]);
        System.out.println("child " + world.rank() + " runs on " + hostName() + " with last argument " + args[2]);
        System.out.println("child " + world.rank() + " of " + world.size() + " with " + parents + " parents: ok");
    }

    /** Two programs in one spawn: two processes with one last argument, then one with another. */
    private static void multiple(Communicator world) {
        Intercommunicator kids = world.spawn(List.of(
                new Communicator.Program(Spawner.class.getName(), List.of("child", "two words", "first"), 2),
                new Communicator.Program(Spawner.class.getName(), List.of("child", "two words", "second"), 1)), 0);
        check(kids.remoteSize() == 3, "intercommunicator " + kids);
        for (int c = 0; c < 3; c++) {
            kids.send(new int[] {world.rank() * 100 + c}, c, 7);
            int[] got = new int[1];
            kids.recv(got, c, 8);
            check(got[0] == c * 1000 + world.rank(), "child " + c + " answered " + got[0]);
        }
        Communicator all = kids.merge(false);
        int total = world.size() + 3;
        long[] sum = {all.rank()};
        all.allreduce(sum, ReduceOp.SUM);
        check(sum[0] == (long) total * (total - 1) / 2, "merged allreduce gave " + sum[0]);
        System.out.println("parent " + world.rank() + ": spawned two programs, ok");
    }

    private static void neverJoins(Communicator world) {
        try {
            world.spawn(Spawner.class.getName(), List.of("exit-at-once"), 2, 0);
            check(false, "a spawn whose processes never joined returned");
        } catch (TuttiException e) {
            System.out.println("rank " + world.rank() + ": spawn failed: " + e.getMessage());
        }
    }

    private static void badSpawn(Communicator world) {
        try {
            world.spawn(world.rank() == 0 ? "-XX:+Evil" : Spawner.class.getName(), List.of(), 1, 0);
            check(false, "an invalid spawn returned");
        } catch (TuttiException.Unsupported e) {
            System.out.println("rank " + world.rank() + ": refused: " + e.getMessage() + " ok");
        }
    }

    private static String hostName() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("spawn check failed: " + what);
        }
    }
}

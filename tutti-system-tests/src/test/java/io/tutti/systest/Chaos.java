package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Metrics;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The chaos test's rank program ({@link ChaosIT}): rounds of point-to-point (8 B to 1 MiB, random
 * destinations and tags, ANY_SOURCE or named receives, blocking or nonblocking sends) and
 * collectives (allreduce, bcast, allgather, alltoall, barrier, blocking or not), each drawn from a
 * plan every rank derives from the seed, so every message and every result is checked against
 * values computed from the seed. When a rank dies, whoever notices revokes; the survivors shrink
 * and go on. Rounds run until {@code SECONDS} have passed and {@code FAILURES} ranks have failed.
 * Each survivor prints what it checked ("chaos rank R: ok ...") and what its rails recovered
 * ({@link Tutti#metrics()}); any wrong byte prints "CHAOS FAILED" and exits 3.
 *
 * <p>Arguments: SECONDS DIR SEED FAILURES; rank 0 writes {@code DIR/started} after the first barrier.
 */
public final class Chaos {
    private static final int MIB = 1 << 20;
    /** How long past SECONDS the ranks wait for the failures they were told to expect. */
    private static final long GRACE_NANOS = 180_000_000_000L;
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.BXOR};

    private final Communicator world;
    private final long seed;
    private final int me;
    private long round;
    private int shrinks;
    private long messages;
    private long bytes;
    private final long[] collectives = new long[5];
    private static final String[] COLLECTIVES = {"allreduce", "bcast", "allgather", "alltoall", "barrier"};

    private Chaos(Communicator world, long seed) {
        this.world = world;
        this.seed = seed;
        this.me = world.rank();
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        long seed = Long.parseLong(args[2]);
        int failures = Integer.parseInt(args[3]);
        try (Tutti tutti = Tutti.init(args)) {
            Chaos c = new Chaos(tutti.world(), seed);
            c.world.barrier();
            if (c.me == 0) {
                Files.writeString(dir.resolve("started"), "seed " + seed);
            }
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            Communicator last = c.run(end, failures);
            StringBuilder done = new StringBuilder("chaos rank " + c.me + ": ok, rounds=" + c.round + " shrinks="
                    + c.shrinks + " size=" + last.size() + " checked p2p=" + c.messages + " bytes=" + c.bytes);
            for (int k = 0; k < COLLECTIVES.length; k++) {
                done.append(' ').append(COLLECTIVES[k]).append('=').append(c.collectives[k]);
            }
            System.out.println(done);
            Metrics m = tutti.metrics();
            long retransmits = 0;
            for (Metrics.Rail r : m.rails()) {
                retransmits += r.retransmits();
            }
            System.out.println("chaos rank " + c.me + " recovered: retransmits=" + retransmits + " naks="
                    + m.netTotals().naksSent() + " crcDrops=" + m.netTotals().crcDrops() + " timeouts="
                    + m.netTotals().timeouts());
        }
    }

    /** Runs rounds to the end, shrinking past each failure; the communicator the last round ran on. */
    private Communicator run(long end, int failures) {
        Communicator comm = world;
        while (true) {
            try {
                while (true) {
                    long now = System.nanoTime();
                    boolean more = now < end || shrinks < failures;
                    check(now < end + GRACE_NANOS || !more, "only " + shrinks + " of " + failures
                            + " failures came within " + GRACE_NANOS / 1_000_000_000L + " s after the end");
                    // every round starts with this allreduce: no rank runs ahead into the next round
                    int[] go = {more ? 1 : 0};
                    comm.allreduce(go, ReduceOp.MAX);
                    if (go[0] == 0) {
                        return comm;
                    }
                    round++;
                    step(comm);
                }
            } catch (TuttiException.PeerFailed | TuttiException.Revoked e) {
                System.out.println("chaos rank " + me + " noticed in round " + round + ": " + e.getMessage());
                comm.revoke();
                Communicator old = comm;
                comm = comm.shrink();
                shrinks++;
                checkShrunk(old, comm);
                long[] at = {round};
                comm.allreduce(at, ReduceOp.MAX);
                round = at[0];
            }
        }
    }

    /** The shrunk communicator holds exactly the old one's members that did not fail, in order. */
    private void checkShrunk(Communicator old, Communicator shrunk) {
        int[] failed = old.failedRanks();
        check(failed.length >= 1 && shrunk.size() == old.size() - failed.length, "shrunk from " + old.size()
                + " to " + shrunk.size() + " ranks with failed " + Arrays.toString(failed));
        int[] expected = new int[shrunk.size()];
        for (int r = 0, i = 0; r < old.size(); r++) {
            if (Arrays.binarySearch(failed, r) < 0 && i < expected.length) {
                expected[i++] = old.worldRank(r);
            }
        }
        int[] group = new int[shrunk.size()];
        shrunk.allgather(new int[] {me}, group);
        check(Arrays.equals(group, expected), "shrunk group " + Arrays.toString(group) + ", expected "
                + Arrays.toString(expected));
        old.ackFailed();
    }

    /** One round: its plan is the same at every rank of {@code comm}. */
    private void step(Communicator comm) {
        SplittableRandom plan = new SplittableRandom(key(seed, shrinks, round));
        int kind = plan.nextInt(10);
        if (kind < 4) {
            pointToPoint(comm, plan);
        } else if (kind < 6) {
            allreduce(comm, plan);
        } else if (kind == 6) {
            bcast(comm, plan);
        } else if (kind == 7) {
            allgather(comm, plan);
        } else if (kind == 8) {
            alltoall(comm, plan);
        } else {
            if (plan.nextBoolean()) {
                comm.barrier();
            } else {
                comm.ibarrier().waitFor();
            }
            collectives[4]++;
        }
    }

    /**
     * Every rank sends one message to a random other rank with a random tag and size, blocking or
     * not; each receiver posts its receives first (all ANY_SOURCE and ANY_TAG, or each naming its
     * sender and tag, in a random order), then sends, then checks every message it got.
     */
    private void pointToPoint(Communicator comm, SplittableRandom plan) {
        int n = comm.size();
        int[] dest = new int[n];
        int[] tag = new int[n];
        int[] size = new int[n];
        boolean[] blocking = new boolean[n];
        boolean[] anySource = new boolean[n];
        for (int s = 0; s < n; s++) {
            dest[s] = (s + 1 + plan.nextInt(n - 1)) % n;
            tag[s] = plan.nextInt(1 << 24);
            size[s] = size(plan);
            blocking[s] = plan.nextBoolean();
            anySource[s] = plan.nextBoolean();
        }
        int r = comm.rank();
        int[] senders = new int[n];
        int count = 0;
        for (int s = 0; s < n; s++) {
            if (dest[s] == r) {
                senders[count++] = s;
            }
        }
        // the order of named receives is this rank's own draw
        SplittableRandom mine = new SplittableRandom(key(seed, shrinks, round, me));
        for (int i = count - 1; i > 0; i--) {
            int j = mine.nextInt(i + 1);
            int t = senders[i];
            senders[i] = senders[j];
            senders[j] = t;
        }
        byte[][] into = new byte[count][];
        Request[] receives = new Request[count];
        for (int i = 0; i < count; i++) {
            int s = senders[i];
            into[i] = new byte[anySource[r] ? MIB : size[s]];
            receives[i] = anySource[r] ? comm.irecv(into[i], 0, MIB, Communicator.ANY_SOURCE, Communicator.ANY_TAG)
                    : comm.irecv(into[i], 0, size[s], s, tag[s]);
        }
        byte[] out = new byte[size[r]];
        fill(out, 0, size[r], key(seed, round, comm.worldRank(r), 1));
        Request send = null;
        if (blocking[r]) {
            comm.send(out, 0, size[r], dest[r], tag[r]);
        } else {
            send = comm.isend(out, 0, size[r], dest[r], tag[r]);
        }
        boolean[] seen = new boolean[n];
        byte[] expect = new byte[MIB];
        for (int i = 0; i < count; i++) {
            // one request at a time, so that a failure is thrown at once, not after the others
            Status st = receives[i].waitFor();
            int s = st.source();
            check(anySource[r] || s == senders[i], "receive " + i + " named " + senders[i] + " but got " + s);
            check(s >= 0 && s < n && dest[s] == r && !seen[s], "a message from " + s + " that was not due");
            seen[s] = true;
            check(st.tag() == tag[s] && st.bytes() == size[s], "from " + s + ": tag " + st.tag() + " and "
                    + st.bytes() + " bytes, expected tag " + tag[s] + " and " + size[s] + " bytes");
            fill(expect, 0, size[s], key(seed, round, comm.worldRank(s), 1));
            same(into[i], 0, expect, size[s], "the message from " + s);
            messages++;
            bytes += size[s];
        }
        if (send != null) {
            send.waitFor();
        }
    }

    private void allreduce(Communicator comm, SplittableRandom plan) {
        int count = 1 + plan.nextInt(plan.nextBoolean() ? 16 : 8192);
        ReduceOp op = OPS[plan.nextInt(OPS.length)];
        boolean blocking = plan.nextBoolean();
        long[] in = values(comm.worldRank(comm.rank()), count);
        long[] out = new long[count];
        if (blocking) {
            comm.allreduce(in, out, op);
        } else {
            comm.iallreduce(in, out, count, Datatype.LONG, op).waitFor();
        }
        long[] expect = values(comm.worldRank(0), count);
        for (int r = 1; r < comm.size(); r++) {
            long[] v = values(comm.worldRank(r), count);
            for (int i = 0; i < count; i++) {
                expect[i] = switch (op) {
                    case SUM -> expect[i] + v[i];
                    case MAX -> Math.max(expect[i], v[i]);
                    default -> expect[i] ^ v[i];
                };
            }
        }
        check(Arrays.equals(out, expect), "allreduce " + op + " of " + count + " longs: first difference at "
                + Arrays.mismatch(out, expect));
        collectives[0]++;
    }

    /** The allreduce input of world rank {@code w} in this round. */
    private long[] values(int w, int count) {
        long[] v = new long[count];
        long k = key(seed, round, w, 2);
        for (int i = 0; i < count; i++) {
            v[i] = mix(k + i);
        }
        return v;
    }

    private void bcast(Communicator comm, SplittableRandom plan) {
        int root = plan.nextInt(comm.size());
        int size = size(plan);
        boolean blocking = plan.nextBoolean();
        long k = key(seed, round, comm.worldRank(root), 3);
        byte[] buf = new byte[size];
        if (comm.rank() == root) {
            fill(buf, 0, size, k);
        }
        if (blocking) {
            comm.bcast(buf, size, Datatype.BYTE, root);
        } else {
            comm.ibcast(buf, size, Datatype.BYTE, root).waitFor();
        }
        byte[] expect = new byte[size];
        fill(expect, 0, size, k);
        same(buf, 0, expect, size, "bcast of " + size + " bytes from " + root);
        collectives[1]++;
    }

    private void allgather(Communicator comm, SplittableRandom plan) {
        int n = comm.size();
        int count = 1 + plan.nextInt(plan.nextBoolean() ? 64 : 65536);
        boolean blocking = plan.nextBoolean();
        byte[] in = new byte[count];
        fill(in, 0, count, key(seed, round, comm.worldRank(comm.rank()), 4));
        byte[] out = new byte[count * n];
        if (blocking) {
            comm.allgather(in, out, count, Datatype.BYTE);
        } else {
            comm.iallgather(in, out, count, Datatype.BYTE).waitFor();
        }
        byte[] expect = new byte[count];
        for (int r = 0; r < n; r++) {
            fill(expect, 0, count, key(seed, round, comm.worldRank(r), 4));
            same(out, r * count, expect, count, "allgather block " + r + " of " + count + " bytes");
        }
        collectives[2]++;
    }

    private void alltoall(Communicator comm, SplittableRandom plan) {
        int n = comm.size();
        int count = 1 + plan.nextInt(plan.nextBoolean() ? 64 : 65536);
        boolean blocking = plan.nextBoolean();
        int self = comm.worldRank(comm.rank());
        byte[] in = new byte[count * n];
        for (int d = 0; d < n; d++) {
            fill(in, d * count, count, key(seed, round, self, comm.worldRank(d), 5));
        }
        byte[] out = new byte[count * n];
        if (blocking) {
            comm.alltoall(in, out, count, Datatype.BYTE);
        } else {
            comm.ialltoall(in, out, count, Datatype.BYTE).waitFor();
        }
        byte[] expect = new byte[count];
        for (int s = 0; s < n; s++) {
            fill(expect, 0, count, key(seed, round, comm.worldRank(s), self, 5));
            same(out, s * count, expect, count, "alltoall block from " + s + " of " + count + " bytes");
        }
        collectives[3]++;
    }

    /** 8 B to 1 MiB: half up to 256 B, a third up to 64 KiB, the rest up to 1 MiB (1 MiB itself now and then). */
    private static int size(SplittableRandom plan) {
        int kind = plan.nextInt(12);
        if (kind < 6) {
            return 8 + plan.nextInt(249);
        }
        if (kind < 10) {
            return 257 + plan.nextInt(65536);
        }
        return kind == 10 ? 65793 + plan.nextInt(MIB - 65793) : MIB;
    }

    /** Fills {@code len} bytes at {@code off} with the stream of {@code key}. */
    static void fill(byte[] b, int off, int len, long key) {
        long s = key;
        for (int i = 0; i < len; i++) {
            if ((i & 7) == 0) {
                s = mix(s + 0x9E3779B97F4A7C15L);
            }
            b[off + i] = (byte) (s >>> ((i & 7) << 3));
        }
    }

    private void same(byte[] got, int off, byte[] expect, int len, String what) {
        int at = Arrays.mismatch(got, off, off + len, expect, 0, len);
        check(at < 0, what + ": byte " + at + " is wrong");
    }

    /** A key from several numbers (SplitMix64's finalizer over each in turn). */
    static long key(long... parts) {
        long k = 0x243F6A8885A308D3L;
        for (long p : parts) {
            k = mix(k ^ p);
        }
        return k;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("CHAOS FAILED rank " + me + " round " + round + " (seed " + seed + "): " + what);
            System.out.flush();
            System.exit(3);
        }
    }
}

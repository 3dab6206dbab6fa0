package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;

/**
 * A token passed around the ring, then an all-to-all exchange at every size from 8 B to 1 MiB, with
 * every byte checked: covers the eager and the rendezvous paths between every pair of ranks.
 */
public final class Exchange {
    static final int[] SIZES = {8, 64, 1024, 16 * 1024, 16 * 1024 + 1, 64 * 1024, 1 << 20};

    private Exchange() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            ring(w, rank, n);
            for (int s = 0; s < SIZES.length; s++) {
                allToAll(w, rank, n, SIZES[s], 100 + s);
            }
            System.out.println("rank " + rank + " of " + n + " (" + io.tutti.runtime.Rank.of(tutti).engine().remotePeers()
                    + " over the network): ring and all-to-all ok");
        }
    }

    private static void ring(Communicator w, int rank, int n) {
        long[] token = new long[1];
        int rounds = 3;
        for (int round = 0; round < rounds; round++) {
            if (rank == 0) {
                token[0] += 1;
                w.send(token, 0, 1, 1 % n, 7);
                Status s = w.recv(token, 0, 1, (n - 1) % n, 7);
                check(s.source() == (n - 1) % n, "ring: token from " + s.source());
            } else {
                w.recv(token, 0, 1, rank - 1, 7);
                token[0] += rank + 1;
                w.send(token, 0, 1, (rank + 1) % n, 7);
            }
        }
        if (rank == 0) {
            long expected = (long) rounds * ((long) n * (n + 1) / 2);
            check(token[0] == expected, "ring: token " + token[0] + ", expected " + expected);
            System.out.println("ring ok: token " + token[0] + " after " + rounds + " rounds of " + n + " ranks");
        }
    }

    private static void allToAll(Communicator w, int rank, int n, int size, int tag) {
        byte[][] in = new byte[n][size];
        byte[][] out = new byte[n][size];
        Request[] reqs = new Request[2 * n];
        for (int peer = 0; peer < n; peer++) {
            if (peer != rank) {
                reqs[peer] = w.irecv(in[peer], 0, size, peer, tag);
            }
        }
        for (int peer = 0; peer < n; peer++) {
            if (peer != rank) {
                fill(out[peer], rank, peer, size);
                reqs[n + peer] = w.isend(out[peer], 0, size, peer, tag);
            }
        }
        Request.waitAll(reqs);
        byte[] expected = new byte[size];
        for (int peer = 0; peer < n; peer++) {
            if (peer != rank) {
                fill(expected, peer, rank, size);
                for (int i = 0; i < size; i++) {
                    if (in[peer][i] != expected[i]) {
                        throw new IllegalStateException("all-to-all of " + size + " B: byte " + i + " from rank "
                                + peer + " is " + in[peer][i] + ", expected " + expected[i]);
                    }
                }
            }
        }
    }

    /** A pattern that differs per (source, destination, size, position), so misrouting shows. */
    static void fill(byte[] b, int src, int dst, int size) {
        int x = src * 7919 + dst * 104729 + size;
        for (int i = 0; i < b.length; i++) {
            x = x * 1103515245 + 12345;
            b[i] = (byte) (x >>> 16);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }
}

package io.tutti.coll.schedule;

import java.util.Arrays;

/**
 * The ranks an algorithm runs over, so that one builder serves a whole communicator and a part of
 * it (a node's ranks, the node leaders) inside a hierarchical schedule. Virtual rank {@code v} is
 * communicator rank {@code ranks[v]}; this rank is virtual rank {@link #me()}. An algorithm's step
 * tags are {@code tagBase + k} for its own small {@code k}, so that two algorithms composed in one
 * schedule never pair each other's messages.
 *
 * @param ranks   communicator rank of each virtual rank
 * @param me      this rank's virtual rank
 * @param tagBase first step tag this algorithm may use
 */
public record Group(int[] ranks, int me, int tagBase) {
    public Group {
        if (me < 0 || me >= ranks.length) {
            throw new IllegalArgumentException("virtual rank " + me + " outside a group of " + ranks.length);
        }
    }

    /** The last identity mapping made; never written after publication, so ranks may share it. */
    private static volatile int[] identity = new int[0];

    /**
     * The whole communicator, identity order, tags from 0. The identity array is shared between
     * calls of the same size: building every rank's schedule of a million-rank communicator (the
     * simulator does) would otherwise cost P² time.
     */
    public static Group all(int rank, int size) {
        int[] r = identity;
        if (r.length != size) {
            r = new int[size];
            Arrays.setAll(r, i -> i);
            identity = r;
        }
        return new Group(r, rank, 0);
    }

    /** Number of ranks. */
    public int size() {
        return ranks.length;
    }

    /** Communicator rank of virtual rank {@code v}. */
    public int rank(int v) {
        return ranks[v];
    }

    /** Step tag {@code k} of this algorithm. */
    public int tag(int k) {
        return tagBase + k;
    }

    /** The same ranks, tags from {@code base}. */
    public Group withTagBase(int base) {
        return new Group(ranks, me, base);
    }
}

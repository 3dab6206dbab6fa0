package io.tutti.inter;

import java.util.Arrays;

/**
 * The rules of making intercommunicators and member-only communicators, apart from the messages that
 * carry them: what an intercommunicator's leaders check of each other, the order of a merge, and
 * what the first member of a member-only group creation checks of each other member. A new
 * communicator's context is the largest next-free context of the ranks that will use it, which no
 * communicator of any of them has, so only they need to agree on it.
 */
public final class Handshake {
    /** The fields of a member's request in a member-only creation: tag, group size and hash, next context. */
    public static final int GROUP_FIELDS = 4;

    private Handshake() {
    }

    /** Why two leaders cannot join their groups, or null when they can. */
    public static String leadersDisagree(int tag, int remoteTag, int[] localGroup, int[] remoteGroup) {
        if (tag != remoteTag) {
            return "the two leaders passed different tags to createIntercomm: " + tag + " here, " + remoteTag
                    + " at the remote leader; both groups must pass the same tag";
        }
        int shared = shared(localGroup, remoteGroup);
        if (shared >= 0) {
            return "the local and remote groups of createIntercomm share world rank " + shared + ": the groups of"
                    + " an intercommunicator must be disjoint";
        }
        return null;
    }

    /** A world rank in both groups, or -1. */
    static int shared(int[] a, int[] b) {
        int[] sorted = b.clone();
        Arrays.sort(sorted);
        for (int w : a) {
            if (Arrays.binarySearch(sorted, w) >= 0) {
                return w;
            }
        }
        return -1;
    }

    /**
     * The code a group's leader sends for its ranks' {@code high} flags in a merge, from the
     * flags' maximum and the maximum of their negations over the group: 0 all false, 1 all true,
     * 2 mixed.
     */
    public static long highCode(long anyHigh, long anyLow) {
        return anyHigh != 0 && anyLow != 0 ? 2 : anyHigh;
    }

    /** Why a merge cannot go on, from both groups' codes, or null. */
    public static String mergeDisagrees(long localCode, long remoteCode) {
        if (localCode == 2 || remoteCode == 2) {
            return "merge: the ranks of " + (localCode == 2 ? "this" : "the remote") + " group passed different"
                    + " values of high; every rank of a group must pass the same";
        }
        return null;
    }

    /**
     * Whether the local group comes first in a merge: the low group (high false) does; when both
     * pass the same, the group whose leader has the lower world rank.
     */
    public static boolean localFirst(long localCode, long remoteCode, int localLeaderWorld, int remoteLeaderWorld) {
        if (localCode != remoteCode) {
            return localCode == 0;
        }
        return localLeaderWorld < remoteLeaderWorld;
    }

    /** The merged group (world ranks): the first group's ranks, then the other's. */
    public static int[] merged(int[] localGroup, int[] remoteGroup, boolean localFirst) {
        int[] first = localFirst ? localGroup : remoteGroup;
        int[] second = localFirst ? remoteGroup : localGroup;
        int[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    /**
     * Checks the ranks of a member-only creation against the parent's size and this rank; returns
     * why they are wrong, or null.
     */
    public static String badMembers(int[] ranks, int size, int rank) {
        if (ranks == null || ranks.length == 0) {
            return "createGroup: the group is empty";
        }
        boolean[] seen = new boolean[size];
        for (int r : ranks) {
            if (r < 0 || r >= size) {
                return "createGroup: rank " + r + " is not a rank of this communicator (0.." + (size - 1) + ")";
            }
            if (seen[r]) {
                return "createGroup: rank " + r + " is in the group twice";
            }
            seen[r] = true;
        }
        if (!seen[rank]) {
            return "createGroup: this rank (" + rank + ") is not in the group: only the group's members call it";
        }
        return null;
    }

    /** A member's request: {@code tag}, the group's size and hash, and its next free context. */
    public static long[] memberRequest(int tag, int[] worldRanks, long nextContext) {
        return new long[] {tag, worldRanks.length, Arrays.hashCode(worldRanks), nextContext};
    }

    /** Why a member's request differs from the first member's own, or null. */
    public static String memberDisagrees(long[] first, long[] member, int memberRank) {
        if (first[0] != member[0]) {
            return "createGroup: rank " + memberRank + " passed tag " + member[0] + " and the group's first rank tag "
                    + first[0] + "; every member must pass the same tag";
        }
        if (first[1] != member[1] || first[2] != member[2]) {
            return "createGroup: rank " + memberRank + " passed another group (" + member[1] + " ranks) than the"
                    + " group's first rank (" + first[1] + " ranks); every member must pass the same group";
        }
        return null;
    }
}

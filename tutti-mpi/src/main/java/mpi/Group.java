package mpi;

import java.util.Arrays;

/**
 * An ordered set of processes (MPI_Group): a communicator's ({@link Comm#getGroup}), or one made
 * from others ({@link #incl}, {@link #union}, ...). Kept as the processes' ranks in
 * {@link MPI#COMM_WORLD}, in the group's order; a group is local, so no call here communicates.
 */
public final class Group implements Freeable {
    /** The world ranks of the members, in group order; null once freed. */
    private int[] members;

    Group(int[] worldRanks) {
        this.members = worldRanks;
    }

    /** The world ranks of the members, in group order. */
    int[] members() throws MPIException {
        MPI.check();
        if (members == null) {
            throw Errors.error(MPI.ERR_GROUP, "the group has been freed");
        }
        return members;
    }

    /** Number of processes in the group (MPI_GROUP_SIZE). */
    public int getSize() throws MPIException {
        return members().length;
    }

    /** The calling process's rank in the group, or {@link MPI#UNDEFINED} if it is not a member (MPI_GROUP_RANK). */
    public int getRank() throws MPIException {
        return indexOf(members(), MPI.COMM_WORLD.getWorldRank());
    }

    /** Whether the group has been freed (the bindings' null group). */
    public boolean isNull() {
        return members == null;
    }

    /** Frees the group (MPI_GROUP_FREE): it is null afterwards. {@link MPI#GROUP_EMPTY} cannot be freed. */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (this == MPI.GROUP_EMPTY) {
            throw Errors.error(MPI.ERR_GROUP, "Group.free: MPI.GROUP_EMPTY is predefined and cannot be freed");
        }
        members = null;
    }

    /**
     * The ranks in {@code group2} of the processes of ranks {@code ranks1} in {@code group1}
     * (MPI_GROUP_TRANSLATE_RANKS): {@link MPI#UNDEFINED} for one not in {@code group2},
     * {@link MPI#PROC_NULL} for {@link MPI#PROC_NULL}.
     */
    public static int[] translateRanks(Group group1, int[] ranks1, Group group2) throws MPIException {
        int[] a = group1.members();
        int[] b = group2.members();
        int[] out = new int[ranks1.length];
        for (int i = 0; i < out.length; i++) {
            int r = ranks1[i];
            if (r == MPI.PROC_NULL) {
                out[i] = MPI.PROC_NULL;
            } else {
                checkRank(a, r, "Group.translateRanks");
                out[i] = indexOf(b, a[r]);
            }
        }
        return out;
    }

    /**
     * {@link MPI#IDENT} if the groups have the same members in the same order, {@link MPI#SIMILAR}
     * if in another order, else {@link MPI#UNEQUAL} (MPI_GROUP_COMPARE).
     */
    public static int compare(Group group1, Group group2) throws MPIException {
        return compare(group1.members(), group2.members());
    }

    static int compare(int[] a, int[] b) {
        if (Arrays.equals(a, b)) {
            return MPI.IDENT;
        }
        if (a.length != b.length) {
            return MPI.UNEQUAL;
        }
        int[] x = a.clone();
        int[] y = b.clone();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y) ? MPI.SIMILAR : MPI.UNEQUAL;
    }

    /** The members of {@code group1}, then those of {@code group2} not in it (MPI_GROUP_UNION). */
    public static Group union(Group group1, Group group2) throws MPIException {
        int[] a = group1.members();
        int[] b = group2.members();
        int[] out = Arrays.copyOf(a, a.length + b.length);
        int n = a.length;
        for (int w : b) {
            if (indexOf(a, w) == MPI.UNDEFINED) {
                out[n++] = w;
            }
        }
        return new Group(Arrays.copyOf(out, n));
    }

    /** The members of {@code group1} that are in {@code group2}, in {@code group1}'s order (MPI_GROUP_INTERSECTION). */
    public static Group intersection(Group group1, Group group2) throws MPIException {
        return filter(group1.members(), group2.members(), true);
    }

    /** The members of {@code group1} that are not in {@code group2}, in {@code group1}'s order (MPI_GROUP_DIFFERENCE). */
    public static Group difference(Group group1, Group group2) throws MPIException {
        return filter(group1.members(), group2.members(), false);
    }

    private static Group filter(int[] a, int[] b, boolean in) {
        return new Group(Arrays.stream(a).filter(w -> (indexOf(b, w) != MPI.UNDEFINED) == in).toArray());
    }

    /**
     * The members of ranks {@code ranks}, in that order (MPI_GROUP_INCL); a rank out of the group or
     * given twice fails with {@link MPI#ERR_RANK}.
     */
    public Group incl(int[] ranks) throws MPIException {
        int[] a = members();
        checkDistinct(a, ranks, "Group.incl");
        int[] out = new int[ranks.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = a[ranks[i]];
        }
        return new Group(out);
    }

    /** The members but those of ranks {@code ranks}, in group order (MPI_GROUP_EXCL); bad ranks as {@link #incl}. */
    public Group excl(int[] ranks) throws MPIException {
        int[] a = members();
        checkDistinct(a, ranks, "Group.excl");
        boolean[] out = new boolean[a.length];
        for (int r : ranks) {
            out[r] = true;
        }
        int[] kept = new int[a.length - ranks.length];
        int n = 0;
        for (int i = 0; i < a.length; i++) {
            if (!out[i]) {
                kept[n++] = a[i];
            }
        }
        return new Group(kept);
    }

    /**
     * The members of the ranks of {@code ranges}, each {first, last, stride}, in that order
     * (MPI_GROUP_RANGE_INCL).
     */
    public Group rangeIncl(int[][] ranges) throws MPIException {
        return incl(expand(members(), ranges, "Group.rangeIncl"));
    }

    /** The members but those of the ranks of {@code ranges}, each {first, last, stride} (MPI_GROUP_RANGE_EXCL). */
    public Group rangeExcl(int[][] ranges) throws MPIException {
        return excl(expand(members(), ranges, "Group.rangeExcl"));
    }

    private static int[] expand(int[] a, int[][] ranges, String call) throws MPIException {
        int[] out = new int[0];
        int n = 0;
        for (int[] t : ranges) {
            if (t == null || t.length < 3 || t[2] == 0) {
                throw Errors.error(MPI.ERR_ARG, call + ": a range is {first, last, stride} with a stride other than 0");
            }
            int first = t[0];
            int last = t[1];
            int stride = t[2];
            checkRank(a, first, call);
            checkRank(a, last, call);
            if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
                throw Errors.error(MPI.ERR_ARG, call + ": the range {" + first + ", " + last + ", " + stride
                        + "} is empty: the stride goes away from its last rank");
            }
            for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, Math.max(4, 2 * n));
                }
                out[n++] = r;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private static void checkDistinct(int[] a, int[] ranks, String call) throws MPIException {
        boolean[] seen = new boolean[a.length];
        for (int r : ranks) {
            checkRank(a, r, call);
            if (seen[r]) {
                throw Errors.error(MPI.ERR_RANK, call + ": rank " + r + " is given twice");
            }
            seen[r] = true;
        }
    }

    private static void checkRank(int[] a, int r, String call) throws MPIException {
        if (r < 0 || r >= a.length) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid rank " + r + ": the group has " + a.length + " processes");
        }
    }

    static int indexOf(int[] a, int w) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == w) {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    @Override
    public String toString() {
        return members == null ? "Group[freed]" : "Group" + Arrays.toString(members);
    }
}

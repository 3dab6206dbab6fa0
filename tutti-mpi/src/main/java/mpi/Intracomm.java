package mpi;

import io.tutti.Communicator;
import io.tutti.TuttiException;
import java.nio.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A communicator of one group of ranks, as {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are:
 * the point-to-point calls and collectives of {@link Comm}, the scans, and the making of new
 * communicators: {@link #split}, {@link #splitType}, {@link #create}, and the topologies
 * ({@link #createCart}, {@link #createGraph}, {@link #createDistGraph}). Every new communicator is
 * one of Tutti's {@link Communicator#split}s of this one.
 */
public class Intracomm extends Comm {
    /** A predefined communicator, bound at {@link MPI#Init}. */
    Intracomm(String label, String name) {
        super(label, name);
    }

    /** A communicator over {@code c} made from {@code parent}; null {@code c}: the null communicator. */
    Intracomm(Communicator c, Comm parent) {
        super(c, parent);
    }

    /** A new communicator of the same ranks, with a message space of its own (MPI_COMM_DUP). Collective. */
    @Override
    public Intracomm dup() throws MPIException {
        return new Intracomm(dupTutti("dup"), this).copyAttributes(this);
    }

    /** Duplicates at once: Tutti has no nonblocking split ({@link #getRequest} is complete) (MPI_COMM_IDUP). */
    @Override
    public Intracomm iDup() throws MPIException {
        return dup();
    }

    /** Duplicates as {@link #dup} does; the info is not kept (MPI_COMM_DUP_WITH_INFO). */
    @Override
    public Intracomm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    @Override
    public Intracomm clone() {
        return (Intracomm) super.clone();
    }

    /**
     * Splits the ranks by {@code colour}, 0 or more; within a colour, new ranks follow {@code key},
     * then the old rank (MPI_COMM_SPLIT). A rank with colour {@link MPI#UNDEFINED} gets a null
     * communicator ({@link #isNull()}). Collective.
     */
    public final Intracomm split(int colour, int key) throws MPIException {
        live();
        if (colour < 0 && colour != MPI.UNDEFINED) {
            throw Errors.error(MPI.ERR_ARG, "split: invalid colour " + colour + ": 0 or more, or MPI.UNDEFINED");
        }
        return new Intracomm(split(colour == MPI.UNDEFINED ? Communicator.UNDEFINED : colour, key, "split"), this);
    }

    /** Tutti's split of this communicator, for {@code call}. */
    final Communicator split(int colour, int key, String call) throws MPIException {
        Communicator c = live();
        try {
            return c.split(colour, key);
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /**
     * Splits the ranks by what they share (MPI_COMM_SPLIT_TYPE): with {@link Comm#TYPE_SHARED}, the
     * ranks on one host (of one {@link MPI#getProcessorName}), which share memory; within a host,
     * ranks follow {@code key}, then the old rank. {@link MPI#UNDEFINED} gets a null communicator.
     * The info is ignored. Collective.
     */
    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        Communicator c = live();
        if (splitType != TYPE_SHARED && splitType != MPI.UNDEFINED) {
            throw Errors.error(MPI.ERR_ARG, "splitType: invalid type " + splitType + ": Comm.TYPE_SHARED or"
                    + " MPI.UNDEFINED");
        }
        // every rank's host name, in a fixed-size field, so that one allgather tells each its colour
        int width = 256 + 2;
        byte[] mine = new byte[width];
        byte[] name = MPI.hostName().getBytes(StandardCharsets.UTF_8);
        int n = Math.min(name.length, width - 2);
        mine[0] = (byte) (n >> 8);
        mine[1] = (byte) n;
        System.arraycopy(name, 0, mine, 2, n);
        byte[] all = new byte[width * c.size()];
        try {
            c.allgather(mine, all, width, io.tutti.Datatype.BYTE);
        } catch (TuttiException e) {
            throw Errors.of(e, "splitType");
        }
        int colour = 0;
        while (!Arrays.equals(all, colour * width, colour * width + width, mine, 0, width)) {
            colour++;
        }
        return new Intracomm(split(splitType == MPI.UNDEFINED ? Communicator.UNDEFINED : colour, key, "splitType"),
                this);
    }

    /**
     * A communicator of the processes of {@code group}, in its order (MPI_COMM_CREATE); the group is a
     * subset of this communicator's, the same at every rank. A rank not in it gets a null
     * communicator. Collective over this communicator.
     */
    public final Intracomm create(Group group) throws MPIException {
        live();
        int index = subgroupIndex(group, "create");
        return new Intracomm(split(index == MPI.UNDEFINED ? Communicator.UNDEFINED : 0, index, "create"), this);
    }

    /**
     * A communicator of the processes of {@code group}, called by those only (MPI_COMM_CREATE_GROUP).
     * Supported when the group has every rank of this communicator (then it is {@link #create});
     * for a proper subset, Tutti has no communicator made by some of its parent's ranks alone, so
     * this fails with {@link MPI#ERR_UNSUPPORTED_OPERATION}: use {@link #create} or {@link #split},
     * called by every rank.
     */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        live();
        subgroupIndex(group, "createGroup");
        if (group.getSize() != getSize()) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, "createGroup: a group of " + group.getSize() + " of the "
                    + getSize() + " ranks is not supported: Tutti makes communicators with every rank of the parent"
                    + " taking part; call create(group) (or split) on every rank of the parent instead");
        }
        return create(group);
    }

    /** This rank's index in {@code group}, a subset of this communicator's group, or {@link MPI#UNDEFINED}. */
    private int subgroupIndex(Group group, String call) throws MPIException {
        if (group == null) {
            throw Errors.error(MPI.ERR_GROUP, call + ": the group is null");
        }
        int[] g = group.members();
        int[] mine = members();
        for (int w : g) {
            if (Group.indexOf(mine, w) == MPI.UNDEFINED) {
                throw Errors.error(MPI.ERR_GROUP, call + ": the group has world rank " + w + ", which is not in "
                        + this);
            }
        }
        return Group.indexOf(g, getWorldRank());
    }

    /** Rank r gets the combination with {@code op} of ranks 0 to r's {@code sendbuf} (MPI_SCAN). */
    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(sendbuf, recvbuf, count, type, op, false, false, "scan");
    }

    /** Scan in place (MPI_IN_PLACE): {@code recvbuf} is each rank's input and result. */
    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(Communicator.IN_PLACE, recvbuf, count, type, op, false, false, "scan");
    }

    /** Starts a scan of direct buffers (MPI_ISCAN). */
    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return scan(sendbuf, recvbuf, count, type, op, false, true, "iScan");
    }

    /** Starts a scan in place (MPI_ISCAN). */
    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return scan(Communicator.IN_PLACE, buf, count, type, op, false, true, "iScan");
    }

    /**
     * Rank r gets the combination with {@code op} of ranks 0 to r - 1's {@code sendbuf} (MPI_EXSCAN);
     * rank 0's {@code recvbuf} is left as it was.
     */
    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(sendbuf, recvbuf, count, type, op, true, false, "exScan");
    }

    /** Exclusive scan in place (MPI_IN_PLACE): {@code buf} is each rank's input and result. */
    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        scan(Communicator.IN_PLACE, buf, count, type, op, true, false, "exScan");
    }

    /** Starts an exclusive scan of direct buffers (MPI_IEXSCAN). */
    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return scan(sendbuf, recvbuf, count, type, op, true, true, "iExScan");
    }

    /** Starts an exclusive scan in place (MPI_IEXSCAN). */
    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return scan(Communicator.IN_PLACE, buf, count, type, op, true, true, "iExScan");
    }
}

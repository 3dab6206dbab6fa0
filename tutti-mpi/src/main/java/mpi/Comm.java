package mpi;

import io.tutti.Communicator;
import io.tutti.TuttiException;
import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

/**
 * A communicator: a group of ranks with its own message space, over one of Tutti's
 * {@link Communicator}s. {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are the predefined ones;
 * making others ({@code dup}, {@code split}, ...) is a later step (see {@code docs/guide/mpi-api.md}).
 *
 * <p>Buffers are Java primitive arrays or {@code java.nio} buffers (heap or direct), counted in items
 * of the {@link Datatype} given: an array from its first element, a heap buffer from its array
 * offset, a direct buffer from its first element; the position is ignored, as the bindings do, so
 * an offset is given with {@link MPI#slice}. Ranks are those of this communicator; {@link MPI#PROC_NULL}
 * is a rank that sends and receives nothing, {@link MPI#ANY_SOURCE} and {@link MPI#ANY_TAG} match
 * anything on receives.
 *
 * <p>The blocking calls on {@code byte[] short[] int[] long[] float[] double[]} arrays, on heap
 * buffers of those and on direct buffers the program reuses allocate nothing but the {@link Status}
 * a receive returns. A communicator is used by one thread at a time ({@link MPI#THREAD_SERIALIZED}).
 */
public class Comm implements Freeable {
    private final String name;
    /** Tutti's communicator, from {@link MPI#Init} on. */
    private Communicator tutti;
    private final Region region = new Region();
    private final Region other = new Region();
    private final io.tutti.Status found = new io.tutti.Status();
    /** The received half of a sendRecvReplace, before it is copied over the buffer. */
    private byte[] replace = new byte[0];
    private MemorySegment replaceSegment = MemorySegment.ofArray(replace);

    Comm(String name) {
        this.name = name;
    }

    /** Binds this communicator to Tutti's, at {@link MPI#Init}. */
    final void bind(Communicator communicator) {
        this.tutti = communicator;
    }

    /** Tutti's communicator, once MPI is initialized and until it is finalized. */
    final Communicator live() throws MPIException {
        MPI.check();
        return tutti;
    }

    // ------------------------------------------------------------ size, rank

    /** Number of ranks in the communicator (MPI_COMM_SIZE). */
    public final int getSize() throws MPIException {
        return live().size();
    }

    /** This rank's number in the communicator, 0 to {@code getSize() - 1} (MPI_COMM_RANK). */
    public final int getRank() throws MPIException {
        return live().rank();
    }

    /** Whether this is the null communicator: never, for the predefined ones. */
    public final boolean isNull() {
        return false;
    }

    /**
     * Frees the communicator (MPI_COMM_FREE). The predefined communicators cannot be freed: MPI
     * refuses, and so does this, with {@link MPI#ERR_COMM}; there are no others yet.
     */
    @Override
    public final void free() throws MPIException {
        MPI.check();
        throw Errors.error(MPI.ERR_COMM, "Comm.free: " + name + " is predefined and cannot be freed");
    }

    // ------------------------------------------------------------ blocking point-to-point

    /**
     * Sends {@code count} items of {@code type} from {@code buf} to {@code dest} (MPI_SEND); returns
     * when the buffer may be reused.
     */
    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, "send");
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, "send");
        try {
            send(c, r, dest, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "send");
        }
    }

    /**
     * Sends in buffered mode (MPI_BSEND): the message is copied into the buffer attached with
     * {@link MPI#attachBuffer}, and the call returns at once; it fails with {@link MPI#ERR_BUFFER}
     * if the attached buffer has no room for it ({@code count} items plus
     * {@link MPI#BSEND_OVERHEAD} bytes, beside the buffered sends still in flight).
     */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, "bSend");
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, "bSend");
        try {
            MPI.bsendBuffer().send(c, r, dest, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "bSend");
        }
    }

    /**
     * Sends in synchronous mode (MPI_SSEND). Tutti has no synchronous send yet: this is a standard
     * {@link #send}, which may return before the receive has started for messages below Tutti's
     * eager limit. A program correct under MPI stays correct (a standard send may always be
     * synchronous or not); one that relies on the synchronisation itself does not get it.
     */
    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, "sSend");
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, "sSend");
        try {
            send(c, r, dest, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "sSend");
        }
    }

    /**
     * Sends in ready mode (MPI_RSEND): the matching receive must already be posted. A standard
     * send, which MPI allows for ready mode, is what this does.
     */
    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, "rSend");
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, "rSend");
        try {
            send(c, r, dest, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "rSend");
        }
    }

    /**
     * Receives up to {@code count} items of {@code type} into {@code buf} from {@code source} (or
     * {@link MPI#ANY_SOURCE}) with {@code tag} (or {@link MPI#ANY_TAG}) (MPI_RECV). A longer message
     * fails with {@link MPI#ERR_TRUNCATE}. From {@link MPI#PROC_NULL} it returns at once, with
     * nothing received.
     */
    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        checkRecv(c, count, type, source, tag, "recv");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        Region r = region;
        r.resolve(buf, count, type, true, "recv");
        io.tutti.Status s = found;
        try {
            recv(c, r, source, tag, s);
        } catch (TuttiException e) {
            throw Errors.of(e, "recv");
        }
        r.received(s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Sends one buffer and receives into another at once (MPI_SENDRECV), without deadlock whatever
     * the other ranks do; either rank may be {@link MPI#PROC_NULL}. Returns the receive's status.
     */
    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
                                 Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag)
            throws MPIException {
        Communicator c = live();
        checkSend(c, sendcount, sendtype, dest, sendtag, "sendRecv");
        checkRecv(c, recvcount, recvtype, source, recvtag, "sendRecv");
        if (source == MPI.PROC_NULL) {
            send(sendbuf, sendcount, sendtype, dest, sendtag);
            return new Status().setProcNull();
        }
        if (dest == MPI.PROC_NULL) {
            return recv(recvbuf, recvcount, recvtype, source, recvtag);
        }
        Region out = region;
        Region in = other;
        out.resolve(sendbuf, sendcount, sendtype, false, "sendRecv");
        in.resolve(recvbuf, recvcount, recvtype, true, "sendRecv");
        io.tutti.Status s;
        try {
            s = c.sendrecv(out.data, out.offset, out.count, dest, sendtag, in.data, in.offset, in.count, source,
                    recvtag);
        } catch (TuttiException e) {
            throw Errors.of(e, "sendRecv");
        }
        in.received(s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Sends {@code buf} and receives into the same buffer (MPI_SENDRECV_REPLACE): up to {@code count}
     * items; a longer message fails with {@link MPI#ERR_TRUNCATE}. The received message is kept
     * apart (in memory of this communicator's, reused) until the send is done, then copied over.
     */
    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source,
                                        int recvtag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, sendtag, "sendRecvReplace");
        checkRecv(c, count, type, source, recvtag, "sendRecvReplace");
        if (source == MPI.PROC_NULL) {
            send(buf, count, type, dest, sendtag);
            return new Status().setProcNull();
        }
        if (dest == MPI.PROC_NULL) {
            return recv(buf, count, type, source, recvtag);
        }
        Region r = region;
        r.resolve(buf, count, type, false, "sendRecvReplace");
        int n = (int) r.byteCount();
        if (replace.length < n) {
            replace = new byte[Math.max(n, 2 * replace.length)];
            replaceSegment = MemorySegment.ofArray(replace);
        }
        io.tutti.Status s;
        try {
            s = c.sendrecv(r.data, r.offset, r.count, dest, sendtag, replace, 0, n, source, recvtag);
        } catch (TuttiException e) {
            throw Errors.of(e, "sendRecvReplace");
        }
        r.copyIn(replaceSegment, s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Waits until a message from {@code source} with {@code tag} (wildcards allowed) can be received
     * and returns its status, without receiving it (MPI_PROBE); from {@link MPI#PROC_NULL}, at once.
     */
    public final Status probe(int source, int tag) throws MPIException {
        Communicator c = live();
        checkSource(c, source, "probe");
        checkRecvTag(tag, "probe");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        io.tutti.Status s;
        try {
            s = c.probe(source, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "probe");
        }
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * The status of a message from {@code source} with {@code tag} that can be received now, or null
     * if there is none (MPI_IPROBE); from {@link MPI#PROC_NULL}, a status at once.
     */
    public final Status iProbe(int source, int tag) throws MPIException {
        Communicator c = live();
        checkSource(c, source, "iProbe");
        checkRecvTag(tag, "iProbe");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        io.tutti.Status s;
        try {
            s = c.iprobe(source, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "iProbe");
        }
        return s == null ? null : new Status().set(s.source(), s.tag(), s.bytes());
    }

    // ------------------------------------------------------------ nonblocking point-to-point (direct buffers)

    /** Starts a standard-mode send of a direct buffer (MPI_ISEND); complete it with the request. */
    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "iSend");
    }

    /**
     * Starts a buffered-mode send (MPI_IBSEND): the message is copied into the attached buffer at
     * once, so the request is complete when returned (see {@link #bSend}).
     */
    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, "ibSend");
        if (dest != MPI.PROC_NULL) {
            Region r = region;
            r.resolve(buf, count, type, false, "ibSend");
            try {
                MPI.bsendBuffer().send(c, r, dest, tag);
            } catch (TuttiException e) {
                throw Errors.of(e, "ibSend");
            }
        }
        return Request.done(new Status().set(dest, tag, 0));
    }

    /**
     * Starts a synchronous-mode send (MPI_ISSEND). Tutti has no synchronous mode: this is
     * {@link #iSend}, whose request may complete before the receive has started (see {@link #sSend}).
     */
    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "isSend");
    }

    /** Starts a ready-mode send (MPI_IRSEND): a standard-mode send, which MPI allows. */
    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "irSend");
    }

    private Request startSend(Buffer buf, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, call);
        if (dest == MPI.PROC_NULL) {
            return Request.done(new Status().setProcNull());
        }
        Region r = region;
        r.resolve(buf, count, type, false, call);
        Request request;
        try {
            request = new Request(c.isend(r.slice, dest, tag));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        request.sendBuf = buf;
        return request;
    }

    /**
     * Starts a receive into a direct buffer (MPI_IRECV); its wait returns the status, and fails with
     * {@link MPI#ERR_TRUNCATE} if the message is longer than the buffer.
     */
    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkRecv(c, count, type, source, tag, "iRecv");
        if (source == MPI.PROC_NULL) {
            return Request.done(new Status().setProcNull());
        }
        Region r = region;
        r.resolve(buf, count, type, true, "iRecv");
        Request request;
        try {
            request = new Request(c.irecv(r.slice, source, tag));
        } catch (TuttiException e) {
            throw Errors.of(e, "iRecv");
        }
        request.recvBuf = buf;
        return request;
    }

    // ------------------------------------------------------------ persistent point-to-point (direct buffers)

    /** A persistent standard-mode send of a direct buffer (MPI_SEND_INIT): {@link Prequest#start()} sends it. */
    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "sendInit");
    }

    /**
     * A persistent buffered-mode send (MPI_BSEND_INIT): each start copies the buffer's contents into
     * the attached buffer, which completes it (see {@link #bSend}).
     */
    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, "bSendInit");
        Region own = new Region();
        Prequest p = new Prequest(() -> {
            if (dest != MPI.PROC_NULL) {
                own.resolve(buf, count, type, false, "Prequest.start");
                try {
                    MPI.bsendBuffer().send(c, own, dest, tag);
                } catch (TuttiException e) {
                    throw Errors.of(e, "Prequest.start");
                }
            }
        });
        p.early = new Status().set(dest, tag, 0);
        p.sendBuf = buf;
        return p;
    }

    /**
     * A persistent synchronous-mode send (MPI_SSEND_INIT): a persistent standard-mode send, as Tutti
     * has no synchronous mode (see {@link #sSend}).
     */
    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "sSendInit");
    }

    /** A persistent ready-mode send (MPI_RSEND_INIT): a persistent standard-mode send, which MPI allows. */
    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "rSendInit");
    }

    private Prequest persistentSend(Buffer buf, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, call);
        Prequest p;
        if (dest == MPI.PROC_NULL) {
            p = new Prequest((io.tutti.Request) null);
            p.early = new Status().setProcNull();
        } else {
            Region r = region;
            r.resolve(buf, count, type, false, call);
            try {
                p = new Prequest(c.sendInit(r.slice, dest, tag));
            } catch (TuttiException e) {
                throw Errors.of(e, call);
            }
        }
        p.sendBuf = buf;
        return p;
    }

    /** A persistent receive into a direct buffer (MPI_RECV_INIT): {@link Prequest#start()} posts it. */
    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkRecv(c, count, type, source, tag, "recvInit");
        Prequest p;
        if (source == MPI.PROC_NULL) {
            p = new Prequest((io.tutti.Request) null);
            p.early = new Status().setProcNull();
        } else {
            Region r = region;
            r.resolve(buf, count, type, true, "recvInit");
            try {
                p = new Prequest(c.recvInit(r.slice, source, tag));
            } catch (TuttiException e) {
                throw Errors.of(e, "recvInit");
            }
        }
        p.recvBuf = buf;
        return p;
    }

    // ------------------------------------------------------------ Tutti's calls for a region

    private static void send(Communicator c, Region r, int dest, int tag) {
        switch (r.data) {
            case byte[] a -> c.send(a, r.offset, r.count, dest, tag);
            case int[] a -> c.send(a, r.offset, r.count, dest, tag);
            case double[] a -> c.send(a, r.offset, r.count, dest, tag);
            case long[] a -> c.send(a, r.offset, r.count, dest, tag);
            case float[] a -> c.send(a, r.offset, r.count, dest, tag);
            case short[] a -> c.send(a, r.offset, r.count, dest, tag);
            default -> c.send(r.slice, dest, tag);
        }
    }

    private static void recv(Communicator c, Region r, int source, int tag, io.tutti.Status s) {
        switch (r.data) {
            case byte[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case int[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case double[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case long[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case float[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case short[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            default -> c.recv(r.slice, source, tag, s);
        }
    }

    // ------------------------------------------------------------ argument checks, with MPI's error classes

    private static void checkSend(Communicator c, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        checkCount(count, type, call);
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= c.size())) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid destination rank " + dest + ": this communicator has "
                    + c.size() + " ranks (0.." + (c.size() - 1) + "), or MPI.PROC_NULL");
        }
        if (tag < 0) {
            throw Errors.error(MPI.ERR_TAG, call + ": invalid tag " + tag + ": a send's tag is 0 or more"
                    + " (MPI.ANY_TAG is for receives)");
        }
    }

    private static void checkRecv(Communicator c, int count, Datatype type, int source, int tag, String call)
            throws MPIException {
        checkCount(count, type, call);
        checkSource(c, source, call);
        checkRecvTag(tag, call);
    }

    private static void checkCount(int count, Datatype type, String call) throws MPIException {
        if (count < 0) {
            throw Errors.error(MPI.ERR_COUNT, call + ": invalid count " + count + ": it is 0 or more");
        }
        if (type == null || type.isNull()) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the datatype is " + (type == null ? "null" : "MPI.DATATYPE_NULL"));
        }
    }

    private static void checkSource(Communicator c, int source, String call) throws MPIException {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= c.size())) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid source rank " + source + ": this communicator has "
                    + c.size() + " ranks (0.." + (c.size() - 1) + "), MPI.ANY_SOURCE or MPI.PROC_NULL");
        }
    }

    private static void checkRecvTag(int tag, String call) throws MPIException {
        if (tag < 0 && tag != MPI.ANY_TAG) {
            throw Errors.error(MPI.ERR_TAG, call + ": invalid tag " + tag + ": 0 or more, or MPI.ANY_TAG");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}

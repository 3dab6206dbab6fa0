package io.tutti.transport;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RemoteTransport} between ranks that are threads of one JVM: each record is copied into a
 * queue of the destination. It exercises the engine's network path (outboxes, DATA packets,
 * deposit into the inbound ring, flush at close) without sockets. At most {@link #WINDOW} records
 * may wait at a destination, so that the engine's flow control is exercised too.
 */
public final class InProcessTransport implements RemoteTransport {
    static final int WINDOW = 64;
    static final int MAX_RECORD = 8192;

    private static final Map<Integer, InProcessTransport[]> JOBS = new ConcurrentHashMap<>();
    /** Records sent by every instance, so that tests can tell the network path was taken. */
    public static final AtomicLong RECORDS = new AtomicLong();

    private record Arrival(int source, byte[] bytes, InProcessTransport sender) {
    }

    private final int rank;
    private final int jobKey;
    private final InProcessTransport[] job;
    private final ConcurrentLinkedQueue<Arrival> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Records this rank sent that their destination has not taken yet. */
    private final AtomicLong unacknowledged = new AtomicLong();
    private volatile boolean closed;

    private InProcessTransport(RemoteTransportProvider.Context c) {
        this.rank = c.rank();
        this.jobKey = c.wireJobId();
        this.job = JOBS.computeIfAbsent(jobKey, k -> new InProcessTransport[c.size()]);
        synchronized (job) {
            job[rank] = this;
        }
    }

    /** Registered through META-INF/services for the tests of tutti-core. */
    public static final class Provider implements RemoteTransportProvider {
        @Override
        public String name() {
            return "inproc";
        }

        @Override
        public RemoteTransport open(Context context) {
            return new InProcessTransport(context);
        }
    }

    @Override
    public void connect() {
        synchronized (job) {
            for (int r = 0; r < job.length; r++) {
                if (job[r] == null) {
                    throw new IllegalStateException("rank " + r + " has not opened its transport before the fence");
                }
            }
        }
    }

    @Override
    public int maxRecordLength() {
        return MAX_RECORD;
    }

    @Override
    public boolean canSend(int dest) {
        return job[dest].queued.get() < WINDOW;
    }

    @Override
    public void send(int dest, MemorySegment record, long offset, int length) {
        if (length > MAX_RECORD) {
            throw new IllegalArgumentException("record of " + length + " bytes exceeds " + MAX_RECORD);
        }
        byte[] copy = new byte[length];
        MemorySegment.copy(record, offset, MemorySegment.ofArray(copy), 0, length);
        unacknowledged.incrementAndGet();
        RECORDS.incrementAndGet();
        InProcessTransport to = job[dest];
        to.queued.incrementAndGet();
        to.inbox.add(new Arrival(rank, copy, this));
    }

    @Override
    public int poll(Sink sink) {
        int work = 0;
        Arrival a;
        while ((a = inbox.peek()) != null) {
            if (!sink.accept(a.source(), MemorySegment.ofArray(a.bytes()), 0, a.bytes().length)) {
                break;
            }
            inbox.poll();
            queued.decrementAndGet();
            a.sender().unacknowledged.decrementAndGet();
            work++;
        }
        return work;
    }

    @Override
    public boolean quiescent() {
        return unacknowledged.get() == 0;
    }

    @Override
    public String failure(int peer) {
        InProcessTransport p = job[peer];
        return p != null && p.closed ? "rank " + peer + " has closed its end" : null;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (job) {
            for (InProcessTransport t : job) {
                if (t != null && !t.closed) {
                    return;
                }
            }
            JOBS.remove(jobKey, job);
        }
    }
}

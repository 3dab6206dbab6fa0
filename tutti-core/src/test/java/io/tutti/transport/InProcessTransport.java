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
 * may wait at a destination, so that the engine's flow control is exercised too. As the rails do,
 * it sends a payload from the sender's memory when asked ({@link #sendInPlace}: read when the
 * destination takes the record, which releases it) and receives a payload where the sink places it.
 */
public final class InProcessTransport implements RemoteTransport {
    static final int WINDOW = 64;
    public static final int MAX_RECORD = 8192;

    private static final Map<Integer, InProcessTransport[]> JOBS = new ConcurrentHashMap<>();
    /** Records sent by every instance, so that tests can tell the network path was taken. */
    public static final AtomicLong RECORDS = new AtomicLong();
    /** Payloads sent from the sender's memory, and payloads received where the sink placed them, by every instance. */
    public static final AtomicLong IN_PLACE = new AtomicLong();
    public static final AtomicLong PLACED = new AtomicLong();

    /** A record: its bytes, or its header's bytes and the payload where its sender keeps it ({@code mark} > 0). */
    private record Arrival(int source, byte[] bytes, InProcessTransport sender, MemorySegment payload, long offset,
                           int length, long mark) {
    }

    /** Per destination: the mark of the last payload sent in place, and how far the destination has taken them. */
    private final AtomicLong[] marks;
    private final AtomicLong[] released;
    private final Placement placement = new Placement();

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
        this.marks = new AtomicLong[c.size()];
        this.released = new AtomicLong[c.size()];
        for (int r = 0; r < c.size(); r++) {
            marks[r] = new AtomicLong();
            released[r] = new AtomicLong();
        }
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
        enqueue(dest, new Arrival(rank, copy, this, null, 0, 0, 0));
    }

    private void enqueue(int dest, Arrival a) {
        unacknowledged.incrementAndGet();
        RECORDS.incrementAndGet();
        InProcessTransport to = job[dest];
        to.queued.incrementAndGet();
        to.inbox.add(a);
    }

    @Override
    public long sendInPlace(int dest, MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
        if (headerLength + payloadLength > MAX_RECORD) {
            throw new IllegalArgumentException("record of " + (headerLength + payloadLength) + " bytes exceeds "
                    + MAX_RECORD);
        }
        if (!payload.isNative()) {
            send(dest, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
            return 0;
        }
        byte[] head = new byte[headerLength];
        MemorySegment.copy(header, headerOffset, MemorySegment.ofArray(head), 0, headerLength);
        long mark = marks[dest].incrementAndGet();
        IN_PLACE.incrementAndGet();
        enqueue(dest, new Arrival(rank, head, this, payload, payloadOffset, payloadLength, mark));
        return mark;
    }

    @Override
    public long released(int dest) {
        return released[dest].get();
    }

    @Override
    public int poll(Sink sink) {
        int work = 0;
        Arrival a;
        while ((a = inbox.peek()) != null) {
            if (!take(a, sink)) {
                break;
            }
            inbox.poll();
            queued.decrementAndGet();
            if (a.mark() > 0) {
                a.sender().released[rank].set(a.mark());
            }
            a.sender().unacknowledged.decrementAndGet();
            work++;
        }
        return work;
    }

    /** Hands a record to the sink: its payload read from the sender's memory now, straight to where the sink places it if it does. */
    private boolean take(Arrival a, Sink sink) {
        byte[] bytes = a.bytes();
        if (a.mark() > 0) {
            bytes = new byte[a.bytes().length + a.length()];
            System.arraycopy(a.bytes(), 0, bytes, 0, a.bytes().length);
            MemorySegment.copy(a.payload(), a.offset(), MemorySegment.ofArray(bytes), a.bytes().length, a.length());
        }
        MemorySegment record = MemorySegment.ofArray(bytes);
        int available = Math.min(bytes.length, 256);
        if (bytes.length > available && sink.place(a.source(), record, 0, available, bytes.length, placement)) {
            int header = placement.header;
            MemorySegment.copy(record, header, MemorySegment.ofAddress(placement.address).reinterpret(
                    bytes.length - header), 0, bytes.length - header);
            if (placement.view.remaining() != bytes.length - header) {
                throw new IllegalStateException("placement view of " + placement.view.remaining() + " bytes for a"
                        + " payload of " + (bytes.length - header));
            }
            PLACED.incrementAndGet();
            sink.placed(a.source(), record, 0, header);
            return true;
        }
        return sink.accept(a.source(), record, 0, bytes.length);
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

package io.tutti.sim;

import java.util.Arrays;

/**
 * The simulator's one priority queue, ordered by virtual time with ties in insertion order (first
 * in, first out), so that a run is deterministic. Built for the simulator's workloads, where
 * thousands to millions of events share a time (ranks in lock step under LogGP): a 4-ary min-heap
 * holds each distinct pending time once, and each time has a FIFO bucket of its events. Pushing
 * to a time already pending and popping from a non-empty bucket cost O(1) and touch sequential
 * memory; only a new time pays for the heap.
 *
 * <p>A bucket keeps its events in chunks of {@value #CHUNK} consecutive slots, so that draining a
 * bucket of a million events reads memory in order: with one linked node per event, recycled
 * nodes scattered each bucket over the whole pool (about 40 % of the pops of a binomial broadcast
 * jumped more than 16 nodes), a cache miss per event once the pool outgrows the last-level cache.
 *
 * <p>Everything lives in primitive arrays that grow by doubling and are recycled through free
 * lists, so that pushing and popping allocate nothing once the queue has reached its working size.
 */
public final class EventQueue {
    // heap of buckets: heapTime[i] is the time of bucket heapBucket[i]
    private long[] heapTime;
    private int[] heapBucket;
    private int heapSize;

    /** Events per chunk: a bucket's chunk holds this many payloads in consecutive slots (one cache line). */
    static final int CHUNK = 8;

    // buckets: a FIFO of chunks per distinct pending time; the next event to pop is slot
    // bucketHeadPos of chunk bucketHead, the next to push goes to slot bucketTailPos of chunk bucketTail
    private long[] bucketTime;
    private int[] bucketHead;
    private int[] bucketTail;
    private int[] bucketHeadPos;
    private int[] bucketTailPos;
    private int bucketsUsed;
    private int freeBucket = -1;

    // chunks: CHUNK payloads each in chunkData, the next chunk of the bucket (or of the free list) in chunkNext
    private long[] chunkData;
    private int[] chunkNext;
    private int chunksUsed;
    private int freeChunk = -1;

    // time -> bucket, open addressing with linear probing; slot empty when bucket is -1
    private long[] mapTime;
    private int[] mapBucket;
    private int mapMask;
    private int mapSize;

    // the bucket pushed to last: lock-step pushes mostly hit it, skipping the map
    private long lastPushTime = Long.MIN_VALUE;
    private int lastPushBucket = -1;

    private int size;
    private long pushed;
    private long lastTime;
    private long lastData;

    /** A queue with room for {@code capacity} events before it first grows. */
    public EventQueue(int capacity) {
        int c = Math.max(16, capacity / CHUNK + 16);
        heapTime = new long[16];
        heapBucket = new int[16];
        bucketTime = new long[16];
        bucketHead = new int[16];
        bucketTail = new int[16];
        bucketHeadPos = new int[16];
        bucketTailPos = new int[16];
        chunkData = new long[c * CHUNK];
        chunkNext = new int[c];
        mapTime = new long[64];
        mapBucket = new int[64];
        Arrays.fill(mapBucket, -1);
        mapMask = 63;
    }

    /** Pending events. */
    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Events pushed since creation. */
    public long pushed() {
        return pushed;
    }

    /** Adds an event at virtual time {@code t} with payload {@code payload}. */
    public void push(long t, long payload) {
        int b;
        if (t == lastPushTime && lastPushBucket >= 0) {
            b = lastPushBucket;
        } else {
            b = find(t);
            if (b < 0) {
                b = newBucket(t);
            }
            lastPushTime = t;
            lastPushBucket = b;
        }
        int tail = bucketTail[b];
        int pos = bucketTailPos[b];
        if (pos == CHUNK) {
            int c = newChunk();
            chunkNext[tail] = c;
            bucketTail[b] = c;
            tail = c;
            pos = 0;
        }
        chunkData[tail * CHUNK + pos] = payload;
        bucketTailPos[b] = pos + 1;
        size++;
        pushed++;
    }

    /**
     * Removes the earliest event; read it with {@link #time()} and {@link #payload()}. The queue
     * must not be empty.
     */
    public void pop() {
        int b = heapBucket[0];
        int head = bucketHead[b];
        int pos = bucketHeadPos[b];
        lastTime = heapTime[0];
        lastData = chunkData[head * CHUNK + pos];
        pos++;
        size--;
        if (head != bucketTail[b] || pos != bucketTailPos[b]) {
            if (pos == CHUNK) {
                // the chunk is drained: its successor holds the bucket's next event
                bucketHead[b] = chunkNext[head];
                freeChunk(head);
                pos = 0;
            }
            bucketHeadPos[b] = pos;
            return;
        }
        // the bucket is empty: retire its time
        freeChunk(head);
        remove(bucketTime[b]);
        bucketTail[b] = freeBucket;
        freeBucket = b;
        if (lastPushBucket == b) {
            lastPushBucket = -1;
        }
        heapPopTop();
    }

    private int newChunk() {
        int c = freeChunk;
        if (c >= 0) {
            freeChunk = chunkNext[c];
        } else {
            if (chunksUsed == chunkNext.length) {
                chunkNext = Arrays.copyOf(chunkNext, chunksUsed * 2);
                chunkData = Arrays.copyOf(chunkData, chunksUsed * 2 * CHUNK);
            }
            c = chunksUsed++;
        }
        chunkNext[c] = -1;
        return c;
    }

    private void freeChunk(int c) {
        chunkNext[c] = freeChunk;
        freeChunk = c;
    }

    /**
     * Copies into {@code out} the payloads of up to {@code n} events of the earliest pending time,
     * the next to pop first, without removing them; returns how many.
     */
    public int peek(long[] out, int n) {
        if (heapSize == 0) {
            return 0;
        }
        int b = heapBucket[0];
        int c = bucketHead[b];
        int pos = bucketHeadPos[b];
        int tail = bucketTail[b];
        int tailPos = bucketTailPos[b];
        int k = 0;
        while (k < n && (c != tail || pos != tailPos)) {
            if (pos == CHUNK) {
                c = chunkNext[c];
                pos = 0;
            } else {
                out[k++] = chunkData[c * CHUNK + pos++];
            }
        }
        return k;
    }

    /** Time of the event last popped. */
    public long time() {
        return lastTime;
    }

    /** Payload of the event last popped. */
    public long payload() {
        return lastData;
    }

    private int newBucket(long t) {
        int b = freeBucket;
        if (b >= 0) {
            freeBucket = bucketTail[b];
        } else {
            if (bucketsUsed == bucketTime.length) {
                int c = bucketsUsed * 2;
                bucketTime = Arrays.copyOf(bucketTime, c);
                bucketHead = Arrays.copyOf(bucketHead, c);
                bucketTail = Arrays.copyOf(bucketTail, c);
                bucketHeadPos = Arrays.copyOf(bucketHeadPos, c);
                bucketTailPos = Arrays.copyOf(bucketTailPos, c);
            }
            b = bucketsUsed++;
        }
        int chunk = newChunk();
        bucketTime[b] = t;
        bucketHead[b] = chunk;
        bucketTail[b] = chunk;
        bucketHeadPos[b] = 0;
        bucketTailPos[b] = 0;
        put(t, b);
        heapPush(t, b);
        return b;
    }

    private static int hash(long t) {
        long h = t * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private int find(long t) {
        for (int i = hash(t) & mapMask; ; i = (i + 1) & mapMask) {
            int b = mapBucket[i];
            if (b < 0) {
                return -1;
            }
            if (mapTime[i] == t) {
                return b;
            }
        }
    }

    private void put(long t, int b) {
        if ((mapSize + 1) * 2 > mapMask + 1) {
            long[] ot = mapTime;
            int[] ob = mapBucket;
            mapTime = new long[ot.length * 2];
            mapBucket = new int[ot.length * 2];
            Arrays.fill(mapBucket, -1);
            mapMask = mapTime.length - 1;
            mapSize = 0;
            for (int i = 0; i < ot.length; i++) {
                if (ob[i] >= 0) {
                    put(ot[i], ob[i]);
                }
            }
        }
        int i = hash(t) & mapMask;
        while (mapBucket[i] >= 0) {
            i = (i + 1) & mapMask;
        }
        mapTime[i] = t;
        mapBucket[i] = b;
        mapSize++;
    }

    /** Removes t by backward-shift deletion, so that probe chains stay unbroken without tombstones. */
    private void remove(long t) {
        int i = hash(t) & mapMask;
        while (mapTime[i] != t || mapBucket[i] < 0) {
            i = (i + 1) & mapMask;
        }
        mapSize--;
        int hole = i;
        for (int j = (hole + 1) & mapMask; mapBucket[j] >= 0; j = (j + 1) & mapMask) {
            int home = hash(mapTime[j]) & mapMask;
            // move j into the hole unless its home lies cyclically in (hole, j]
            boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!stays) {
                mapTime[hole] = mapTime[j];
                mapBucket[hole] = mapBucket[j];
                hole = j;
            }
        }
        mapBucket[hole] = -1;
    }

    private void heapPush(long t, int b) {
        if (heapSize == heapTime.length) {
            heapTime = Arrays.copyOf(heapTime, heapSize * 2);
            heapBucket = Arrays.copyOf(heapBucket, heapSize * 2);
        }
        int i = heapSize++;
        while (i > 0) {
            int p = (i - 1) >>> 2;
            if (heapTime[p] <= t) {
                break;
            }
            heapTime[i] = heapTime[p];
            heapBucket[i] = heapBucket[p];
            i = p;
        }
        heapTime[i] = t;
        heapBucket[i] = b;
    }

    private void heapPopTop() {
        int n = --heapSize;
        if (n == 0) {
            return;
        }
        long t = heapTime[n];
        int b = heapBucket[n];
        int i = 0;
        while (true) {
            int c = (i << 2) + 1;
            if (c >= n) {
                break;
            }
            int m = c;
            long mt = heapTime[c];
            int end = Math.min(c + 4, n);
            for (int k = c + 1; k < end; k++) {
                if (heapTime[k] < mt) {
                    m = k;
                    mt = heapTime[k];
                }
            }
            if (t <= mt) {
                break;
            }
            heapTime[i] = mt;
            heapBucket[i] = heapBucket[m];
            i = m;
        }
        heapTime[i] = t;
        heapBucket[i] = b;
    }
}

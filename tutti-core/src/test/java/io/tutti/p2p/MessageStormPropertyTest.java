package io.tutti.p2p;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

/**
 * Random storms of point-to-point messages among 2 to 5 ranks (threads of this JVM), checked
 * byte for byte and against MPI's matching rules.
 *
 * <p>jqwik draws a seed and a rank count; everything else — communicators, messages, sizes across the
 * eager/rendezvous boundary, tags, buffer kinds, blocking or not, receive filters with wildcards,
 * receives posted before or after arrival — is a {@link Plan} every rank derives from that seed on its
 * own. A failure names the seed and the rank count (jqwik prints them as the falsifying sample) and
 * carries the plan.
 *
 * <p>Run time: each try is one job bounded by {@link #JOB_TIMEOUT} (a hung job is stopped and reported
 * as a failure); tries are few so the class stays within a few seconds to tens of seconds.
 *
 * <h2>Why every plan completes</h2>
 * Receives for the messages to one rank on one communicator are partitioned into classes that share a
 * filter, and the filter of a class matches exactly that class's messages (exact (source, tag); or
 * (source, ANY_TAG) for all of a source; or (ANY_SOURCE, tag) for all of a tag; or (ANY, ANY) for all),
 * with as many receives as messages. So whichever message a receive takes, the others still find one.
 * Blocking sends are used only where they cannot wait for a receive that is posted later: eager sizes,
 * or classes whose receives are all posted before the senders start.
 *
 * <h2>What is checked</h2>
 * Every message is received exactly once, by a receive whose filter it matches, with the right status
 * (source, tag, byte count) and exactly the sent bytes; nothing outside the received bytes changes;
 * send buffers are left intact. Non-overtaking: when a receive R got message m2 and an earlier-sent
 * message m1 from the same source on the same communicator also matches R, then m1 was received by a
 * receive posted before R.
 */
class MessageStormPropertyTest {
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(40);

    /** Back-pressure everywhere: a 4 KiB inbound ring, a 512-byte eager limit, 2 exchange slots of 4 KiB. */
    static final Config TINY = Config.from(Map.of(
            Config.envName(P2pConfig.EAGER_LIMIT), "512",
            Config.envName(P2pConfig.RING_CAPACITY), "4096",
            Config.envName(P2pConfig.EXCHANGE_CHUNK), "4096",
            Config.envName(P2pConfig.EXCHANGE_SLOTS), "2"), new Properties());

    @Property(tries = 25, shrinking = ShrinkingMode.OFF)
    void randomStormsDeliverEveryMessageIntactAndInOrder(@ForAll long seed,
                                                         @ForAll @IntRange(min = 2, max = 5) int ranks) {
        // single copy is a per-job choice of the plan (where the platform supports it)
        boolean singleCopy = new SplittableRandom(seed).nextInt(4) == 0;
        run(seed, ranks, Config.defaults().with(P2pConfig.SINGLE_COPY, singleCopy), "default config, singleCopy=" + singleCopy);
    }

    @Property(tries = 20, shrinking = ShrinkingMode.OFF)
    void stormsUnderBackPressureWithTinyRings(@ForAll long seed, @ForAll @IntRange(min = 2, max = 5) int ranks) {
        run(seed, ranks, TINY, "tiny config");
    }

    @Example
    void theTinyConfigIsTheOneAskedFor() {
        check(P2pConfig.from(TINY).eagerLimit() == 512 && P2pConfig.from(TINY).ringCapacity() == 4096 && P2pConfig.from(TINY).exchangeChunk() == 4096
                && P2pConfig.from(TINY).exchangeSlots() == 2, "tiny config: " + TINY);
    }

    @Example
    void aPlanIsAFunctionOfItsSeed() {
        for (long seed = 0; seed < 50; seed++) {
            for (int ranks = 2; ranks <= 5; ranks++) {
                Plan a = Plan.generate(seed, ranks, TINY);
                Plan b = Plan.generate(seed, ranks, TINY);
                check(a.describe().equals(b.describe()), "plan of seed " + seed + " differs between two ranks");
                for (int r = 0; r < ranks; r++) {
                    int expected = 0;
                    for (Msg m : a.msgs) {
                        expected += m.dst == r ? 1 : 0;
                    }
                    check(a.recvs.get(r).size() == expected, "one receive per message to rank " + r);
                }
            }
        }
    }

    /** The generator reaches every corner it is meant to (over a fixed range of seeds). */
    @Example
    void plansCoverTheSpace() {
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (Config config : List.of(Config.defaults(), TINY)) {
            int eager = P2pConfig.from(config).eagerLimit();
            for (long seed = 0; seed < 150; seed++) {
                for (int ranks = 2; ranks <= 5; ranks++) {
                    Plan p = Plan.generate(seed, ranks, config);
                    for (int c : p.color) {
                        seen.add(c < 0 ? "split UNDEFINED" : "split color");
                    }
                    for (Msg m : p.msgs) {
                        seen.add("send " + m.kind);
                        seen.add("comm " + COMM_NAMES[m.comm]);
                        seen.add(m.src == m.dst ? "to self" : "to other");
                        seen.add(m.size == 0 ? "size 0" : m.size == 1 ? "size 1" : m.size == eager ? "size eager"
                                : m.size == eager + 1 ? "size eager+1" : m.size == eager - 1 ? "size eager-1"
                                : m.size >= 250_000 ? "size >= 250000" : m.size > eager ? "size rendezvous"
                                : "size eager other");
                        seen.add(m.blocking ? (m.size > eager ? "blocking rendezvous send" : "blocking eager send")
                                : (m.size > eager ? "isend rendezvous" : "isend eager"));
                        seen.add(m.tag == Communicator.MAX_TAG ? "tag MAX_TAG" : "tag other");
                    }
                    for (List<Recv> rs : p.recvs) {
                        for (Recv v : rs) {
                            seen.add("recv " + v.kind);
                            seen.add(v.early ? "recv early" : v.blocking ? "recv late blocking" : "recv late irecv");
                            seen.add("filter " + (v.srcFilter == ANY ? "ANY" : "src") + "/"
                                    + (v.tagFilter == ANY ? "ANY" : "tag"));
                        }
                    }
                }
            }
        }
        List<String> expected = new ArrayList<>(List.of("split UNDEFINED", "split color", "to self", "to other",
                "size 0", "size 1", "size eager", "size eager+1", "size eager-1", "size >= 250000",
                "size rendezvous", "size eager other", "blocking rendezvous send", "blocking eager send",
                "isend rendezvous", "isend eager", "tag MAX_TAG", "recv early", "recv late blocking",
                "recv late irecv", "filter ANY/ANY", "filter ANY/tag", "filter src/ANY", "filter src/tag"));
        for (Kind k : Kind.values()) {
            expected.add("send " + k);
            expected.add("recv " + k);
        }
        for (String c : COMM_NAMES) {
            expected.add("comm " + c);
        }
        for (String e : expected) {
            check(seen.contains(e), "no plan has " + e + "; seen: " + seen);
        }
    }

    static void run(long seed, int ranks, Config config, String variant) {
        ThreadLauncher.Outcome o = ThreadLauncher.run(ranks, JOB_TIMEOUT, rank -> new RankRun(
                Plan.generate(seed, ranks, config), rank).run());
        if (!o.succeeded()) {
            ThreadLauncher.RankResult f = o.firstFailure();
            String what = f != null ? "rank " + f.rank() + " failed: " + f.failure()
                    : "timed out after " + JOB_TIMEOUT + " with ranks " + o.stillRunning() + " still running";
            AssertionError e = new AssertionError("storm seed=" + seed + " ranks=" + ranks + " (" + variant + "): "
                    + what + "\n" + Plan.generate(seed, ranks, config).describe());
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }

    static void check(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }

    // ================================================================== the plan

    static final int WORLD = 0;
    static final int DUP = 1;
    static final int SPLIT = 2;
    static final String[] COMM_NAMES = {"world", "dup", "split"};
    static final int ANY = -1;

    enum Kind {
        BYTES(1), SHORTS(2), INTS(4), LONGS(8), FLOATS(4), DOUBLES(8), HEAP_SEGMENT(1), NATIVE_SEGMENT(1),
        DIRECT_BUFFER(1);

        final int size;

        Kind(int size) {
            this.size = size;
        }

        boolean isArray() {
            return ordinal() <= DOUBLES.ordinal();
        }
    }

    /** One message: world ranks, the communicator, envelope, and how the sender holds and sends it. */
    record Msg(int id, int src, int dst, int comm, int tag, int size, Kind kind, int offset, int guard,
               boolean wideBacking, boolean blocking, int cls) {
    }

    /** One receive, posted by world rank {@code dst}; source filter in communicator ranks. */
    record Recv(int dst, int comm, int srcFilter, int tagFilter, int capacity, Kind kind, int offset, int guard,
                boolean wideBacking, boolean early, boolean blocking, int cls) {
        boolean matches(int commSource, int tag) {
            return (srcFilter == ANY || srcFilter == commSource) && (tagFilter == ANY || tagFilter == tag);
        }
    }

    static final class Plan {
        final long seed;
        final int ranks;
        final Config config;
        final int[] color;
        final int[] key;
        final List<int[]> groups = new ArrayList<>(); // per color: world ranks in split order
        final List<Msg> msgs = new ArrayList<>();
        /** Per world rank: its receives in posting order (early ones first). */
        final List<List<Recv>> recvs = new ArrayList<>();
        final int[] completion;

        private Plan(long seed, int ranks, Config config) {
            this.seed = seed;
            this.ranks = ranks;
            this.config = config;
            this.color = new int[ranks];
            this.key = new int[ranks];
            this.completion = new int[ranks];
        }

        int[] members(int comm, int worldRank) {
            if (comm != SPLIT) {
                int[] all = new int[ranks];
                for (int i = 0; i < ranks; i++) {
                    all[i] = i;
                }
                return all;
            }
            return color[worldRank] < 0 ? null : groups.get(color[worldRank]);
        }

        int commRank(int comm, int worldRank) {
            if (comm != SPLIT) {
                return worldRank;
            }
            int[] g = members(comm, worldRank);
            for (int i = 0; i < g.length; i++) {
                if (g[i] == worldRank) {
                    return i;
                }
            }
            throw new IllegalStateException("rank " + worldRank + " is not in its own split group");
        }

        static Plan generate(long seed, int ranks, Config config) {
            Plan p = new Plan(seed, ranks, config);
            SplittableRandom rnd = new SplittableRandom(seed);
            rnd.nextInt(4); // the single-copy choice is drawn from the same seed by the property
            // split: two colors, some ranks left out, keys that reorder
            List<Integer> colored = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                p.color[r] = rnd.nextInt(5) == 0 ? Communicator.UNDEFINED : rnd.nextInt(2);
                p.key[r] = rnd.nextInt(7) - 3;
                if (p.color[r] >= 0) {
                    colored.add(r);
                }
            }
            for (int c = 0; c < 2; c++) {
                final int cc = c;
                p.groups.add(java.util.stream.IntStream.range(0, ranks).filter(r -> p.color[r] == cc).boxed()
                        .sorted((a, b) -> p.key[a] != p.key[b] ? Integer.compare(p.key[a], p.key[b])
                                : Integer.compare(a, b))
                        .mapToInt(Integer::intValue).toArray());
            }

            int eager = P2pConfig.from(config).eagerLimit();
            int chunk = P2pConfig.from(config).exchangeChunk();
            int count = 3 + rnd.nextInt(10 * ranks);
            List<int[]> raw = new ArrayList<>(); // src, dst, comm, tag, size
            for (int i = 0; i < count; i++) {
                int comm = rnd.nextInt(3);
                int src;
                int dst;
                if (comm == SPLIT && !colored.isEmpty()) {
                    src = colored.get(rnd.nextInt(colored.size()));
                    int[] g = p.groups.get(p.color[src]);
                    dst = g[rnd.nextInt(g.length)];
                } else {
                    comm = comm == SPLIT ? WORLD : comm;
                    src = rnd.nextInt(ranks);
                    dst = rnd.nextInt(ranks);
                }
                int tag = rnd.nextInt(10) < 7 ? rnd.nextInt(4)
                        : rnd.nextBoolean() ? Communicator.MAX_TAG - rnd.nextInt(3) : rnd.nextInt(1 << 20);
                raw.add(new int[] {src, dst, comm, tag, size(rnd, eager, chunk)});
            }

            // receive classes per (dst, comm): a filter per message such that each filter matches its class only
            Map<List<Integer>, List<Integer>> classes = new LinkedHashMap<>(); // (dst, comm, srcF, tagF) -> msg ids
            Map<List<Integer>, Integer> modes = new LinkedHashMap<>();
            Map<List<Integer>, Boolean> bySource = new LinkedHashMap<>();
            for (int id = 0; id < raw.size(); id++) {
                int[] m = raw.get(id);
                List<Integer> group = List.of(m[1], m[2]);
                int mode = modes.computeIfAbsent(group, g -> rnd.nextInt(6));
                int commSrc = p.commRank(m[2], m[0]);
                int srcF;
                int tagF;
                switch (mode) {
                    case 0 -> { srcF = commSrc; tagF = m[3]; }                 // exact
                    case 1 -> { srcF = commSrc; tagF = ANY; }                  // ANY_TAG per source
                    case 2 -> { srcF = ANY; tagF = m[3]; }                     // ANY_SOURCE per tag
                    case 3 -> { srcF = ANY; tagF = ANY; }                      // everything
                    case 4 -> {                                                // per source: exact or ANY_TAG
                        boolean any = bySource.computeIfAbsent(List.of(m[1], m[2], 0, commSrc), k -> rnd.nextBoolean());
                        srcF = commSrc;
                        tagF = any ? ANY : m[3];
                    }
                    default -> {                                               // per tag: exact or ANY_SOURCE
                        boolean any = bySource.computeIfAbsent(List.of(m[1], m[2], 1, m[3]), k -> rnd.nextBoolean());
                        srcF = any ? ANY : commSrc;
                        tagF = m[3];
                    }
                }
                classes.computeIfAbsent(List.of(m[1], m[2], srcF, tagF), k -> new ArrayList<>()).add(id);
            }

            int[] clsOf = new int[raw.size()];
            boolean[] fullyEarly = new boolean[classes.size()];
            List<List<Recv>> early = new ArrayList<>();
            List<List<Recv>> late = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                early.add(new ArrayList<>());
                late.add(new ArrayList<>());
            }
            int cls = 0;
            for (Map.Entry<List<Integer>, List<Integer>> e : classes.entrySet()) {
                List<Integer> k = e.getKey();
                int maxSize = 0;
                int gcd = 0;
                for (int id : e.getValue()) {
                    clsOf[id] = cls;
                    maxSize = Math.max(maxSize, raw.get(id)[4]);
                    gcd = gcd(gcd, raw.get(id)[4]);
                }
                fullyEarly[cls] = rnd.nextInt(3) == 0;
                for (int n = 0; n < e.getValue().size(); n++) {
                    Kind kind = kindFor(rnd, gcd);
                    int extra = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(17);
                    int capacity = roundUp(maxSize + extra, kind.size);
                    boolean isEarly = fullyEarly[cls] || rnd.nextInt(10) < 3;
                    Recv rv = new Recv(k.get(0), k.get(1), k.get(2), k.get(3), capacity, kind, rnd.nextInt(4),
                            rnd.nextInt(3), rnd.nextBoolean(), isEarly, !isEarly && rnd.nextInt(10) < 4, cls);
                    (isEarly ? early : late).get(rv.dst()).add(rv);
                }
                cls++;
            }
            for (int r = 0; r < ranks; r++) {
                Collections.shuffle(early.get(r), new java.util.Random(rnd.nextLong()));
                Collections.shuffle(late.get(r), new java.util.Random(rnd.nextLong()));
                List<Recv> all = new ArrayList<>(early.get(r));
                all.addAll(late.get(r));
                p.recvs.add(all);
                p.completion[r] = rnd.nextInt(4);
            }
            for (int id = 0; id < raw.size(); id++) {
                int[] m = raw.get(id);
                boolean mayBlock = m[4] <= eager || fullyEarly[clsOf[id]];
                p.msgs.add(new Msg(id, m[0], m[1], m[2], m[3], m[4], kindFor(rnd, m[4]), rnd.nextInt(4),
                        rnd.nextInt(3), rnd.nextBoolean(), mayBlock && rnd.nextBoolean(), clsOf[id]));
            }
            return p;
        }

        static int size(SplittableRandom r, int eager, int chunk) {
            return switch (r.nextInt(14)) {
                case 0 -> 0;
                case 1 -> 1;
                case 2 -> 2 + r.nextInt(63);
                case 3 -> 8 * (1 + r.nextInt(64));
                case 4 -> eager - 1;
                case 5 -> eager;
                case 6 -> eager + 1;
                case 7 -> 65 + r.nextInt(eager - 64);
                case 8 -> eager + 2 + r.nextInt(3 * eager);
                case 9 -> chunk * (1 + r.nextInt(3)) + r.nextInt(3) - 1;
                case 10 -> 300_000 - r.nextInt(1024);
                case 11 -> r.nextInt(300_001);
                default -> 16_384 + r.nextInt(3) - 1;
            };
        }

        static Kind kindFor(SplittableRandom r, int sizeOrGcd) {
            Kind[] all = Kind.values();
            while (true) {
                Kind k = all[r.nextInt(all.length)];
                if (sizeOrGcd % k.size == 0) {
                    return k;
                }
            }
        }

        static int gcd(int a, int b) {
            return b == 0 ? a : gcd(b, a % b);
        }

        static int roundUp(int n, int m) {
            return (n + m - 1) / m * m;
        }

        String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append("plan: seed=").append(seed).append(" ranks=").append(ranks).append(" eager=")
                    .append(P2pConfig.from(config).eagerLimit()).append(" ring=").append(P2pConfig.from(config).ringCapacity()).append(" chunk=")
                    .append(P2pConfig.from(config).exchangeChunk()).append('x').append(P2pConfig.from(config).exchangeSlots())
                    .append(" split colors=").append(Arrays.toString(color)).append(" keys=")
                    .append(Arrays.toString(key)).append(" completion=").append(Arrays.toString(completion))
                    .append('\n');
            for (Msg m : msgs) {
                sb.append("  msg ").append(m.id).append(": ").append(m.src).append("->").append(m.dst).append(" on ")
                        .append(COMM_NAMES[m.comm]).append(" tag ").append(m.tag).append(", ").append(m.size)
                        .append(" B as ").append(m.kind).append(m.blocking ? ", blocking" : ", isend")
                        .append(", class ").append(m.cls).append('\n');
            }
            for (int r = 0; r < ranks; r++) {
                sb.append("  rank ").append(r).append(" posts:");
                int i = 0;
                for (Recv v : recvs.get(r)) {
                    sb.append(" [").append(i++).append(' ').append(COMM_NAMES[v.comm]).append(" src ")
                            .append(v.srcFilter == ANY ? "ANY" : v.srcFilter).append(" tag ")
                            .append(v.tagFilter == ANY ? "ANY" : v.tagFilter).append(" cap ").append(v.capacity)
                            .append(' ').append(v.kind).append(v.early ? " early" : v.blocking ? " late-blocking"
                                    : " late").append(']');
                }
                sb.append('\n');
            }
            return sb.toString();
        }
    }

    // ================================================================== buffers

    static final byte SENTINEL = (byte) 0xC3;
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The bytes of message {@code id}: its id (little-endian) in the first four, then seeded noise. */
    static byte[] content(long seed, int id, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id).nextBytes(b);
        for (int i = 0; i < Math.min(4, size); i++) {
            b[i] = (byte) (id >>> (8 * i));
        }
        return b;
    }

    /** A user buffer of some kind with a region of {@code bytes} bytes, sentinel-filled around it. */
    static final class Buf {
        final Kind kind;
        final int bytes;
        final int offsetElems;
        final int countElems;
        Object array;
        MemorySegment region;
        ByteBuffer buffer;
        MemorySegment whole;
        long regionAt;

        Buf(Kind kind, int bytes, int offset, int guard, boolean wideBacking, Arena arena) {
            this.kind = kind;
            this.bytes = bytes;
            this.offsetElems = offset;
            this.countElems = bytes / kind.size;
            int totalElems = offset + countElems + guard;
            switch (kind) {
                case BYTES -> whole = MemorySegment.ofArray((byte[]) (array = new byte[totalElems]));
                case SHORTS -> whole = MemorySegment.ofArray((short[]) (array = new short[totalElems]));
                case INTS -> whole = MemorySegment.ofArray((int[]) (array = new int[totalElems]));
                case LONGS -> whole = MemorySegment.ofArray((long[]) (array = new long[totalElems]));
                case FLOATS -> whole = MemorySegment.ofArray((float[]) (array = new float[totalElems]));
                case DOUBLES -> whole = MemorySegment.ofArray((double[]) (array = new double[totalElems]));
                case HEAP_SEGMENT -> whole = wideBacking ? MemorySegment.ofArray(new long[(totalElems + 7) / 8])
                        : MemorySegment.ofArray(new byte[totalElems]);
                case NATIVE_SEGMENT -> whole = arena.allocate(Math.max(1, totalElems), wideBacking ? 8 : 1);
                case DIRECT_BUFFER -> {
                    buffer = ByteBuffer.allocateDirect(totalElems);
                    whole = MemorySegment.ofBuffer(buffer);
                    buffer.position(offset).limit(offset + bytes);
                }
            }
            whole.fill(SENTINEL);
            regionAt = (long) offset * kind.size;
            if (!kind.isArray()) {
                region = whole.asSlice(regionAt, bytes);
            }
        }

        void put(byte[] data) {
            MemorySegment.copy(MemorySegment.ofArray(data), 0, whole, regionAt, data.length);
        }

        /** Null when the buffer holds {@code data} at the start of its region and sentinels everywhere else. */
        String verify(byte[] data) {
            MemorySegment got = whole.asSlice(regionAt, data.length);
            long at = got.mismatch(MemorySegment.ofArray(data));
            if (at >= 0) {
                return "byte " + at + " of " + data.length + " differs (" + got.get(ValueLayout.JAVA_BYTE, at)
                        + " instead of " + data[(int) at] + ")";
            }
            for (long i = 0; i < whole.byteSize(); i++) {
                if ((i < regionAt || i >= regionAt + data.length) && whole.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                    return "byte " + (i - regionAt) + " relative to the region (outside the " + data.length
                            + " message bytes) was overwritten";
                }
            }
            return null;
        }

        int intAt(int index) {
            return whole.get(INT_LE, regionAt + index);
        }

        void send(Communicator c, int dest, int tag) {
            switch (kind) {
                case BYTES -> c.send((byte[]) array, offsetElems, countElems, dest, tag);
                case SHORTS -> c.send((short[]) array, offsetElems, countElems, dest, tag);
                case INTS -> c.send((int[]) array, offsetElems, countElems, dest, tag);
                case LONGS -> c.send((long[]) array, offsetElems, countElems, dest, tag);
                case FLOATS -> c.send((float[]) array, offsetElems, countElems, dest, tag);
                case DOUBLES -> c.send((double[]) array, offsetElems, countElems, dest, tag);
                case HEAP_SEGMENT, NATIVE_SEGMENT -> c.send(region, dest, tag);
                case DIRECT_BUFFER -> c.send(buffer, dest, tag);
            }
        }

        Request isend(Communicator c, int dest, int tag) {
            return switch (kind) {
                case BYTES -> c.isend((byte[]) array, offsetElems, countElems, dest, tag);
                case SHORTS -> c.isend((short[]) array, offsetElems, countElems, dest, tag);
                case INTS -> c.isend((int[]) array, offsetElems, countElems, dest, tag);
                case LONGS -> c.isend((long[]) array, offsetElems, countElems, dest, tag);
                case FLOATS -> c.isend((float[]) array, offsetElems, countElems, dest, tag);
                case DOUBLES -> c.isend((double[]) array, offsetElems, countElems, dest, tag);
                case HEAP_SEGMENT, NATIVE_SEGMENT -> c.isend(region, dest, tag);
                case DIRECT_BUFFER -> c.isend(buffer, dest, tag);
            };
        }

        Status recv(Communicator c, int source, int tag) {
            return switch (kind) {
                case BYTES -> c.recv((byte[]) array, offsetElems, countElems, source, tag);
                case SHORTS -> c.recv((short[]) array, offsetElems, countElems, source, tag);
                case INTS -> c.recv((int[]) array, offsetElems, countElems, source, tag);
                case LONGS -> c.recv((long[]) array, offsetElems, countElems, source, tag);
                case FLOATS -> c.recv((float[]) array, offsetElems, countElems, source, tag);
                case DOUBLES -> c.recv((double[]) array, offsetElems, countElems, source, tag);
                case HEAP_SEGMENT, NATIVE_SEGMENT -> c.recv(region, source, tag);
                case DIRECT_BUFFER -> c.recv(buffer, source, tag);
            };
        }

        Request irecv(Communicator c, int source, int tag) {
            return switch (kind) {
                case BYTES -> c.irecv((byte[]) array, offsetElems, countElems, source, tag);
                case SHORTS -> c.irecv((short[]) array, offsetElems, countElems, source, tag);
                case INTS -> c.irecv((int[]) array, offsetElems, countElems, source, tag);
                case LONGS -> c.irecv((long[]) array, offsetElems, countElems, source, tag);
                case FLOATS -> c.irecv((float[]) array, offsetElems, countElems, source, tag);
                case DOUBLES -> c.irecv((double[]) array, offsetElems, countElems, source, tag);
                case HEAP_SEGMENT, NATIVE_SEGMENT -> c.irecv(region, source, tag);
                case DIRECT_BUFFER -> c.irecv(buffer, source, tag);
            };
        }
    }

    // ================================================================== one rank's run

    static final class RankRun {
        final Plan plan;
        final int rank;

        RankRun(Plan plan, int rank) {
            this.plan = plan;
            this.rank = rank;
        }

        static void barrier(Communicator c) {
            byte[] none = new byte[0];
            if (c.rank() == 0) {
                for (int r = 1; r < c.size(); r++) {
                    c.recv(none, 0, 0, r, 0);
                }
                for (int r = 1; r < c.size(); r++) {
                    c.send(none, 0, 0, r, 0);
                }
            } else {
                c.send(none, 0, 0, 0, 0);
                c.recv(none, 0, 0, 0, 0);
            }
        }

        void run() {
            try (Tutti t = Tutti.init(plan.config); Arena arena = Arena.ofShared()) {
                Communicator world = t.world();
                Communicator dup = world.dup();
                Communicator split = world.split(plan.color[rank], plan.key[rank]);
                Communicator ctrl = world.dup();
                checkCommunicators(world, dup, split);
                Communicator[] comms = {world, dup, split};

                List<Recv> mine = plan.recvs.get(rank);
                Buf[] recvBufs = new Buf[mine.size()];
                Request[] recvReqs = new Request[mine.size()];
                Status[] recvStatus = new Status[mine.size()];
                List<Msg> sends = plan.msgs.stream().filter(m -> m.src == rank).toList();
                Buf[] sendBufs = new Buf[sends.size()];
                Request[] sendReqs = new Request[sends.size()];

                // receives posted before anything is sent
                int posted = 0;
                for (; posted < mine.size() && mine.get(posted).early; posted++) {
                    Recv v = mine.get(posted);
                    recvBufs[posted] = new Buf(v.kind, v.capacity, v.offset, v.guard, v.wideBacking, arena);
                    recvReqs[posted] = recvBufs[posted].irecv(comms[v.comm], v.srcFilter, v.tagFilter);
                }
                barrier(ctrl);

                // every send, in plan order
                for (int i = 0; i < sends.size(); i++) {
                    Msg m = sends.get(i);
                    sendBufs[i] = new Buf(m.kind, m.size, m.offset, m.guard, m.wideBacking, arena);
                    sendBufs[i].put(content(plan.seed, m.id, m.size));
                    int dest = plan.commRank(m.comm, m.dst);
                    if (m.blocking) {
                        sendBufs[i].send(comms[m.comm], dest, m.tag);
                    } else {
                        sendReqs[i] = sendBufs[i].isend(comms[m.comm], dest, m.tag);
                    }
                }
                // eager messages and RTSs sent so far have arrived (they precede the barrier in each ring)
                barrier(ctrl);

                // receives posted after arrival: found in the unexpected queue
                for (; posted < mine.size(); posted++) {
                    Recv v = mine.get(posted);
                    recvBufs[posted] = new Buf(v.kind, v.capacity, v.offset, v.guard, v.wideBacking, arena);
                    if (v.blocking) {
                        recvStatus[posted] = recvBufs[posted].recv(comms[v.comm], v.srcFilter, v.tagFilter);
                    } else {
                        recvReqs[posted] = recvBufs[posted].irecv(comms[v.comm], v.srcFilter, v.tagFilter);
                    }
                }

                List<Request> pending = new ArrayList<>();
                for (Request r : sendReqs) {
                    if (r != null) {
                        pending.add(r);
                    }
                }
                for (Request r : recvReqs) {
                    if (r != null) {
                        pending.add(r);
                    }
                }
                complete(pending.toArray(new Request[0]), plan.completion[rank]);
                for (int i = 0; i < recvReqs.length; i++) {
                    if (recvReqs[i] != null) {
                        check(recvReqs[i].isDone(), "receive " + i + " completed");
                        recvStatus[i] = recvReqs[i].status();
                    }
                }

                for (int i = 0; i < sends.size(); i++) {
                    Msg m = sends.get(i);
                    String bad = sendBufs[i].verify(content(plan.seed, m.id, m.size));
                    check(bad == null, "rank " + rank + ": the send buffer of message " + m.id + " changed: " + bad);
                }
                verifyReceives(mine, recvBufs, recvStatus);
            }
        }

        private void checkCommunicators(Communicator world, Communicator dup, Communicator split) {
            check(world.size() == plan.ranks && dup.size() == plan.ranks && dup.rank() == rank,
                    "world and dup have every rank");
            int[] g = plan.members(SPLIT, rank);
            if (g == null) {
                check(split == null, "rank " + rank + " with color UNDEFINED gets no communicator");
                return;
            }
            check(split != null && split.size() == g.length, "rank " + rank + ": split has " + g.length + " ranks");
            for (int i = 0; i < g.length; i++) {
                check(split.worldRank(i) == g[i], "split rank " + i + " is world rank " + g[i] + " (keys "
                        + Arrays.toString(plan.key) + ")");
            }
            check(split.rank() == plan.commRank(SPLIT, rank), "my split rank");
        }

        private static void complete(Request[] requests, int strategy) {
            switch (strategy) {
                case 0 -> Request.waitAll(requests);
                case 1 -> {
                    Request[] left = requests.clone();
                    for (int n = 0; n < requests.length; n++) {
                        int i = Request.waitAny(left);
                        check(i >= 0 && left[i].isDone(), "waitAny returned a completed request");
                        left[i] = null;
                    }
                    check(Request.waitAny(left) == -1, "waitAny of nothing");
                }
                case 2 -> {
                    while (!Request.testAll(requests)) {
                        Thread.onSpinWait();
                    }
                }
                default -> {
                    for (int i = requests.length - 1; i >= 0; i--) {
                        requests[i].waitFor();
                    }
                }
            }
        }

        private void verifyReceives(List<Recv> mine, Buf[] bufs, Status[] status) {
            int[] receivedBy = new int[plan.msgs.size()];
            Arrays.fill(receivedBy, -1);
            int[] gotMsg = new int[mine.size()];
            for (int i = 0; i < mine.size(); i++) {
                Recv v = mine.get(i);
                Status s = status[i];
                String where = "rank " + rank + " receive " + i + " (" + COMM_NAMES[v.comm] + ", source "
                        + (v.srcFilter == ANY ? "ANY" : v.srcFilter) + ", tag " + (v.tagFilter == ANY ? "ANY"
                        : v.tagFilter) + ", capacity " + v.capacity + ", " + v.kind + ") got " + s;
                check(s.bytes() <= v.capacity && s.bytes() >= 0, where + ": byte count out of range");
                check(v.matches(s.source(), s.tag()), where + ": the status does not match the receive's filter");
                int bytes = (int) s.bytes();
                Msg m;
                if (bytes >= 4) {
                    int id = bufs[i].intAt(0);
                    check(id >= 0 && id < plan.msgs.size(), where + ": carries unknown message id " + id);
                    m = plan.msgs.get(id);
                } else {
                    // too short to carry its id: the earliest unreceived message with this envelope and size
                    m = null;
                    for (Msg c : plan.msgs) {
                        if (c.dst == rank && c.comm == v.comm && plan.commRank(c.comm, c.src) == s.source()
                                && c.tag == s.tag() && c.size == bytes && receivedBy[c.id] < 0) {
                            m = c;
                            break;
                        }
                    }
                    check(m != null, where + ": no message of " + bytes + " bytes with that envelope is due");
                }
                check(m.dst == rank && m.comm == v.comm, where + ": message " + m.id + " is for rank " + m.dst
                        + " on " + COMM_NAMES[m.comm]);
                check(plan.commRank(m.comm, m.src) == s.source() && m.tag == s.tag() && m.size == bytes,
                        where + ": status disagrees with message " + m.id + " (source " + plan.commRank(m.comm, m.src)
                                + ", tag " + m.tag + ", " + m.size + " bytes)");
                check(receivedBy[m.id] < 0, where + ": message " + m.id + " was already received by receive "
                        + receivedBy[m.id]);
                receivedBy[m.id] = i;
                gotMsg[i] = m.id;
                String bad = bufs[i].verify(content(plan.seed, m.id, m.size));
                check(bad == null, where + ": content of message " + m.id + ": " + bad);
            }
            for (Msg m : plan.msgs) {
                check(m.dst != rank || receivedBy[m.id] >= 0, "rank " + rank + " never received message " + m.id);
            }
            // non-overtaking
            for (int i = 0; i < mine.size(); i++) {
                Recv v = mine.get(i);
                Msg m2 = plan.msgs.get(gotMsg[i]);
                for (Msg m1 : plan.msgs) {
                    if (m1.id >= m2.id) {
                        break;
                    }
                    if (m1.src == m2.src && m1.dst == rank && m1.comm == m2.comm
                            && v.matches(plan.commRank(m1.comm, m1.src), m1.tag)) {
                        check(receivedBy[m1.id] < i, "rank " + rank + ": receive " + i + " got message " + m2.id
                                + " although message " + m1.id + ", sent before it by the same rank on "
                                + COMM_NAMES[m1.comm] + " and matching it too, went to receive "
                                + receivedBy[m1.id] + " (non-overtaking violated)");
                    }
                }
            }
        }
    }
}

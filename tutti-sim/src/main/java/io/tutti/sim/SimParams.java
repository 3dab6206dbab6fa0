package io.tutti.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every parameter of the models, in nanoseconds and bytes. Defaults are [BCL-3]'s inter-node
 * figures (table 5.3) where it gives them; {@link #PROPERTIES} lists each name, its
 * default and its meaning, and {@code docs/sim/README.md} their sources.
 *
 * @param L               LogGP latency: first byte leaves the sender's overhead → arrives (ns)
 * @param os              send overhead: CPU time to start a send (ns)
 * @param or              receive overhead: CPU time to take a message in (ns)
 * @param g               gap: NIC time per message, per direction (ns)
 * @param G               gap per byte after the first (ns/B), the inverse of the LogGP bandwidth
 * @param O               CPU overhead per byte after the first (ns/B)
 * @param reducePerByte   CPU time of a REDUCE step per byte (ns/B)
 * @param copyPerByte     CPU time of a COPY step per byte (ns/B)
 * @param linkLatency     packet network: wire delay of one link (ns)
 * @param linkNsPerByte   packet network: serialisation time of one byte on a link (ns/B)
 * @param switchDelay     packet network: a switch's port-to-port delay (ns)
 * @param mtu             packet network: largest packet payload (B)
 * @param contention      packet network: whether a link direction carries one packet at a time
 * @param shmLatency      packet network: latency between ranks of one node (ns)
 * @param shmNsPerByte    packet network: time per byte between ranks of one node (ns/B)
 * @param nicTrigger      NIC-offload mode: from a counter reaching a threshold to the triggered
 *                        operation starting (ns)
 * @param nicProcess      NIC-offload mode: the receiving NIC's time to take in a packet and add to its
 *                        counter (ns)
 * @param nicAluPerByte   NIC-offload mode: the NIC ALU's time per byte reduced (ns/B)
 * @param nicPost         NIC-offload mode: from t0 until the host has handed the program's descriptors
 *                        to its NIC and the first entry may fire (ns)
 * @param nicComplete     NIC-offload mode: from COMPLETE firing until the host sees the completion
 *                        value the NIC writes to its memory (ns)
 * @param switchAlu       switch mode: the switch's aggregation ALU time per packet (ns)
 * @param switchSlots     switch mode: aggregation slots per group and switch, the leaders' window of chunks in flight
 * @param incPayload      switch mode: largest data payload of one aggregation packet (B)
 * @param incHeader       switch mode: header and trailer bytes of one aggregation packet on the wire (B)
 * @param sockets         CPUs (sockets) per node: switch mode's Socket leaders, and the packet network's
 *                        cross-socket cost ({@code shmCross})
 * @param rails           packet network: NICs per host, NIC i on rail i (its own copy of the fabric)
 * @param stripeMin       packet network: messages above this many bytes are striped over the FREE rails
 * @param busyBytes       packet network: bytes in flight on a host's rail above which it is BUSY
 * @param packetGap       packet network: time a link spends per packet beyond its bytes (ns)
 * @param pioMax          packet network: messages of at most this many bytes are written into the NIC
 *                        by the CPU (programmed I/O), larger ones fetched by DMA; 0: all by DMA
 * @param pioNsPerWord    packet network: CPU time to write one 8-byte word into the NIC (ns)
 * @param dmaReadStart    packet network: from a DMA message handed to the NIC to its first fetch (ns)
 * @param dmaReadNsPerByte  packet network: host bus time per byte the NIC fetches (ns/B); 0: no bus
 * @param dmaWriteStart   packet network: from a DMA message's last byte written to host memory to its
 *                        arrival being seen (ns)
 * @param dmaWriteNsPerByte packet network: host bus time per byte the NIC writes to host memory (ns/B)
 * @param shmOs           send overhead between ranks of one node (ns); −1: as {@code os}
 * @param shmOr           receive overhead between ranks of one node (ns); −1: as {@code or}
 * @param shmCross        extra latency of a message between ranks of one node on different CPUs (ns)
 * @param incLoss         switch mode: probability that a link loses an aggregation packet (0 to 1, not 1)
 * @param incRto          switch mode: a leader sends a contribution again when its result is this late (ns)
 * @param incSeed         switch mode: seed of the losses, so that a lossy run is repeatable
 * @param hostNoise       host and NIC modes: the share (0 to 1) of every host CPU time that is noise, drawn
 *                        from an exponential distribution instead of being constant (the mean is
 *                        unchanged; 0: LogGP's constant overheads)
 * @param noiseSeed       host and NIC modes: seed of the noise, so that a noisy run is repeatable
 * @param oPerRank        host mode: what each o_s and o_r of a message between nodes grows by per other
 *                        rank of the communicator (ns; the per-message start-up and receive delays that
 *                        grow with the system's scale, [NIC-reduce] §1; 0: LogGP's constant overheads)
 * @param rendezvousBytes host mode: messages of at least this many bytes wait for a handshake before
 *                        their data goes (a message layer's rendezvous, [BCL-3] §5.2.2; 0: none, all eager)
 * @param rendezvousControl host mode: bytes of the handshake's request and answer on the wire (the layer's
 *                        empty message: its header)
 */
public record SimParams(long L, long os, long or, long g, double G, double O, double reducePerByte,
                        double copyPerByte, long linkLatency, double linkNsPerByte, long switchDelay, int mtu,
                        boolean contention, long shmLatency, double shmNsPerByte, long nicTrigger, long nicProcess,
                        double nicAluPerByte, long nicPost, long nicComplete, long switchAlu, int switchSlots,
                        int incPayload, int incHeader, int sockets, int rails, int stripeMin, long busyBytes,
                        long packetGap, int pioMax, long pioNsPerWord, long dmaReadStart, double dmaReadNsPerByte,
                        long dmaWriteStart, double dmaWriteNsPerByte, long shmOs, long shmOr, long shmCross, double incLoss,
                        long incRto, long incSeed, double hostNoise, long noiseSeed, double oPerRank,
                        long rendezvousBytes, long rendezvousControl) {

    /** A parameter's name (in calibration files), default and meaning. */
    public record Property(String name, String defaultValue, String meaning) {
    }

    /** The parameters in calibration-file order. */
    public static final List<Property> PROPERTIES = List.of(
            new Property("L", "10270", "LogGP latency (ns)"),
            new Property("o_s", "7050", "send overhead (ns)"),
            new Property("o_r", "1017", "receive overhead (ns)"),
            new Property("g", "11091", "gap per message (ns)"),
            new Property("G", "6.83", "gap per byte (ns/B)"),
            new Property("O", "0", "CPU overhead per byte (ns/B)"),
            new Property("reduce_per_byte", "1.0", "REDUCE step CPU time (ns/B)"),
            new Property("copy_per_byte", "0.25", "COPY step CPU time (ns/B)"),
            new Property("link_latency", "100", "link wire delay (ns)"),
            new Property("link_ns_per_byte", "6.25", "link serialisation (ns/B)"),
            new Property("switch_delay", "300", "switch port-to-port delay (ns)"),
            new Property("mtu", "4096", "largest packet payload (B)"),
            new Property("contention", "true", "a link direction carries one packet at a time"),
            new Property("shm_latency", "2726", "latency inside a node (ns)"),
            new Property("shm_ns_per_byte", "2.55", "time per byte inside a node (ns/B)"),
            new Property("nic_trigger", "200", "NIC: threshold reached to triggered operation started (ns)"),
            new Property("nic_process", "300", "NIC: packet taken in and counted (ns)"),
            new Property("nic_alu_per_byte", "0.5", "NIC ALU time per byte reduced (ns/B)"),
            new Property("nic_post", "0", "NIC: t0 until the host has posted the program to the NIC (ns)"),
            new Property("nic_complete", "0", "NIC: COMPLETE fired until the host sees the completion value (ns)"),
            new Property("switch_alu", "100", "switch aggregation ALU time per packet (ns)"),
            new Property("switch_slots", "64", "aggregation slots per group and switch (chunks in flight per leader)"),
            new Property("inc_payload", "256", "largest data payload of an aggregation packet (B)"),
            new Property("inc_header", "112", "header and trailer bytes of an aggregation packet (B)"),
            new Property("sockets", "2", "CPUs (sockets) per node, ranks contiguous per CPU (Socket leaders, shm_cross)"),
            new Property("rails", "1", "NICs per host, NIC i on rail i (its own copy of the fabric)"),
            new Property("stripe_min", "16384", "messages above this many bytes are striped over the FREE rails (B)"),
            new Property("busy_bytes", "1048576", "bytes in flight on a host's rail above which it is BUSY (B)"),
            new Property("packet_gap", "0", "time a link spends per packet beyond its bytes (ns)"),
            new Property("pio_max", "0", "largest message the CPU writes into the NIC by programmed I/O; 0: none (B)"),
            new Property("pio_ns_per_word", "0", "CPU time to write one 8-byte word into the NIC (ns)"),
            new Property("dma_read_start", "0", "DMA message handed to the NIC until its first fetch (ns)"),
            new Property("dma_read_ns_per_byte", "0", "host bus time per byte the NIC fetches (ns/B)"),
            new Property("dma_write_start", "0", "last byte written to host memory until the arrival is seen (ns)"),
            new Property("dma_write_ns_per_byte", "0", "host bus time per byte the NIC writes to host memory (ns/B)"),
            new Property("shm_o_s", "-1", "send overhead inside a node (ns); -1: as o_s"),
            new Property("shm_o_r", "-1", "receive overhead inside a node (ns); -1: as o_r"),
            new Property("shm_cross", "0", "extra latency of a message inside a node between two CPUs (ns)"),
            new Property("inc_loss", "0", "switch mode: probability that a link loses an aggregation packet"),
            // what the leaders' client waits at least (tutti.inc.retry.ms) before it sends a contribution again
            new Property("inc_rto", Long.toString(io.tutti.sw.IncConfig.RETRY_DEFAULT * 1_000_000L),
                    "switch mode: a contribution is sent again when its result is this late (ns)"),
            new Property("inc_seed", "1", "switch mode: seed of the losses"),
            new Property("host_noise", "0",
                    "host and NIC modes: share of every host CPU time that is exponential noise (0 to 1)"),
            new Property("noise_seed", "1", "host and NIC modes: seed of the noise"),
            new Property("o_per_rank", "0",
                    "host mode: ns each o_s and o_r between nodes grows by per other rank of the communicator"),
            // off by default: LogGP's messages are eager; a message layer with a rendezvous sets it
            new Property("rendezvous_bytes", "0",
                    "host mode: messages of at least this many bytes first wait for a handshake (B); 0: none"),
            new Property("rendezvous_control", "0", "host mode: bytes of the handshake's request and answer (B)"));

    public SimParams {
        if (L < 0 || os < 0 || or < 0 || g < 0 || !(G >= 0) || !(O >= 0) || !(reducePerByte >= 0)
                || !(copyPerByte >= 0) || linkLatency < 0 || !(linkNsPerByte >= 0) || switchDelay < 0 || mtu < 1
                || shmLatency < 0 || !(shmNsPerByte >= 0) || nicTrigger < 0 || nicProcess < 0
                || !(nicAluPerByte >= 0) || nicPost < 0 || nicComplete < 0 || switchAlu < 0 || switchSlots < 1
                || incPayload < 8 || incHeader < 0 || sockets < 1 || rails < 1 || rails > 16 || stripeMin < 0
                || busyBytes < 0 || packetGap < 0 || pioMax < 0 || pioNsPerWord < 0 || dmaReadStart < 0
                || !(dmaReadNsPerByte >= 0) || dmaWriteStart < 0 || !(dmaWriteNsPerByte >= 0) || shmOs < -1
                || shmOr < -1 || shmCross < 0 || !(incLoss >= 0 && incLoss < 1) || incRto < 1 || !(hostNoise >= 0 && hostNoise <= 1)
                || !(oPerRank >= 0) || rendezvousBytes < 0 || rendezvousControl < 0) {
            throw new IllegalArgumentException("simulation parameters must be non-negative (mtu, switch_slots,"
                    + " sockets, rails and inc_rto at least 1, rails at most 16, inc_payload at least 8, shm_o_s and"
                    + " shm_o_r -1 for 'as o_s, o_r', inc_loss below 1, host_noise at most 1)");
        }
    }

    /** The defaults of {@link #PROPERTIES}. */
    public static SimParams defaults() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Property p : PROPERTIES) {
            m.put(p.name(), p.defaultValue());
        }
        return fromMap(m);
    }

    /** These parameters with the ones named in {@code values} replaced (names of {@link #PROPERTIES}). */
    public SimParams with(Map<String, String> values) {
        Map<String, String> m = toMap();
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!m.containsKey(e.getKey())) {
                throw new IllegalArgumentException("unknown simulation parameter '" + e.getKey() + "'; known: "
                        + String.join(", ", m.keySet()));
            }
            m.put(e.getKey(), e.getValue());
        }
        return fromMap(m);
    }

    /** Name → value, in {@link #PROPERTIES} order. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("L", Long.toString(L));
        m.put("o_s", Long.toString(os));
        m.put("o_r", Long.toString(or));
        m.put("g", Long.toString(g));
        m.put("G", Double.toString(G));
        m.put("O", Double.toString(O));
        m.put("reduce_per_byte", Double.toString(reducePerByte));
        m.put("copy_per_byte", Double.toString(copyPerByte));
        m.put("link_latency", Long.toString(linkLatency));
        m.put("link_ns_per_byte", Double.toString(linkNsPerByte));
        m.put("switch_delay", Long.toString(switchDelay));
        m.put("mtu", Integer.toString(mtu));
        m.put("contention", Boolean.toString(contention));
        m.put("shm_latency", Long.toString(shmLatency));
        m.put("shm_ns_per_byte", Double.toString(shmNsPerByte));
        m.put("nic_trigger", Long.toString(nicTrigger));
        m.put("nic_process", Long.toString(nicProcess));
        m.put("nic_alu_per_byte", Double.toString(nicAluPerByte));
        m.put("nic_post", Long.toString(nicPost));
        m.put("nic_complete", Long.toString(nicComplete));
        m.put("switch_alu", Long.toString(switchAlu));
        m.put("switch_slots", Integer.toString(switchSlots));
        m.put("inc_payload", Integer.toString(incPayload));
        m.put("inc_header", Integer.toString(incHeader));
        m.put("sockets", Integer.toString(sockets));
        m.put("rails", Integer.toString(rails));
        m.put("stripe_min", Integer.toString(stripeMin));
        m.put("busy_bytes", Long.toString(busyBytes));
        m.put("packet_gap", Long.toString(packetGap));
        m.put("pio_max", Integer.toString(pioMax));
        m.put("pio_ns_per_word", Long.toString(pioNsPerWord));
        m.put("dma_read_start", Long.toString(dmaReadStart));
        m.put("dma_read_ns_per_byte", Double.toString(dmaReadNsPerByte));
        m.put("dma_write_start", Long.toString(dmaWriteStart));
        m.put("dma_write_ns_per_byte", Double.toString(dmaWriteNsPerByte));
        m.put("shm_o_s", Long.toString(shmOs));
        m.put("shm_o_r", Long.toString(shmOr));
        m.put("shm_cross", Long.toString(shmCross));
        m.put("inc_loss", Double.toString(incLoss));
        m.put("inc_rto", Long.toString(incRto));
        m.put("inc_seed", Long.toString(incSeed));
        m.put("host_noise", Double.toString(hostNoise));
        m.put("noise_seed", Long.toString(noiseSeed));
        m.put("o_per_rank", Double.toString(oPerRank));
        m.put("rendezvous_bytes", Long.toString(rendezvousBytes));
        m.put("rendezvous_control", Long.toString(rendezvousControl));
        return m;
    }

    private static SimParams fromMap(Map<String, String> m) {
        try {
            return new SimParams(ns(m, "L"), ns(m, "o_s"), ns(m, "o_r"), ns(m, "g"), num(m, "G"), num(m, "O"),
                    num(m, "reduce_per_byte"), num(m, "copy_per_byte"), ns(m, "link_latency"),
                    num(m, "link_ns_per_byte"), ns(m, "switch_delay"), Math.toIntExact(ns(m, "mtu")),
                    bool(m, "contention"), ns(m, "shm_latency"), num(m, "shm_ns_per_byte"), ns(m, "nic_trigger"),
                    ns(m, "nic_process"), num(m, "nic_alu_per_byte"), ns(m, "nic_post"), ns(m, "nic_complete"),
                    ns(m, "switch_alu"), Math.toIntExact(ns(m, "switch_slots")), Math.toIntExact(ns(m, "inc_payload")),
                    Math.toIntExact(ns(m, "inc_header")), Math.toIntExact(ns(m, "sockets")),
                    Math.toIntExact(ns(m, "rails")), Math.toIntExact(ns(m, "stripe_min")), ns(m, "busy_bytes"),
                    ns(m, "packet_gap"), Math.toIntExact(ns(m, "pio_max")), ns(m, "pio_ns_per_word"),
                    ns(m, "dma_read_start"), num(m, "dma_read_ns_per_byte"), ns(m, "dma_write_start"),
                    num(m, "dma_write_ns_per_byte"), ns(m, "shm_o_s"), ns(m, "shm_o_r"), ns(m, "shm_cross"),
                    num(m, "inc_loss"), ns(m, "inc_rto"), ns(m, "inc_seed"),
                    num(m, "host_noise"), ns(m, "noise_seed"), num(m, "o_per_rank"),
                    ns(m, "rendezvous_bytes"), ns(m, "rendezvous_control"));
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("a count or size is too large: mtu " + m.get("mtu") + ", switch_slots "
                    + m.get("switch_slots") + ", inc_payload " + m.get("inc_payload") + ", inc_header "
                    + m.get("inc_header") + ", sockets " + m.get("sockets") + ", rails " + m.get("rails")
                    + ", stripe_min " + m.get("stripe_min") + ", pio_max " + m.get("pio_max"));
        }
    }

    private static long ns(Map<String, String> m, String k) {
        String v = m.get(k).trim();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            // a fractional nanosecond count is rounded: the engine's clock ticks in whole ns
            return Math.round(num(m, k));
        }
    }

    private static double num(Map<String, String> m, String k) {
        try {
            return Double.parseDouble(m.get(k).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + k + " must be a number, got '" + m.get(k) + "'");
        }
    }

    private static boolean bool(Map<String, String> m, String k) {
        String v = m.get(k).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("parameter " + k + " must be true or false, got '" + v + "'");
        }
        return Boolean.parseBoolean(v);
    }

    /**
     * Reads a calibration file: one {@code name = value ; source} per line, {@code #} comments and
     * blank lines ignored. Every line must say where its value comes from (after the {@code ;}), so
     * that a calibration can be audited; parameters not in the file keep these values.
     */
    public SimParams withCalibration(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            int semi = line.indexOf(';');
            if (eq < 0 || semi < eq || line.substring(semi + 1).isBlank()) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected 'name = value ; source', got '"
                        + line + "'");
            }
            String name = line.substring(0, eq).strip();
            if (values.put(name, line.substring(eq + 1, semi).strip()) != null) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + name + " is set twice");
            }
        }
        try {
            return with(values);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** Send overhead of a message between ranks of one node: {@code shm_o_s}, or o_s when that is −1. */
    public long shmSendOverhead() {
        return shmOs < 0 ? os : shmOs;
    }

    /** Receive overhead of a message between ranks of one node: {@code shm_o_r}, or o_r when that is −1. */
    public long shmRecvOverhead() {
        return shmOr < 0 ? or : shmOr;
    }

    /**
     * The CPU (socket) of the rank at index {@code local} of a node of {@code ppn} ranks: ranks are
     * contiguous per CPU, the first ⌈ppn / sockets⌉-sized block on CPU 0 ([RoCE-INC] §3.5's constraint).
     */
    public int socketOf(int local, int ppn) {
        return (int) ((long) local * sockets / ppn);
    }

    /**
     * The extra latency of a shared-memory message between node-local ranks {@code a} and {@code b}
     * of a node of {@code ppn} ranks: {@code shm_cross} when they sit on different CPUs, else 0.
     * The packet network's host mode and switch mode's trees inside a node both charge it here.
     */
    public long shmCrossing(int a, int b, int ppn) {
        return shmCross != 0 && socketOf(a, ppn) != socketOf(b, ppn) ? shmCross : 0;
    }

    /**
     * {@link #noisy} sides: a message's send overhead, its receive overhead, a REDUCE or COPY step, a
     * NIC program's post, its completion.
     */
    static final long NOISE_SEND = 0x9e3779b97f4a7c15L;
    static final long NOISE_RECV = 0x6a09e667f3bcc909L;
    static final long NOISE_COMPUTE = 0xa54ff53a5f1d36f1L;
    static final long NOISE_POST = 0xbb67ae8584caa73bL;
    static final long NOISE_COMPLETE = 0x3c6ef372fe94f82bL;
    /** The sides of a rendezvous handshake's request and answer (their receive side: XOR {@link #NOISE_RECV}). */
    static final long NOISE_REQUEST = 0xa54ff53a5f1d36f3L;
    static final long NOISE_ANSWER = 0x510e527fade682d1L;

    /**
     * A host CPU time {@code o} as one operation pays it: o itself, or with {@code host_noise} = c the
     * constant (1 − c)·o plus an exponential draw of mean c·o (the mean stays o). The draw is a hash of
     * the operation's key (rank, step, side) and {@code noise_seed}: repeatable, allocation-free, and
     * independent of the order in which the simulation meets the operations.
     */
    long noisy(long o, int rank, int step, long side) {
        if (hostNoise == 0 || o == 0) {
            return o;
        }
        long h = mix(mix(noiseSeed + side) ^ (((long) rank << 32) | (step & 0xffffffffL)));
        double u = ((h >>> 11) + 1) * 0x1.0p-53;
        return Math.round(o * (1 - hostNoise) - o * hostNoise * Math.log(u));
    }

    /** SplitMix64's finaliser: every output bit depends on every input bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Per-byte time of {@code bytes} bytes at {@code nsPerByte}, rounded to whole nanoseconds. */
    static long perByte(double nsPerByte, long bytes) {
        return bytes <= 0 || nsPerByte == 0 ? 0 : Math.round(nsPerByte * bytes);
    }
}

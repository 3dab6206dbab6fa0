package io.tutti.sim;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A switched network's shape: hosts {@code 0 … hosts−1} and switches numbered after them, joined
 * by directed links (one per direction of a cable), with deterministic routing: {@link #route}
 * names the link a packet for a host takes next, so that no path is stored.
 *
 * <p>Shapes ({@link #parse} spells them):
 * <ul>
 *   <li>{@code crossbar}: one switch with a port per host;</li>
 *   <li>{@code fattree:k=K[,n=N]}: the k-ary n-tree (Petrini and Vanneschi): N levels of
 *       K^(N−1) switches with 2K ports, K^N hosts; N defaults to the smallest that holds the
 *       nodes. Up/down routing: up to the lowest common ancestor level, taking at level m the up
 *       port ⌊d / K^m⌋ mod K (d-mod-k, d the destination host), then the one path down;</li>
 *   <li>{@code leafspine:hosts=H,spines=S}: leaves of H hosts, each joined to every one of S
 *       spines; a packet for another leaf goes up to spine d mod S;</li>
 *   <li>{@code bcl3[:links=W,hosts=H]}: [BCL-3]'s machine (§5.4, table 5.17): four
 *       switches of H = 16 hosts, every pair of switches joined by W links (2 in [BCL-3]'s
 *       first set-up, 4 in its second); a packet for another switch takes link d mod W.</li>
 * </ul>
 */
public abstract class Fabric {
    final int hosts;
    final int nodes;
    int[] linkTo;
    int links;

    Fabric(int hosts, int switches) {
        this.hosts = hosts;
        this.nodes = hosts + switches;
    }

    /** Number of hosts. */
    public int hosts() {
        return hosts;
    }

    /** Number of switches. */
    public int switches() {
        return nodes - hosts;
    }

    /** Number of directed links. */
    public int links() {
        return links;
    }

    /** The node (host or switch) link {@code link} leads to. */
    public int to(int link) {
        return linkTo[link];
    }

    /** Whether node {@code node} is a switch. */
    public boolean isSwitch(int node) {
        return node >= hosts;
    }

    /** The link a packet at node {@code at} (not {@code dst}) takes towards host {@code dst}. */
    public abstract int route(int at, int dst);

    /** Name for reports. */
    public abstract String name();

    /** Host h's link up to its switch. */
    static int up(int h) {
        return 2 * h;
    }

    /** The link down from its switch to host h. */
    static int down(int h) {
        return 2 * h + 1;
    }

    /** Links 0 … 2·hosts−1 join each host to switch {@code switchOf(h)}. */
    void hostLinks(java.util.function.IntUnaryOperator switchOf, int total) {
        linkTo = new int[total];
        links = total;
        for (int h = 0; h < hosts; h++) {
            linkTo[up(h)] = switchOf.applyAsInt(h);
            linkTo[down(h)] = h;
        }
    }

    /**
     * The fabric that {@code spec} names (see the class comment), for at least {@code nodes}
     * hosts.
     */
    public static Fabric parse(String spec, int nodes) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String kind = colon < 0 ? s : s.substring(0, colon);
        Map<String, Integer> a = new LinkedHashMap<>();
        if (colon >= 0) {
            for (String kv : s.substring(colon + 1).split(",")) {
                String[] p = kv.split("=");
                if (p.length != 2) {
                    throw new IllegalArgumentException("topology '" + spec + "': expected name=value, got '" + kv + "'");
                }
                try {
                    a.put(p[0].trim(), Integer.parseInt(p[1].trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("topology '" + spec + "': " + p[0] + " must be a whole number");
                }
            }
        }
        Fabric f = switch (kind) {
            case "crossbar" -> new Crossbar(nodes);
            case "fattree" -> {
                int k = a.getOrDefault("k", 4);
                int n = a.containsKey("n") ? a.get("n") : levels(k, nodes);
                yield new FatTree(k, n);
            }
            case "leafspine" -> {
                int h = a.getOrDefault("hosts", 16);
                int sp = a.getOrDefault("spines", 4);
                yield new LeafSpine(h, Math.max(1, (nodes + h - 1) / h), sp);
            }
            case "bcl3" -> new Bcl3Machine(a.getOrDefault("hosts", 16), a.getOrDefault("links", 2));
            default -> throw new IllegalArgumentException("unknown topology '" + spec
                    + "'; choose crossbar, fattree:k=K[,n=N], leafspine:hosts=H,spines=S or bcl3[:links=W]");
        };
        if (f.hosts < nodes) {
            throw new IllegalArgumentException("topology " + f.name() + " has " + f.hosts + " hosts, fewer than the "
                    + nodes + " nodes asked for");
        }
        return f;
    }

    private static int levels(int k, int nodes) {
        if (k < 2) {
            throw new IllegalArgumentException("fattree needs k >= 2");
        }
        int n = 1;
        long h = k;
        while (h < nodes) {
            h *= k;
            n++;
        }
        return n;
    }

    /** One switch, a port per host. */
    static final class Crossbar extends Fabric {
        Crossbar(int hosts) {
            super(hosts, 1);
            hostLinks(h -> hosts, 2 * hosts);
        }

        @Override
        public int route(int at, int dst) {
            return at < hosts ? up(at) : down(dst);
        }

        @Override
        public String name() {
            return "crossbar";
        }
    }

    /** The k-ary n-tree. Switch (w, l) is node hosts + l·K^(n−1) + w. */
    static final class FatTree extends Fabric {
        final int k;
        final int n;
        final int perLevel;
        final int[] pow;

        FatTree(int k, int n) {
            super(power(k, n), n * power(k, n - 1));
            if (k < 2 || n < 1) {
                throw new IllegalArgumentException("fattree needs k >= 2 and n >= 1");
            }
            this.k = k;
            this.n = n;
            this.perLevel = power(k, n - 1);
            this.pow = new int[n + 1];
            for (int i = 0; i <= n; i++) {
                pow[i] = power(k, i);
            }
            int total = 2 * hosts + 2 * (n - 1) * perLevel * k;
            hostLinks(h -> hosts + h / k, total);
            for (int l = 0; l < n - 1; l++) {
                for (int w = 0; w < perLevel; w++) {
                    for (int j = 0; j < k; j++) {
                        int parent = replaceDigit(w, l, j);
                        linkTo[upLink(l, w, j)] = hosts + (l + 1) * perLevel + parent;
                        linkTo[upLink(l, w, j) + 1] = hosts + l * perLevel + w;
                    }
                }
            }
        }

        private static int power(int k, int e) {
            long p = 1;
            for (int i = 0; i < e; i++) {
                p *= k;
                if (p > Integer.MAX_VALUE / 4) {
                    throw new IllegalArgumentException("fattree too large");
                }
            }
            return (int) p;
        }

        private int digit(int w, int i) {
            return (w / pow[i]) % k;
        }

        private int replaceDigit(int w, int i, int v) {
            return w - digit(w, i) * pow[i] + v * pow[i];
        }

        /** Up port j of switch (w, l); the link back down is the next index. */
        private int upLink(int l, int w, int j) {
            return 2 * hosts + 2 * ((l * perLevel + w) * k + j);
        }

        @Override
        public int route(int at, int dst) {
            if (at < hosts) {
                return up(at);
            }
            int l = (at - hosts) / perLevel;
            int w = (at - hosts) % perLevel;
            int leaf = dst / k;
            // an ancestor of dst when the digits from l up agree with dst's leaf switch
            if (w / pow[l] == leaf / pow[l]) {
                if (l == 0) {
                    return down(dst);
                }
                int child = replaceDigit(w, l - 1, digit(leaf, l - 1));
                return upLink(l - 1, child, digit(w, l - 1)) + 1;
            }
            return upLink(l, w, (dst / pow[l]) % k);
        }

        @Override
        public String name() {
            return "fattree:k=" + k + ",n=" + n;
        }
    }

    /** Leaves of {@code perLeaf} hosts, every leaf joined to every spine. */
    static final class LeafSpine extends Fabric {
        final int perLeaf;
        final int leaves;
        final int spines;

        LeafSpine(int perLeaf, int leaves, int spines) {
            super(perLeaf * leaves, leaves + spines);
            if (perLeaf < 1 || spines < 1) {
                throw new IllegalArgumentException("leafspine needs hosts >= 1 and spines >= 1");
            }
            this.perLeaf = perLeaf;
            this.leaves = leaves;
            this.spines = spines;
            hostLinks(h -> hosts + h / perLeaf, 2 * hosts + 2 * leaves * spines);
            for (int i = 0; i < leaves; i++) {
                for (int j = 0; j < spines; j++) {
                    linkTo[leafUp(i, j)] = hosts + leaves + j;
                    linkTo[leafUp(i, j) + 1] = hosts + i;
                }
            }
        }

        private int leafUp(int leaf, int spine) {
            return 2 * hosts + 2 * (leaf * spines + spine);
        }

        @Override
        public int route(int at, int dst) {
            if (at < hosts) {
                return up(at);
            }
            int sw = at - hosts;
            int leaf = dst / perLeaf;
            if (sw < leaves) {
                return sw == leaf ? down(dst) : leafUp(sw, dst % spines);
            }
            return leafUp(leaf, sw - leaves) + 1;
        }

        @Override
        public String name() {
            return "leafspine:hosts=" + perLeaf + ",spines=" + spines;
        }
    }

    /** Four switches of {@code perSwitch} hosts, each pair joined by {@code width} links. */
    static final class Bcl3Machine extends Fabric {
        static final int SWITCHES = 4;
        final int perSwitch;
        final int width;

        Bcl3Machine(int perSwitch, int width) {
            super(SWITCHES * perSwitch, SWITCHES);
            if (perSwitch < 1 || width < 1) {
                throw new IllegalArgumentException("bcl3 needs hosts >= 1 and links >= 1");
            }
            this.perSwitch = perSwitch;
            this.width = width;
            hostLinks(h -> hosts + h / perSwitch, 2 * hosts + SWITCHES * SWITCHES * width);
            for (int a = 0; a < SWITCHES; a++) {
                for (int b = 0; b < SWITCHES; b++) {
                    for (int m = 0; m < width; m++) {
                        linkTo[between(a, b, m)] = hosts + b;
                    }
                }
            }
        }

        /** Link m from switch a to switch b (a ≠ b; the a = b slots are unused). */
        private int between(int a, int b, int m) {
            return 2 * hosts + (a * SWITCHES + b) * width + m;
        }

        @Override
        public int route(int at, int dst) {
            if (at < hosts) {
                return up(at);
            }
            int a = at - hosts;
            int b = dst / perSwitch;
            return a == b ? down(dst) : between(a, b, dst % width);
        }

        @Override
        public String name() {
            return "bcl3:links=" + width + ",hosts=" + perSwitch;
        }
    }
}

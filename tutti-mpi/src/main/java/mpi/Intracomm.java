package mpi;

import io.tutti.Communicator;
import io.tutti.TuttiException;
import java.nio.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A communicator of one group of ranks, as {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are:
 * the point-to-point calls and collectives of {@link Comm}, the scans, and the making of new
 * communicators: {@link #split}, {@link #splitType}, {@link #create}, and the topologies
 * ({@link #createCart}, {@link #createGraph}, {@link #createDistGraph}). Every new communicator is
 * one of Tutti's {@link Communicator#split}s of this one, but {@link #createGroup}'s, which only its
 * members make ({@link Communicator#createGroup}).
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
     * Starts {@code maxprocs} new processes and returns an intercommunicator to them, whose remote
     * group is their {@link MPI#COMM_WORLD}; they find this one with {@link Intercomm#getParent}
     * (MPI_COMM_SPAWN). {@code command} is {@code java} with {@code argv} the arguments of a
     * {@code java} command line (options, the main class, the program's arguments), or the main class
     * itself with {@code argv} its arguments. The new processes run on this job's class path with its
     * JVM options, so options in {@code argv} are read past, not applied; {@code info} is not read.
     * Collective; the arguments are read at {@code root} only. Needs Tutti's {@code mpirun} (or
     * {@code tutti run}) with a JVM per rank: elsewhere {@link MPI#ERR_UNSUPPORTED_OPERATION} at every rank.
     */
    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info, int root, int[] errcodes)
            throws MPIException {
        return spawned(getRank() == root ? List.of(program(command, argv, maxprocs)) : List.of(), root, errcodes,
                "spawn");
    }

    /**
     * Starts {@code maxprocs[i]} processes of each {@code commands[i]} with {@code argv[i]}, read as
     * {@link #spawn} reads its command, in one new world, the first command's processes first
     * (MPI_COMM_SPAWN_MULTIPLE); {@code info} is not read. Collective; read at {@code root} only.
     */
    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs, Info[] info, int root,
                                         int[] errcodes) throws MPIException {
        // at the root, mismatched arrays give no program, which every rank's spawn then refuses alike
        List<Communicator.Program> programs = new java.util.ArrayList<>();
        if (getRank() == root && commands != null && maxprocs != null && maxprocs.length >= commands.length
                && (argv == null || argv.length >= commands.length)) {
            for (int i = 0; i < commands.length; i++) {
                programs.add(program(commands[i], argv == null ? null : argv[i], maxprocs[i]));
            }
        }
        return spawned(programs, root, errcodes, "spawnMultiple");
    }

    /** One program of a spawn: {@code count} processes of the class {@code command} and {@code argv} name. */
    private static Communicator.Program program(String command, String[] argv, int count) {
        String[] program = javaProgram(command, argv);
        return new Communicator.Program(program[0], Arrays.asList(program).subList(1, program.length), count);
    }

    /**
     * Tutti's spawn of {@code programs} (read at {@code root} only) as {@code call}: the new processes'
     * intercommunicator, {@code errcodes} filled with {@link MPI#SUCCESS}; processes that did not join
     * are MPI_ERR_SPAWN, each rank with the launcher's reason.
     */
    private Intercomm spawned(List<Communicator.Program> programs, int root, int[] errcodes, String call)
            throws MPIException {
        Communicator c = live();
        try {
            Intercomm spawned = new Intercomm(c.spawn(programs, root), this);
            if (errcodes != null) {
                Arrays.fill(errcodes, 0, Math.min(errcodes.length, spawned.getRemoteSize()), MPI.SUCCESS);
            }
            return spawned;
        } catch (TuttiException.Startup e) {
            throw MPI.handle(new MPIException(MPI.ERR_SPAWN, call + ": " + e.getMessage(), e));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /**
     * Opens a port that {@link #accept} and {@link #connect} meet at (MPI_OPEN_PORT), for any job of
     * this {@code mpirun} (its ranks and the processes they spawn); the info is not read.
     */
    public static String openPort() throws MPIException {
        return openPort(MPI.INFO_NULL);
    }

    /** As {@link #openPort()}; {@code info} is not read. */
    public static String openPort(Info info) throws MPIException {
        return named(t -> t.openPort(), "openPort", MPI.ERR_PORT);
    }

    /** Closes port {@code name} (MPI_CLOSE_PORT): an accept or connect still waiting at it fails. */
    public static void closePort(String name) throws MPIException {
        named(t -> {
            t.closePort(name);
            return null;
        }, "closePort", MPI.ERR_PORT);
    }

    /**
     * Waits for a group that connects to {@code port} and returns the intercommunicator to it, whose
     * remote group is the connecting one (MPI_COMM_ACCEPT). Collective; {@code port} is read at
     * {@code root} only. Waits until a connect comes or the port is closed.
     */
    public final Intercomm accept(String port, int root) throws MPIException {
        return accept(port, MPI.INFO_NULL, root);
    }

    /** As {@link #accept(String, int)}; {@code info} is not read. */
    public final Intercomm accept(String port, Info info, int root) throws MPIException {
        return met(port, root, true);
    }

    /** Connects to the group that accepts at {@code port} and returns the intercommunicator to it (MPI_COMM_CONNECT). */
    public final Intercomm connect(String port, int root) throws MPIException {
        return connect(port, MPI.INFO_NULL, root);
    }

    /** As {@link #connect(String, int)}; {@code info} is not read. */
    public final Intercomm connect(String port, Info info, int root) throws MPIException {
        return met(port, root, false);
    }

    /** Tutti's accept or connect at {@code port}; a wrong port is MPI_ERR_PORT at every rank. */
    private Intercomm met(String port, int root, boolean accepting) throws MPIException {
        Communicator c = live();
        String call = accepting ? "accept" : "connect";
        try {
            return new Intercomm(accepting ? c.accept(port, root) : c.connect(port, root), this);
        } catch (TuttiException.InvalidArgument e) {
            throw MPI.handle(new MPIException(MPI.ERR_PORT, call + ": " + e.getMessage(), e));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /** Publishes {@code port} under {@code service} (MPI_PUBLISH_NAME) for every job of this {@code mpirun}. */
    public static void publishName(String service, String port) throws MPIException {
        publishName(service, MPI.INFO_NULL, port);
    }

    /** As {@link #publishName(String, String)}; {@code info} is not read. */
    public static void publishName(String service, Info info, String port) throws MPIException {
        named(t -> {
            t.publishName(service, port);
            return null;
        }, "publishName", MPI.ERR_SERVICE);
    }

    /** Withdraws {@code service}, published as {@code port} (MPI_UNPUBLISH_NAME). */
    public static void unpublishName(String service, String port) throws MPIException {
        unpublishName(service, MPI.INFO_NULL, port);
    }

    /** As {@link #unpublishName(String, String)}; {@code info} is not read. */
    public static void unpublishName(String service, Info info, String port) throws MPIException {
        named(t -> {
            t.unpublishName(service, port);
            return null;
        }, "unpublishName", MPI.ERR_SERVICE);
    }

    /** The port published under {@code service} (MPI_LOOKUP_NAME); none is MPI_ERR_NAME. */
    public static String lookupName(String service) throws MPIException {
        return lookupName(service, MPI.INFO_NULL);
    }

    /** As {@link #lookupName(String)}; {@code info} is not read. */
    public static String lookupName(String service, Info info) throws MPIException {
        return named(t -> t.lookupName(service), "lookupName", MPI.ERR_NAME);
    }

    /** A port or name call on no communicator: a wrong name or port is {@code wrong}, a null one MPI_ERR_ARG. */
    private static String named(PortCall call, String name, int wrong) throws MPIException {
        io.tutti.Tutti t = MPI.runtime();
        try {
            return call.on(t);
        } catch (NullPointerException e) {
            throw Errors.error(MPI.ERR_ARG, name + ": " + e.getMessage() + " is null");
        } catch (TuttiException.InvalidArgument e) {
            throw MPI.handle(new MPIException(wrong, name + ": " + e.getMessage(), e));
        } catch (TuttiException e) {
            throw Errors.of(e, name);
        }
    }

    /** A call of Tutti's ports and names. */
    @FunctionalInterface
    private interface PortCall {
        String on(io.tutti.Tutti t);
    }

    /** JVM options that take the next argument as their value, as {@code java} reads them. */
    private static final java.util.Set<String> WITH_VALUE = java.util.Set.of("-cp", "-classpath", "--class-path",
            "-p", "--module-path", "--upgrade-module-path", "--add-modules", "--add-reads", "--add-exports",
            "--add-opens", "--limit-modules", "--patch-module", "--enable-native-access");

    /**
     * The main class and its arguments of a spawn's {@code command} and {@code argv}: past the options
     * of a {@code java} command line, or {@code command} itself when it is not {@code java}. Something
     * else (a jar, an executable) is passed on as it is, for the launcher to refuse by name.
     */
    static String[] javaProgram(String command, String[] argv) {
        List<String> args = argv == null ? List.of() : Arrays.asList(argv);
        String name = command == null ? "" : command.strip();
        if (!name.equals("java") && !name.endsWith("/java")) {
            List<String> all = new java.util.ArrayList<>();
            all.add(name);
            all.addAll(args);
            return all.toArray(String[]::new);
        }
        int i = 0;
        while (i < args.size() && args.get(i) != null && args.get(i).startsWith("-") && !args.get(i).equals("-jar")) {
            i += WITH_VALUE.contains(args.get(i)) ? 2 : 1;
        }
        if (i >= args.size()) {
            return new String[] {"java " + String.join(" ", args)};
        }
        return args.subList(i, args.size()).toArray(String[]::new);
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
     * A communicator of the processes of {@code group}, in its order, called by those only
     * (MPI_COMM_CREATE_GROUP): the other ranks take no part. The group's first process agrees the
     * new communicator with the others over this one; all must pass the same group and {@code tag}
     * (else each fails with {@link MPI#ERR_ARG}, naming the difference). A rank not in the group gets a
     * null communicator, at once, as Open MPI's does.
     */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        Communicator c = live();
        int index = subgroupIndex(group, "createGroup");
        if (index == MPI.UNDEFINED) {
            return new Intracomm(null, this);
        }
        if (tag < 0) {
            throw Errors.error(MPI.ERR_TAG, "createGroup: invalid tag " + tag + ": 0 or more");
        }
        int[] world = group.members();
        int[] ranks = new int[world.length];
        for (int i = 0; i < world.length; i++) {
            ranks[i] = Group.indexOf(members(), world[i]);
        }
        try {
            return new Intracomm(c.createGroup(ranks, tag), this);
        } catch (TuttiException e) {
            throw Errors.of(e, "createGroup");
        }
    }

    // ------------------------------------------------------------ topologies

    /**
     * A communicator with a Cartesian grid of {@code dims} over the first ranks of this one, row-major
     * (MPI_CART_CREATE); ranks beyond the grid get a null one. {@code reorder} is accepted, ranks
     * kept. Collective.
     */
    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        int n = gridSize(dims, periods, getSize(), "createCart");
        int rank = getRank();
        return CartComm.over(split(rank < n ? 0 : Communicator.UNDEFINED, rank, "createCart"), this, dims.clone(),
                periods.clone(), "createCart");
    }

    /** Ranks in a grid of {@code dims}, checked against {@code size}. */
    static int gridSize(int[] dims, boolean[] periods, int size, String call) throws MPIException {
        if (dims == null || periods == null || dims.length != periods.length) {
            throw Errors.error(MPI.ERR_DIMS, call + ": a period per dimension is needed");
        }
        long n = 1;
        for (int d : dims) {
            if (d <= 0) {
                throw Errors.error(MPI.ERR_DIMS, call + ": dimension " + d + " is not 1 or more (fill zeros with"
                        + " CartComm.createDims)");
            }
            n *= d;
        }
        if (n > size) {
            throw Errors.error(MPI.ERR_DIMS, call + ": the grid " + Arrays.toString(dims) + " has " + n
                    + " places, more than the " + size + " ranks");
        }
        return (int) n;
    }

    /**
     * A communicator with the graph of {@code index} and {@code edges} (MPI_GRAPH_CREATE) over the
     * first {@code index.length} ranks; the others get a null one. Collective.
     */
    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder) throws MPIException {
        checkGraph(index, edges, getSize(), "createGraph");
        int rank = getRank();
        int[] ix = index.clone();
        int[] ed = edges.clone();
        return GraphComm.over(split(rank < index.length ? 0 : Communicator.UNDEFINED, rank, "createGraph"), this,
                traffic -> Topology.graph(ix, ed, rank, traffic), "createGraph");
    }

    static void checkGraph(int[] index, int[] edges, int size, String call) throws MPIException {
        if (index == null || edges == null || index.length > size) {
            throw Errors.error(MPI.ERR_ARG, call + ": " + (index == null ? 0 : index.length) + " nodes for " + size
                    + " ranks");
        }
        int prev = 0;
        for (int i : index) {
            if (i < prev || i > edges.length) {
                throw Errors.error(MPI.ERR_ARG, call + ": the index array goes up to at most " + edges.length
                        + " edges: " + Arrays.toString(index));
            }
            prev = i;
        }
        for (int e : edges) {
            if (e < 0 || e >= index.length) {
                throw Errors.error(MPI.ERR_RANK, call + ": edge to " + e + ", not a node of the graph");
            }
        }
    }

    /**
     * A distributed graph from each rank's own in- and out-neighbours (MPI_DIST_GRAPH_CREATE_ADJACENT),
     * with weights. Collective.
     */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
                                                   int[] destWeights, Info info, boolean reorder) throws MPIException {
        return adjacent(sources, sourceWeights, destinations, destWeights, true);
    }

    /** As {@link #createDistGraphAdjacent(int[], int[], int[], int[], Info, boolean)}, without weights. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        return adjacent(sources, null, destinations, null, false);
    }

    private GraphComm adjacent(int[] in, int[] inW, int[] out, int[] outW, boolean weighted) throws MPIException {
        String call = "createDistGraphAdjacent";
        int size = getSize();
        checkRanks(in, size, call);
        checkRanks(out, size, call);
        if (weighted && (inW == null || outW == null || inW.length != in.length || outW.length != out.length)) {
            throw Errors.error(MPI.ERR_ARG, call + ": a weight per source and per destination is needed");
        }
        int[] a = in.clone();
        int[] b = out.clone();
        int[] aw = weighted ? inW.clone() : new int[in.length];
        int[] bw = weighted ? outW.clone() : new int[out.length];
        return GraphComm.over(split(0, getRank(), call), this,
                traffic -> Topology.distGraph(a, aw, b, bw, weighted, traffic), call);
    }

    /**
     * A distributed graph from edges any rank may give (MPI_DIST_GRAPH_CREATE): source
     * {@code sources[i]} has {@code degrees[i]} edges to the next ranks of {@code destinations},
     * with weights. The edges are sent to both their ends (an all-to-all). Collective.
     */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info info,
                                           boolean reorder) throws MPIException {
        return distGraph(sources, degrees, destinations, weights, true);
    }

    /** As {@link #createDistGraph(int[], int[], int[], int[], Info, boolean)}, without weights. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, Info info,
                                           boolean reorder) throws MPIException {
        return distGraph(sources, degrees, destinations, null, false);
    }

    private GraphComm distGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, boolean weighted)
            throws MPIException {
        String call = "createDistGraph";
        Communicator c = live();
        int size = c.size();
        checkRanks(sources, size, call);
        checkRanks(destinations, size, call);
        if (degrees == null || degrees.length != sources.length) {
            throw Errors.error(MPI.ERR_ARG, call + ": a degree per source is needed");
        }
        int edges = 0;
        for (int d : degrees) {
            if (d < 0) {
                throw Errors.error(MPI.ERR_ARG, call + ": degree " + d + " is negative");
            }
            edges += d;
        }
        if (edges > destinations.length || (weighted && (weights == null || weights.length < edges))) {
            throw Errors.error(MPI.ERR_ARG, call + ": " + edges + " edges need as many destinations"
                    + (weighted ? " and weights" : ""));
        }
        // each edge (s, d, w) goes to s as (out, d, w) and to d as (in, s, w): three ints each
        int[] counts = new int[size];
        for (int i = 0, e = 0; i < sources.length; i++) {
            for (int k = 0; k < degrees[i]; k++, e++) {
                counts[sources[i]] += 3;
                counts[destinations[e]] += 3;
            }
        }
        int[] displs = new int[size];
        for (int r = 1; r < size; r++) {
            displs[r] = displs[r - 1] + counts[r - 1];
        }
        int[] send = new int[displs[size - 1] + counts[size - 1]];
        int[] at = displs.clone();
        for (int i = 0, e = 0; i < sources.length; i++) {
            for (int k = 0; k < degrees[i]; k++, e++) {
                int s = sources[i];
                int d = destinations[e];
                int w = weighted ? weights[e] : 0;
                send[at[s]++] = 1;
                send[at[s]++] = d;
                send[at[s]++] = w;
                send[at[d]++] = 0;
                send[at[d]++] = s;
                send[at[d]++] = w;
            }
        }
        int[] recvCounts = new int[size];
        int[] recv;
        int[] rdispls = new int[size];
        try {
            c.alltoall(counts, recvCounts, 1, io.tutti.Datatype.INT);
            for (int r = 1; r < size; r++) {
                rdispls[r] = rdispls[r - 1] + recvCounts[r - 1];
            }
            recv = new int[rdispls[size - 1] + recvCounts[size - 1]];
            c.alltoallv(send, counts, displs, recv, recvCounts, rdispls, io.tutti.Datatype.INT);
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        int nIn = 0;
        for (int i = 0; i < recv.length; i += 3) {
            nIn += recv[i] == 0 ? 1 : 0;
        }
        int[] in = new int[nIn];
        int[] inW = new int[nIn];
        int[] out = new int[recv.length / 3 - nIn];
        int[] outW = new int[out.length];
        for (int i = 0, a = 0, b = 0; i < recv.length; i += 3) {
            if (recv[i] == 0) {
                in[a] = recv[i + 1];
                inW[a++] = recv[i + 2];
            } else {
                out[b] = recv[i + 1];
                outW[b++] = recv[i + 2];
            }
        }
        return GraphComm.over(split(0, getRank(), call), this,
                traffic -> Topology.distGraph(in, inW, out, outW, weighted, traffic), call);
    }

    private static void checkRanks(int[] ranks, int size, String call) throws MPIException {
        if (ranks == null) {
            throw Errors.error(MPI.ERR_ARG, call + ": a rank array is null");
        }
        for (int r : ranks) {
            if (r < 0 || r >= size) {
                throw Errors.error(MPI.ERR_RANK, call + ": invalid rank " + r + ": this communicator has " + size
                        + " ranks");
            }
        }
    }

    /** This rank's index in {@code group}, a subset of this communicator's group, or {@link MPI#UNDEFINED}. */
    private int subgroupIndex(Group group, String call) throws MPIException {
        if (group == null) {
            throw Errors.error(MPI.ERR_GROUP, call + ": the group is null");
        }
        int[] g = group.members();
        int[] mine = members();     // after the group's check: this communicator's handler again
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

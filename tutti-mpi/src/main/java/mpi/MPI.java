package mpi;

import io.tutti.Communicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.Properties;

/**
 * The entry point of the API: {@link #Init} and {@link #Finalize}, the predefined communicators,
 * datatypes and operations, MPI's constants (with Open MPI 5.0's values, so that programs that
 * print or compare them see the same numbers), the clock, and direct buffers.
 *
 * <p>A program joins the job with {@code MPI.Init(args)} (which starts Tutti, {@link Tutti#init}) and
 * leaves it with {@code MPI.Finalize()}; every other call fails with an {@link MPIException} before
 * the one and after the other. The state is static, as in the bindings: one rank's per copy of
 * these classes, so one per JVM, or, under {@code tutti run --threads} (ranks as threads of one
 * JVM), one per rank thread, whose class loader defines the package anew for that rank.
 */
public final class MPI {
    private MPI() {
    }

    private static volatile boolean initialized;
    private static volatile boolean finalized;
    private static Tutti tutti;
    private static Thread mainThread;
    private static int provided;
    private static BufferedSends attached;
    /** The communicator, window or file of the call in progress, whose error handler its errors go to. */
    private static Object raisedOn;
    private static String processorName;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    // ------------------------------------------------------------ constants, with Open MPI 5.0's values

    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;

    public static final int GRAPH = 2;
    public static final int DIST_GRAPH = 3;
    public static final int CART = 1;

    /** Receive from any rank; {@link io.tutti.Communicator#ANY_SOURCE} has the same value. */
    public static final int ANY_SOURCE = -1;
    /** Receive with any tag; {@link io.tutti.Communicator#ANY_TAG} has the same value. */
    public static final int ANY_TAG = -1;
    /** The rank that sends and receives nothing: calls with it return at once. */
    public static final int PROC_NULL = -2;
    public static final int ROOT = -4;
    public static final int UNDEFINED = -32766;

    public static final int IDENT = 0;
    public static final int CONGRUENT = 1;
    public static final int SIMILAR = 2;
    public static final int UNEQUAL = 3;

    // the keys of the predefined attributes (Comm.getAttr)
    public static final int TAG_UB = 0;
    public static final int HOST = 1;
    public static final int IO = 2;
    public static final int WTIME_IS_GLOBAL = 3;
    public static final int APPNUM = 4;
    public static final int LASTUSEDCODE = 5;
    public static final int UNIVERSE_SIZE = 6;
    public static final int WIN_BASE = 7;
    public static final int WIN_SIZE = 8;
    public static final int WIN_DISP_UNIT = 9;

    /** The version of the MPI standard the API follows (Open MPI 5.0's: 3.1). */
    public static final int VERSION = 3;
    public static final int SUBVERSION = 1;

    public static final int KEYVAL_INVALID = -1;
    /** Bytes of the attached buffer each {@link Comm#bSend} takes beyond its message. */
    public static final int BSEND_OVERHEAD = 128;
    public static final int MAX_OBJECT_NAME = 64;
    public static final int MAX_PORT_NAME = 1024;
    public static final int MAX_DATAREP_STRING = 128;
    public static final int MAX_INFO_KEY = 36;
    public static final int MAX_INFO_VAL = 256;
    private static final int MAX_PROCESSOR_NAME = 256;

    public static final int ORDER_C = 0;
    public static final int ORDER_FORTRAN = 1;
    public static final int DISTRIBUTE_BLOCK = 0;
    public static final int DISTRIBUTE_CYCLIC = 1;
    public static final int DISTRIBUTE_NONE = 2;
    public static final int DISTRIBUTE_DFLT_DARG = -1;

    public static final int MODE_CREATE = 1;
    public static final int MODE_RDONLY = 2;
    public static final int MODE_WRONLY = 4;
    public static final int MODE_RDWR = 8;
    public static final int MODE_DELETE_ON_CLOSE = 16;
    public static final int MODE_UNIQUE_OPEN = 32;
    public static final int MODE_EXCL = 64;
    public static final int MODE_APPEND = 128;
    public static final int MODE_SEQUENTIAL = 256;
    public static final int DISPLACEMENT_CURRENT = -54278278;
    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;

    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOPRECEDE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOSTORE = 8;
    public static final int MODE_NOSUCCEED = 16;
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;

    // error classes (an error's code is its class here)
    public static final int SUCCESS = 0;
    public static final int ERR_BUFFER = 1;
    public static final int ERR_COUNT = 2;
    public static final int ERR_TYPE = 3;
    public static final int ERR_TAG = 4;
    public static final int ERR_COMM = 5;
    public static final int ERR_RANK = 6;
    public static final int ERR_REQUEST = 7;
    public static final int ERR_ROOT = 8;
    public static final int ERR_GROUP = 9;
    public static final int ERR_OP = 10;
    public static final int ERR_TOPOLOGY = 11;
    public static final int ERR_DIMS = 12;
    public static final int ERR_ARG = 13;
    public static final int ERR_UNKNOWN = 14;
    /** A message longer than the receive buffer. */
    public static final int ERR_TRUNCATE = 15;
    public static final int ERR_OTHER = 16;
    public static final int ERR_INTERN = 17;
    public static final int ERR_IN_STATUS = 18;
    public static final int ERR_PENDING = 19;
    public static final int ERR_ACCESS = 20;
    public static final int ERR_AMODE = 21;
    public static final int ERR_ASSERT = 22;
    public static final int ERR_BAD_FILE = 23;
    public static final int ERR_BASE = 24;
    public static final int ERR_CONVERSION = 25;
    public static final int ERR_DISP = 26;
    public static final int ERR_DUP_DATAREP = 27;
    public static final int ERR_FILE_EXISTS = 28;
    public static final int ERR_FILE_IN_USE = 29;
    public static final int ERR_FILE = 30;
    public static final int ERR_INFO_KEY = 31;
    public static final int ERR_INFO_NOKEY = 32;
    public static final int ERR_INFO_VALUE = 33;
    public static final int ERR_INFO = 34;
    public static final int ERR_IO = 35;
    public static final int ERR_KEYVAL = 36;
    public static final int ERR_LOCKTYPE = 37;
    public static final int ERR_NAME = 38;
    public static final int ERR_NO_MEM = 39;
    public static final int ERR_NOT_SAME = 40;
    public static final int ERR_NO_SPACE = 41;
    public static final int ERR_NO_SUCH_FILE = 42;
    public static final int ERR_PORT = 43;
    public static final int ERR_QUOTA = 44;
    public static final int ERR_READ_ONLY = 45;
    public static final int ERR_RMA_CONFLICT = 46;
    public static final int ERR_RMA_SYNC = 47;
    public static final int ERR_SERVICE = 48;
    public static final int ERR_SIZE = 49;
    public static final int ERR_SPAWN = 50;
    public static final int ERR_UNSUPPORTED_DATAREP = 51;
    public static final int ERR_UNSUPPORTED_OPERATION = 52;
    public static final int ERR_WIN = 53;
    /** A rank this call needs has ended: the class of Tutti's {@code PeerFailed}. */
    public static final int ERR_PROC_ABORTED = 74;
    public static final int ERR_LASTCODE = 92;
    /** 0, as in Open MPI 5.0's bindings, which declare it but never set it. */
    public static final int ERR_SYSRESOURCE = 0;

    // ------------------------------------------------------------ predefined objects

    /** All ranks of the job. */
    public static final Intracomm COMM_WORLD = new Intracomm("MPI.COMM_WORLD", "MPI_COMM_WORLD");
    /** This rank alone. */
    public static final Intracomm COMM_SELF = new Intracomm("MPI.COMM_SELF", "MPI_COMM_SELF");
    /** The group of no process. */
    public static final Group GROUP_EMPTY = new Group(new int[0]);
    /** The null info: calls that take hints accept it. */
    public static final Info INFO_NULL = Info.predefined(true);
    /** What is known of the job's environment: {@code host}, {@code wdir}, {@code maxprocs}. */
    public static final Info INFO_ENV = Info.predefined(false);

    /** Every communicator's default: an error prints a line naming the rank and the call, and the job ends. */
    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler("MPI.ERRORS_ARE_FATAL", true);
    /** As {@link #ERRORS_ARE_FATAL}. */
    public static final Errhandler ERRORS_ABORT = new Errhandler("MPI.ERRORS_ABORT", true);
    /** An error is thrown as an {@link MPIException} with its MPI class and code. */
    public static final Errhandler ERRORS_RETURN = new Errhandler("MPI.ERRORS_RETURN", false);

    public static final Datatype DATATYPE_NULL = new Datatype(Datatype.NULL, "MPI.DATATYPE_NULL",
            "MPI_DATATYPE_NULL", 0, 0, 0, 1, 0, 0, null, null);
    public static final Datatype BYTE = Datatype.basic(Datatype.BYTE, "MPI.BYTE", "MPI_UINT8_T", 1, byte[].class);
    /** Java's {@code char}: two bytes. */
    public static final Datatype CHAR = Datatype.basic(Datatype.CHAR, "MPI.CHAR", "MPI_UINT16_T", 2, char[].class);
    public static final Datatype SHORT = Datatype.basic(Datatype.SHORT, "MPI.SHORT", "MPI_INT16_T", 2,
            short[].class);
    /** Java's {@code boolean}: one byte, 0 or 1. */
    public static final Datatype BOOLEAN = Datatype.basic(Datatype.BOOLEAN, "MPI.BOOLEAN", "MPI_UINT8_T", 1,
            boolean[].class);
    public static final Datatype INT = Datatype.basic(Datatype.INT, "MPI.INT", "MPI_INT32_T", 4, int[].class);
    /** Java's {@code long}: eight bytes. */
    public static final Datatype LONG = Datatype.basic(Datatype.LONG, "MPI.LONG", "MPI_INT64_T", 8, long[].class);
    public static final Datatype FLOAT = Datatype.basic(Datatype.FLOAT, "MPI.FLOAT", "MPI_FLOAT", 4, float[].class);
    public static final Datatype DOUBLE = Datatype.basic(Datatype.DOUBLE, "MPI.DOUBLE", "MPI_DOUBLE", 8,
            double[].class);
    public static final Datatype PACKED = Datatype.basic(Datatype.PACKED, "MPI.PACKED", "MPI_PACKED", 1,
            byte[].class);
    /** Two {@code int}s (value, index), in a byte buffer or an {@code int[]}: 8 bytes. */
    public static final Datatype INT2 = new Datatype(Datatype.INT2, "MPI.INT2", "MPI_2INT", 8, 8, 8, 1, 2, 4,
            byte[].class, int[].class);
    /** C's {@code struct {short; int}} in a byte buffer: 6 bytes of data in 8. */
    public static final Datatype SHORT_INT = new Datatype(Datatype.SHORT_INT, "MPI.SHORT_INT", "MPI_SHORT_INT", 6, 8,
            8, 1, 2, 2, byte[].class, null);
    /** C's {@code struct {long; int}} in a byte buffer: 12 bytes of data in 16. */
    public static final Datatype LONG_INT = new Datatype(Datatype.LONG_INT, "MPI.LONG_INT", "MPI_LONG_INT", 12, 16,
            12, 1, 2, 8, byte[].class, null);
    /** C's {@code struct {float; int}} in a byte buffer: 8 bytes. */
    public static final Datatype FLOAT_INT = new Datatype(Datatype.FLOAT_INT, "MPI.FLOAT_INT", "MPI_FLOAT_INT", 8, 8,
            8, 1, 2, 4, byte[].class, null);
    /** C's {@code struct {double; int}} in a byte buffer: 12 bytes of data in 16. */
    public static final Datatype DOUBLE_INT = new Datatype(Datatype.DOUBLE_INT, "MPI.DOUBLE_INT", "MPI_DOUBLE_INT",
            12, 16, 12, 1, 2, 8, byte[].class, null);
    /** Two {@code float}s (real, imaginary) in a {@code float[]}. */
    public static final Datatype FLOAT_COMPLEX = new Datatype(Datatype.FLOAT_COMPLEX, "MPI.FLOAT_COMPLEX",
            "MPI_C_FLOAT_COMPLEX", 8, 8, 8, 4, 2, 4, float[].class, null);
    /** Two {@code double}s (real, imaginary) in a {@code double[]}. */
    public static final Datatype DOUBLE_COMPLEX = new Datatype(Datatype.DOUBLE_COMPLEX, "MPI.DOUBLE_COMPLEX",
            "MPI_C_DOUBLE_COMPLEX", 16, 16, 16, 8, 2, 8, double[].class, null);

    /** The accessors of the (value, index) pairs in byte buffers: MPI.doubleInt.getData(buf, i).getValue(), ... */
    public static final Int2 int2 = new Int2();
    public static final ShortInt shortInt = new ShortInt();
    public static final LongInt longInt = new LongInt();
    public static final FloatInt floatInt = new FloatInt();
    public static final DoubleInt doubleInt = new DoubleInt();

    /** The null request: waits and tests on it return at once. */
    public static final Request REQUEST_NULL = new Request();

    public static final Op MAX = new Op("MPI.MAX", ReduceOp.MAX);
    public static final Op MIN = new Op("MPI.MIN", ReduceOp.MIN);
    public static final Op SUM = new Op("MPI.SUM", ReduceOp.SUM);
    public static final Op PROD = new Op("MPI.PROD", ReduceOp.PROD);
    public static final Op LAND = new Op("MPI.LAND", ReduceOp.LAND);
    public static final Op BAND = new Op("MPI.BAND", ReduceOp.BAND);
    public static final Op LOR = new Op("MPI.LOR", ReduceOp.LOR);
    public static final Op BOR = new Op("MPI.BOR", ReduceOp.BOR);
    public static final Op LXOR = new Op("MPI.LXOR", ReduceOp.LXOR);
    public static final Op BXOR = new Op("MPI.BXOR", ReduceOp.BXOR);
    public static final Op MINLOC = new Op("MPI.MINLOC", ReduceOp.MINLOC);
    public static final Op MAXLOC = new Op("MPI.MAXLOC", ReduceOp.MAXLOC);
    /** For one-sided accumulates ({@link Win#accumulate}): no reduction of Tutti's stands for it. */
    public static final Op REPLACE = new Op("MPI.REPLACE", null);
    /** For one-sided accumulates ({@link Win#accumulate}): no reduction of Tutti's stands for it. */
    public static final Op NO_OP = new Op("MPI.NO_OP", null);

    // ------------------------------------------------------------ start and end

    /**
     * Joins the job (MPI_INIT): starts Tutti ({@link Tutti#init(String[])}) and binds
     * {@link #COMM_WORLD} and {@link #COMM_SELF} to it. Returns the arguments, which Tutti leaves as
     * they are. Fails if MPI has been initialized before.
     */
    public static String[] Init(String[] args) throws MPIException {
        start(args, THREAD_SINGLE);
        return args;
    }

    /**
     * Joins the job as {@link #Init} does and returns the thread level provided (MPI_INIT_THREAD):
     * the one required, up to {@link #THREAD_SERIALIZED}, which is Tutti's (a communicator is used
     * by one thread at a time); {@link #THREAD_MULTIPLE} is answered with {@link #THREAD_SERIALIZED}.
     */
    public static int InitThread(String[] args, int required) throws MPIException {
        start(args, Math.min(Math.max(required, THREAD_SINGLE), THREAD_SERIALIZED));
        return provided;
    }

    private static void start(String[] args, int level) throws MPIException {
        Thread me = Thread.currentThread();
        synchronized (MPI.class) {
            if (mainThread != null && mainThread != me) {
                // Another thread of the rank, or another rank that shares these classes: ranks that are
                // threads started other than by tutti run --threads, whose rank loaders each have their
                // own. Refused at once: that rank's Init waits for this one to join the job.
                throw new MPIException("MPI.Init has been called already, by thread \"" + mainThread.getName() + "\": a"
                        + " rank calls MPI.Init once. If this thread is another rank, its mpi classes are the same as"
                        + " that thread's (this API keeps one rank's state per copy of its classes): start ranks that"
                        + " are threads with tutti run --threads, which gives each rank its own copy, or run one JVM"
                        + " per rank");
            }
            if (mainThread != null) {
                throw new MPIException("MPI is already initialized.");
            }
            mainThread = me;
        }
        // outside the lock: Tutti.init waits for every rank to join
        Tutti t;
        try {
            t = Tutti.init(args);
        } catch (TuttiException e) {
            unclaim();
            throw Errors.of(e, "MPI.Init");
        }
        try {
            Communicator world = t.world();
            COMM_WORLD.bind(world);
            COMM_SELF.bind(world.split(world.rank(), 0));
            INFO_ENV.environment(hostName(), world.size());
        } catch (TuttiException e) {
            t.close();
            unclaim();
            throw Errors.of(e, "MPI.Init");
        }
        synchronized (MPI.class) {
            tutti = t;
            provided = level;
            initialized = true;
        }
    }

    /** An Init that failed leaves MPI uninitialized, for another try. */
    private static synchronized void unclaim() {
        mainThread = null;
    }

    /** The thread level {@link #InitThread} provided ({@link #THREAD_SINGLE} after {@link #Init}). */
    public static int queryThread() throws MPIException {
        check();
        return provided;
    }

    /** Whether the calling thread is the one that called {@link #Init}. */
    public static boolean isThreadMain() throws MPIException {
        check();
        return Thread.currentThread() == mainThread;
    }

    /**
     * Leaves the job (MPI_FINALIZE): waits for the buffered sends in flight and for every rank to
     * reach Finalize too (a barrier: MPI_FINALIZE is collective, and Tutti's close is not, so
     * without it a rank could end while another still waits on a wildcard receive, which Tutti
     * fails once any rank has ended), then closes Tutti ({@link Tutti#close()}).
     */
    public static synchronized void Finalize() throws MPIException {
        check();
        try {
            if (attached != null) {
                attached.detach();
            }
            tutti.world().barrier();
            tutti.close();
        } catch (TuttiException e) {
            throw Errors.of(e, "MPI.Finalize");
        } finally {
            finalized = true;
        }
    }

    /** Whether {@link #Init} has run (MPI_INITIALIZED); true after {@link #Finalize} too. */
    public static boolean isInitialized() throws MPIException {
        return initialized;
    }

    /** Whether {@link #Finalize} has run (MPI_FINALIZED). */
    public static boolean isFinalized() throws MPIException {
        return finalized;
    }

    /** The intercommunicator to this process's parents, made once; null when it was not spawned. */
    private static Intercomm parent;

    /** {@link Intercomm#getParent}'s answer: the same object at every call. */
    static synchronized Intercomm parent() {
        if (parent == null) {
            io.tutti.Intercommunicator p = tutti.parent();
            parent = p == null ? null : new Intercomm(p, COMM_WORLD);
        }
        return parent;
    }

    /** The runtime under this process's MPI, for the calls on no communicator (ports and names). */
    static Tutti runtime() throws MPIException {
        check();
        return tutti;
    }

    /**
     * Fails unless MPI is initialized and not finalized, and the calling thread may call MPI at the
     * thread level provided: the guard of every call. Its errors go to {@link #COMM_WORLD}'s handler,
     * as MPI says for calls on no communicator, until the call names its own object ({@link #raisedOn}).
     */
    static void check() throws MPIException {
        if (!initialized) {
            throw new MPIException("MPI is not initialized: call MPI.Init(args) first.");
        }
        if (finalized) {
            throw new MPIException("MPI is finalized.");
        }
        raisedOn = COMM_WORLD;
        if (provided < THREAD_SERIALIZED && Thread.currentThread() != mainThread) {
            throw Errors.error(ERR_OTHER, "an MPI call from thread \"" + Thread.currentThread().getName()
                    + "\", which did not call MPI.Init: the thread level provided is "
                    + (provided == THREAD_SINGLE ? "MPI.THREAD_SINGLE" : "MPI.THREAD_FUNNELED")
                    + "; start with MPI.InitThread(args, MPI.THREAD_SERIALIZED) to call from other threads, one"
                    + " at a time");
        }
    }

    /**
     * Makes {@code c} the object whose error handler the call's errors go to: a {@link Comm},
     * {@link Win} or {@link File}; null for none, so that they are thrown.
     */
    static void raisedOn(Object c) {
        raisedOn = c;
    }

    /**
     * Hands {@code e} to the error handler of the call's communicator: returns it to be thrown under
     * {@link #ERRORS_RETURN}; under {@link #ERRORS_ARE_FATAL} prints one line and ends the job.
     */
    static MPIException handle(MPIException e) {
        Object c = raisedOn;
        Errhandler h = switch (c) {
            case Comm x -> x.errhandler;
            case Win x -> x.errhandler;
            case File x -> x.errhandler;
            case null, default -> null;
        };
        if (initialized && !finalized && h != null && h.fatal) {
            int rank = -1;
            try {
                rank = COMM_WORLD.getRank();
            } catch (MPIException ignored) {
                // the rank stays unknown
            }
            end(e.getErrorClass() == 0 ? 1 : e.getErrorClass(), "rank " + rank + " (" + c + "): " + e.getMessage()
                    + " [MPI error class " + e.getErrorClass() + "]; the job ends, as " + h + " says (set"
                    + " MPI.ERRORS_RETURN with setErrhandler to get an MPIException instead)");
        }
        return e;
    }

    /**
     * Ends the job: prints {@code message} on standard error and ends this rank with {@code status}
     * ({@link Tutti#abort}: its JVM exits, or, a rank that is a thread, its launcher ends the job and
     * names it); the launcher stops the rest.
     */
    static void end(int status, String message) {
        System.out.flush();
        System.err.println("mpi: " + message);
        System.err.flush();
        Tutti t = tutti;
        if (t != null) {
            t.abort(status);
        }
        System.exit(status);
    }

    // ------------------------------------------------------------ clock, names, versions

    /** Seconds since an arbitrary time in the past, from a monotonic clock (MPI_WTIME); not global. */
    public static double wtime() throws MPIException {
        check();
        return System.nanoTime() * 1e-9;
    }

    /** The resolution of {@link #wtime()} in seconds (MPI_WTICK): a nanosecond. */
    public static double wtick() throws MPIException {
        check();
        return 1e-9;
    }

    /** The name of this host (MPI_GET_PROCESSOR_NAME), at most 256 characters. */
    public static String getProcessorName() throws MPIException {
        check();
        return hostName();
    }

    /** This host's name, at most 256 characters. */
    static String hostName() {
        String name = processorName;
        if (name == null) {
            try {
                name = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                name = "localhost";
            }
            if (name.length() > MAX_PROCESSOR_NAME) {
                name = name.substring(0, MAX_PROCESSOR_NAME);
            }
            processorName = name;
        }
        return name;
    }

    /** The version of the MPI standard this API follows (MPI_GET_VERSION): 3.1, as Open MPI 5.0's bindings. */
    public static Version getVersion() {
        return new Version(VERSION, SUBVERSION);
    }

    /** The library behind this API (MPI_GET_LIBRARY_VERSION): Tutti and its version. */
    public static String getLibVersion() {
        String version = "unknown";
        try (InputStream in = MPI.class.getResourceAsStream("tutti-mpi.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                version = p.getProperty("version", version);
            }
        } catch (IOException e) {
            // the version stays unknown
        }
        return "Tutti " + version + " (the mpi API of Open MPI 5.0's Java bindings over io.tutti)";
    }

    /** Does nothing (MPI_PCONTROL: profiling control, which Tutti has none of). */
    public static void pControl(int level, Object obj) {
    }

    // ------------------------------------------------------------ the buffer of buffered sends

    /**
     * Attaches {@code buffer} for the buffered sends ({@link Comm#bSend}) (MPI_BUFFER_ATTACH); one
     * buffer at a time, so a second one fails with {@link #ERR_BUFFER} until the first is detached.
     */
    public static synchronized void attachBuffer(byte[] buffer) throws MPIException {
        check();
        if (buffer == null) {
            throw Errors.error(ERR_BUFFER, "MPI.attachBuffer: the buffer is null");
        }
        if (attached != null) {
            throw Errors.error(ERR_BUFFER, "MPI.attachBuffer: a buffer of " + attached.buffer().length
                    + " bytes is attached already: detach it first (MPI.detachBuffer)");
        }
        attached = new BufferedSends(buffer);
    }

    /**
     * Waits until every buffered send has left the attached buffer, detaches it and returns it
     * (MPI_BUFFER_DETACH); null if none is attached.
     */
    public static synchronized byte[] detachBuffer() throws MPIException {
        check();
        BufferedSends b = attached;
        if (b == null) {
            return null;
        }
        try {
            b.detach();
        } catch (TuttiException e) {
            throw Errors.of(e, "MPI.detachBuffer");
        } finally {
            attached = null;
        }
        return b.buffer();
    }

    /** The attached buffer, for {@link Comm#bSend}. */
    static synchronized BufferedSends bsendBuffer() throws MPIException {
        if (attached == null) {
            throw Errors.error(ERR_BUFFER, "bSend: no buffer is attached: attach one with MPI.attachBuffer(new"
                    + " byte[size]), size the messages plus MPI.BSEND_OVERHEAD bytes each");
        }
        return attached;
    }

    // ------------------------------------------------------------ direct buffers and slices

    /** Fails unless {@code buf} is direct, as the bindings' nonblocking calls require. */
    static void assertDirectBuffer(java.nio.Buffer buf) {
        if (buf == null || !buf.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct: the nonblocking calls take direct buffers"
                    + " (MPI.newIntBuffer, ...), as in Open MPI's bindings");
        }
    }

    /** A direct byte buffer of {@code capacity} bytes in the platform's byte order. */
    public static ByteBuffer newByteBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(NATIVE);
    }

    /** A direct buffer of {@code capacity} chars, in the platform's byte order. */
    public static CharBuffer newCharBuffer(int capacity) {
        return direct(capacity, 2).asCharBuffer();
    }

    /** A direct buffer of {@code capacity} shorts, in the platform's byte order. */
    public static ShortBuffer newShortBuffer(int capacity) {
        return direct(capacity, 2).asShortBuffer();
    }

    /** A direct buffer of {@code capacity} ints, in the platform's byte order. */
    public static IntBuffer newIntBuffer(int capacity) {
        return direct(capacity, 4).asIntBuffer();
    }

    /** A direct buffer of {@code capacity} longs, in the platform's byte order. */
    public static LongBuffer newLongBuffer(int capacity) {
        return direct(capacity, 8).asLongBuffer();
    }

    /** A direct buffer of {@code capacity} floats, in the platform's byte order. */
    public static FloatBuffer newFloatBuffer(int capacity) {
        return direct(capacity, 4).asFloatBuffer();
    }

    /** A direct buffer of {@code capacity} doubles, in the platform's byte order. */
    public static DoubleBuffer newDoubleBuffer(int capacity) {
        return direct(capacity, 8).asDoubleBuffer();
    }

    private static ByteBuffer direct(int capacity, int size) {
        if (capacity > Integer.MAX_VALUE / size) {
            throw new IllegalArgumentException("a direct buffer of " + capacity + " elements of " + size
                    + " bytes is larger than 2^31 - 1 bytes");
        }
        return ByteBuffer.allocateDirect(capacity * size).order(NATIVE);
    }

    // A slice starts a buffer argument at an offset (C's &buf[offset]). Those of buffers clear the
    // buffer and leave its position at the offset, as the bindings' do.

    /** The bytes of {@code buf} from {@code offset} to its capacity, in the platform's byte order. */
    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return buf.clear().position(offset).slice().order(NATIVE);
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static CharBuffer slice(CharBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static ShortBuffer slice(ShortBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static IntBuffer slice(IntBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static LongBuffer slice(LongBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static FloatBuffer slice(FloatBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** The elements of {@code buf} from {@code offset} to its capacity. */
    public static DoubleBuffer slice(DoubleBuffer buf, int offset) {
        return buf.clear().position(offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}, in the platform's byte order. */
    public static ByteBuffer slice(byte[] buf, int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice().order(NATIVE);
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static CharBuffer slice(char[] buf, int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static ShortBuffer slice(short[] buf, int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static IntBuffer slice(int[] buf, int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static LongBuffer slice(long[] buf, int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static FloatBuffer slice(float[] buf, int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset}. */
    public static DoubleBuffer slice(double[] buf, int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }
}

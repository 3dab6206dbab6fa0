package mpi;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.ReduceOp;
import io.tutti.TuttiException;
import io.tutti.Window;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A file opened by the ranks of a communicator for MPI-IO (MPI_File), on a local or shared POSIX
 * file system: every rank opens it with a {@link FileChannel} and reads and writes its own bytes
 * with positional I/O, through its view ({@link #setView}: displacement, etype, file type). Offsets
 * and file pointers count etypes of the view.
 *
 * <p>The shared file pointer is a counter in a Tutti window at rank 0 of the file's communicator,
 * moved with an atomic fetch-and-add, over the rails when the ranks span hosts (where no window
 * can be made, the shared-pointer calls fail with {@link MPI#ERR_UNSUPPORTED_OPERATION}). There is
 * no collective buffering: the {@code All} forms are each rank's own I/O; the nonblocking forms
 * complete before they return.
 * With {@link #setAtomicity}(true) each access holds a POSIX lock over its byte range. Errors go to
 * the file's handler, {@link MPI#ERRORS_RETURN} unless set, as MPI says for files.
 */
public final class File {
    private static final int ACCESS = MPI.MODE_RDONLY | MPI.MODE_WRONLY | MPI.MODE_RDWR;
    private static final int MODES = ACCESS | MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_DELETE_ON_CLOSE
            | MPI.MODE_UNIQUE_OPEN | MPI.MODE_APPEND | MPI.MODE_SEQUENTIAL;

    Errhandler errhandler = MPI.ERRORS_RETURN;
    private FileChannel channel;
    private final Communicator comm;
    private final int[] members;
    private final int amode;
    private final Path path;
    private Info info;
    private FileView view = new FileView(0, MPI.BYTE, MPI.BYTE, "native");
    private ViewTiling tiling = new ViewTiling(0, new long[] {0, 1}, 1);
    private long etypeBytes = 1;
    /** Whether the view's data representation is external32 (big-endian) rather than native. */
    private boolean external;
    /** The individual file pointer, in etypes of the view. */
    private long pointer;
    private boolean atomic;
    /** The shared file pointer (etypes) at rank 0's window, or null where no window can be made. */
    private final Window shared;
    private final String sharedProblem;
    private final long[] delta = new long[1];
    private final long[] old = new long[1];
    private Status beginStatus;
    private final Region region = new Region();
    private ByteBuffer scratch = ByteBuffer.allocateDirect(0);
    private MemorySegment scratchSegment = MemorySegment.ofBuffer(scratch);

    /** Opens {@code filename} on every rank of {@code comm} with access mode {@code amode} (MPI_FILE_OPEN). */
    public File(Comm comm, String filename, int amode) throws MPIException {
        this(comm, filename, amode, MPI.INFO_NULL);
    }

    /**
     * Opens {@code filename} on every rank of {@code comm} (MPI_FILE_OPEN), collectively: one of
     * {@link MPI#MODE_RDONLY}, {@link MPI#MODE_WRONLY}, {@link MPI#MODE_RDWR}, with
     * {@link MPI#MODE_CREATE}, {@link MPI#MODE_EXCL}, {@link MPI#MODE_DELETE_ON_CLOSE},
     * {@link MPI#MODE_APPEND} (both file pointers start at the end), {@link MPI#MODE_SEQUENTIAL},
     * {@link MPI#MODE_UNIQUE_OPEN}. A missing file without CREATE fails with {@link MPI#ERR_NO_SUCH_FILE}.
     */
    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        Communicator parent = comm.live();
        MPI.raisedOn(this);
        checkAmode(amode);
        if (filename == null || filename.isEmpty()) {
            throw Errors.error(MPI.ERR_BAD_FILE, "File.open: the file name is empty");
        }
        this.amode = amode;
        this.path = Path.of(filename);
        this.members = comm.members();
        this.info = info == null || info.isNull() ? new Info() : info.dup();
        try {
            this.comm = parent.dup();
            long[] modes = {amode, -amode};
            this.comm.allreduce(modes.clone(), modes, 2, io.tutti.Datatype.LONG, ReduceOp.MAX);
            MPI.raisedOn(this);
            if (modes[0] != -modes[1]) {
                throw Errors.error(MPI.ERR_NOT_SAME, "File.open: the ranks gave different access modes");
            }
            rootDoes("File.open", this::create);
            int[] failed = {0};
            String why = null;
            try {
                channel = FileChannel.open(path, options(amode));
            } catch (IOException e) {
                failed[0] = ioClass(e);
                why = e.toString();
            }
            this.comm.allreduce(failed.clone(), failed, 1, io.tutti.Datatype.INT, ReduceOp.MAX);
            if (failed[0] != 0) {
                closeQuietly();
                throw Errors.error(failed[0], "File.open: " + filename + " cannot be opened"
                        + (why != null ? ": " + why : " on another rank"));
            }
            Window w = null;
            String problem = null;
            try {
                w = this.comm.allocateWindow(this.comm.rank() == 0 ? 8 : 0, 8);
            } catch (TuttiException e) {
                problem = e.getMessage();
            }
            this.shared = w;
            this.sharedProblem = problem;
            if ((amode & MPI.MODE_APPEND) != 0) {
                pointer = channel.size();
                if (w != null && this.comm.rank() == 0) {
                    w.segment().set(ValueLayout.JAVA_LONG, 0, pointer);
                }
            }
            this.comm.barrier();
        } catch (TuttiException e) {
            closeQuietly();
            throw Errors.of(e, "File.open");
        } catch (IOException e) {
            closeQuietly();
            throw ioError(e, "File.open");
        }
    }

    private static void checkAmode(int amode) throws MPIException {
        int access = amode & ACCESS;
        String problem = (amode & ~MODES) != 0 ? "it has bits that are no MPI.MODE_ constant"
                : Integer.bitCount(access) != 1 ? "it needs exactly one of MPI.MODE_RDONLY, MODE_WRONLY and MODE_RDWR"
                : access == MPI.MODE_RDONLY && (amode & (MPI.MODE_CREATE | MPI.MODE_EXCL)) != 0
                        ? "MPI.MODE_RDONLY cannot go with MODE_CREATE or MODE_EXCL"
                : access == MPI.MODE_RDWR && (amode & MPI.MODE_SEQUENTIAL) != 0
                        ? "MPI.MODE_RDWR cannot go with MODE_SEQUENTIAL" : null;
        if (problem != null) {
            throw Errors.error(MPI.ERR_AMODE, "File.open: invalid access mode " + amode + ": " + problem);
        }
    }

    private static OpenOption[] options(int amode) {
        List<OpenOption> o = new ArrayList<>();
        if ((amode & (MPI.MODE_RDONLY | MPI.MODE_RDWR)) != 0) {
            o.add(StandardOpenOption.READ);
        }
        if ((amode & (MPI.MODE_WRONLY | MPI.MODE_RDWR)) != 0) {
            o.add(StandardOpenOption.WRITE);
        }
        return o.toArray(OpenOption[]::new);
    }

    /** At rank 0: creates the file as CREATE and EXCL say, before the ranks open it. */
    private void create() throws IOException {
        boolean exists = Files.exists(path);
        if ((amode & MPI.MODE_EXCL) != 0 && exists) {
            throw new FileAlreadyExistsException(path.toString(), null, "MPI.MODE_EXCL and the file exists");
        }
        if (Files.isDirectory(path)) {
            throw new IOException(path + " is a directory");
        }
        if ((amode & MPI.MODE_CREATE) != 0 && !exists) {
            try {
                Files.createFile(path);
            } catch (FileAlreadyExistsException e) {
                // another job made it meanwhile: fine without EXCL
            }
        }
    }

    /** An action of rank 0's for the collective calls. */
    private interface RootAction {
        void run() throws IOException;
    }

    /** Runs {@code action} at rank 0 and gives its outcome to every rank: they all fail, or none does. */
    private void rootDoes(String call, RootAction action) throws MPIException {
        int[] outcome = {0};
        String why = null;
        if (comm.rank() == 0) {
            try {
                action.run();
            } catch (IOException e) {
                outcome[0] = ioClass(e);
                why = e.getMessage();
            }
        }
        try {
            comm.bcast(outcome, 1, io.tutti.Datatype.INT, 0);
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        MPI.raisedOn(this);
        if (outcome[0] != 0) {
            throw Errors.error(outcome[0], call + ": " + (why != null ? why : "failed at rank 0 of the file"));
        }
    }

    private void closeQuietly() {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            // already failing: the first error is the one reported
        }
        channel = null;
    }

    /** The open channel for a call: makes this the object errors go to; closed → {@link MPI#ERR_FILE}. */
    private FileChannel live(String call) throws MPIException {
        MPI.check();
        MPI.raisedOn(this);
        if (channel == null) {
            throw Errors.error(MPI.ERR_FILE, call + ": the file has been closed");
        }
        return channel;
    }

    /** MPI's error class for an I/O failure. */
    private static int ioClass(IOException e) {
        String m = String.valueOf(e.getMessage());
        return switch (e) {
            case NoSuchFileException _ -> MPI.ERR_NO_SUCH_FILE;
            case FileAlreadyExistsException _ -> MPI.ERR_FILE_EXISTS;
            case AccessDeniedException _ -> MPI.ERR_ACCESS;
            default -> m.contains("No space left") ? MPI.ERR_NO_SPACE
                    : m.contains("Read-only file system") ? MPI.ERR_READ_ONLY
                    : m.contains("quota") ? MPI.ERR_QUOTA
                    : m.contains("is a directory") || m.contains("Is a directory") ? MPI.ERR_BAD_FILE : MPI.ERR_IO;
        };
    }

    private static MPIException ioError(IOException e, String call) {
        return Errors.error(ioClass(e), call + ": " + e);
    }

    // ------------------------------------------------------------ open, close, delete, size

    /** Closes the file, collectively (MPI_FILE_CLOSE); deletes it if opened with {@link MPI#MODE_DELETE_ON_CLOSE}. */
    public void close() throws MPIException {
        FileChannel ch = live("File.close");
        try {
            comm.barrier();
            if (shared != null) {
                shared.close();
            }
            ch.close();
            channel = null;
            if ((amode & MPI.MODE_DELETE_ON_CLOSE) != 0) {
                comm.barrier();
                rootDoes("File.close", () -> Files.deleteIfExists(path));
            }
        } catch (TuttiException e) {
            throw Errors.of(e, "File.close");
        } catch (IOException e) {
            throw ioError(e, "File.close");
        } finally {
            channel = null;
        }
    }

    /** Deletes {@code filename} (MPI_FILE_DELETE); a missing one fails with {@link MPI#ERR_NO_SUCH_FILE}. */
    public static void delete(String filename) throws MPIException {
        delete(filename, MPI.INFO_NULL);
    }

    /** Deletes {@code filename} (MPI_FILE_DELETE); the info is accepted and not used. Errors are thrown. */
    public static void delete(String filename, Info info) throws MPIException {
        MPI.check();
        MPI.raisedOn(null);     // MPI_FILE_NULL's handler: MPI.ERRORS_RETURN
        if (filename == null || filename.isEmpty()) {
            throw Errors.error(MPI.ERR_BAD_FILE, "File.delete: the file name is empty");
        }
        try {
            Files.delete(Path.of(filename));
        } catch (IOException e) {
            throw ioError(e, "File.delete");
        }
    }

    /** Truncates or extends the file to {@code size} bytes, collectively (MPI_FILE_SET_SIZE). */
    public void setSize(long size) throws MPIException {
        resize(size, true, "File.setSize");
    }

    /** Makes the file at least {@code size} bytes, collectively (MPI_FILE_PREALLOCATE). */
    public void preallocate(long size) throws MPIException {
        resize(size, false, "File.preallocate");
    }

    private void resize(long size, boolean shrink, String call) throws MPIException {
        FileChannel ch = live(call);
        writable(call);
        if (size < 0) {
            throw Errors.error(MPI.ERR_ARG, call + ": the size " + size + " is negative");
        }
        rootDoes(call, () -> {
            long now = ch.size();
            if (size < now && shrink) {
                ch.truncate(size);
            } else if (size > now) {
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
        });
        try {
            comm.barrier();
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /** The file's size in bytes (MPI_FILE_GET_SIZE). */
    public long getSize() throws MPIException {
        try {
            return live("File.getSize").size();
        } catch (IOException e) {
            throw ioError(e, "File.getSize");
        }
    }

    /** The group of the ranks that opened the file (MPI_FILE_GET_GROUP). */
    public Group getGroup() throws MPIException {
        live("File.getGroup");
        return new Group(members);
    }

    /** The access mode the file was opened with (MPI_FILE_GET_AMODE). */
    public int getAMode() throws MPIException {
        live("File.getAMode");
        return amode;
    }

    /** Replaces the file's hints (MPI_FILE_SET_INFO); accepted and kept, none used. */
    public void setInfo(Info info) throws MPIException {
        live("File.setInfo");
        this.info = info == null || info.isNull() ? new Info() : info.dup();
    }

    /** A copy of the file's hints (MPI_FILE_GET_INFO). */
    public Info getInfo() throws MPIException {
        live("File.getInfo");
        return info.dup();
    }

    /** Sets whether each access is atomic against the other ranks' (MPI_FILE_SET_ATOMICITY): a POSIX byte-range lock per access. */
    public void setAtomicity(boolean atomicity) throws MPIException {
        live("File.setAtomicity");
        this.atomic = atomicity;
    }

    /** Whether accesses are atomic (MPI_FILE_GET_ATOMICITY): false unless set. */
    public boolean getAtomicity() throws MPIException {
        live("File.getAtomicity");
        return atomic;
    }

    /** Forces this rank's writes to the storage device (MPI_FILE_SYNC). */
    public void sync() throws MPIException {
        try {
            live("File.sync").force(true);
        } catch (IOException e) {
            throw ioError(e, "File.sync");
        }
    }

    /**
     * The extent of {@code type} in the file, in units of its base element: as in memory, in native
     * and in external32 (whose types here have the sizes of Java's, and no padding to leave out).
     */
    public int getTypeExtent(Datatype type) throws MPIException {
        live("File.getTypeExtent");
        checkType(type, "File.getTypeExtent");
        return type.getExtent();
    }

    // ------------------------------------------------------------ error handlers

    /** Sets what errors on this file do (MPI_FILE_SET_ERRHANDLER); {@link MPI#ERRORS_RETURN} unless set. */
    public void setErrhandler(Errhandler errhandler) throws MPIException {
        live("File.setErrhandler");
        if (errhandler == null) {
            throw Errors.error(MPI.ERR_ARG, "File.setErrhandler: the error handler is null");
        }
        this.errhandler = errhandler;
    }

    /** What errors on this file do (MPI_FILE_GET_ERRHANDLER). */
    public Errhandler getErrhandler() throws MPIException {
        live("File.getErrhandler");
        return errhandler;
    }

    /** Raises an error of {@code errorCode} on this file (MPI_FILE_CALL_ERRHANDLER). */
    public void callErrhandler(int errorCode) throws MPIException {
        live("File.callErrhandler");
        throw Errors.error(errorCode, "File.callErrhandler: error code " + errorCode + " raised by the program");
    }

    // ------------------------------------------------------------ views

    /** Sets the view, collectively (MPI_FILE_SET_VIEW); both file pointers go back to 0. */
    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        setView(disp, etype, filetype, datarep, MPI.INFO_NULL);
    }

    /**
     * Sets the view, collectively (MPI_FILE_SET_VIEW): the data starts at byte {@code disp}, offsets
     * count {@code etype}s, and {@code filetype} (made of etypes, displacements not negative and
     * increasing) tiles the file from there; {@code datarep} is {@code "native"} (or {@code
     * "internal"}, the same here) or {@code "external32"} (each element big-endian, turned on every
     * read and write). Both file pointers go back to 0.
     */
    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info)
            throws MPIException {
        String call = "File.setView";
        live(call);
        checkType(etype, call);
        checkType(filetype, call);
        boolean ext = "external32".equals(datarep);
        if (!ext && !"native".equals(datarep) && !"internal".equals(datarep)) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_DATAREP, call + ": data representation \"" + datarep + "\" is not"
                    + " supported: use \"native\" or \"external32\"");
        }
        if (ext) {
            external32Unit(etype, call);
            external32Unit(filetype, call);
        }
        if (disp < 0) {
            throw Errors.error(MPI.ERR_ARG, call + ": the displacement " + disp + " is negative"
                    + (disp == MPI.DISPLACEMENT_CURRENT ? " (MPI.DISPLACEMENT_CURRENT is not supported)" : ""));
        }
        long e = itemBytes(etype);
        long[] map = filetype.base == filetype ? new long[] {0, filetype.extent} : filetype.map;
        long extent = filetype.extent;
        long data = 0;
        for (int k = 1; k < map.length; k += 2) {
            data += map[k];
        }
        String problem = ViewTiling.problem(map, extent);
        if (problem == null && (e == 0 || data % e != 0)) {
            problem = "its data is not a whole number of etypes (" + e + " bytes each)";
        }
        if (problem != null) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the file type does not tile a view: " + problem);
        }
        resetShared(call);
        view = new FileView(disp, etype, filetype, datarep);
        tiling = new ViewTiling(disp, map, extent);
        etypeBytes = e;
        external = ext;
        pointer = 0;
    }

    /** The view (MPI_FILE_GET_VIEW). */
    public FileView getView() {
        return view;
    }

    /** The absolute byte in the file of view offset {@code offset} (MPI_FILE_GET_BYTE_OFFSET). */
    public long getByteOffset(long offset) throws MPIException {
        live("File.getByteOffset");
        checkOffset(offset, "File.getByteOffset");
        return tiling.fileByte(offset * etypeBytes);
    }

    /** Bytes of one item of {@code type} in a buffer and in the file: predefined types with their padding. */
    private static long itemBytes(Datatype type) {
        return type.base == type ? type.extent : type.size;
    }

    // ------------------------------------------------------------ explicit offsets

    /** Reads {@code count} items at view offset {@code offset} (MPI_FILE_READ_AT); fewer at the end of file. */
    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return at(false, offset, buf, count, type, "File.readAt");
    }

    /** {@link #readAt}, collective (MPI_FILE_READ_AT_ALL): each rank reads its own, no collective buffering. */
    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return at(false, offset, buf, count, type, "File.readAtAll");
    }

    /** Writes {@code count} items at view offset {@code offset} (MPI_FILE_WRITE_AT). */
    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return at(true, offset, buf, count, type, "File.writeAt");
    }

    /** {@link #writeAt}, collective (MPI_FILE_WRITE_AT_ALL). */
    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return at(true, offset, buf, count, type, "File.writeAtAll");
    }

    /** {@link #readAt} of a direct buffer, returning a request (MPI_FILE_IREAD_AT): complete when returned. */
    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(at(false, offset, buf, count, type, "File.iReadAt"));
    }

    /** {@link #readAtAll} returning a request (MPI_FILE_IREAD_AT_ALL): complete when returned. */
    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(at(false, offset, buf, count, type, "File.iReadAtAll"));
    }

    /** {@link #writeAt} returning a request (MPI_FILE_IWRITE_AT): complete when returned. */
    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(at(true, offset, buf, count, type, "File.iWriteAt"));
    }

    /** {@link #writeAtAll} returning a request (MPI_FILE_IWRITE_AT_ALL): complete when returned. */
    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(at(true, offset, buf, count, type, "File.iWriteAtAll"));
    }

    private Status at(boolean write, long offset, Object buf, int count, Datatype type, String call)
            throws MPIException {
        live(call);
        if ((amode & MPI.MODE_SEQUENTIAL) != 0) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": explicit offsets on a file opened with"
                    + " MPI.MODE_SEQUENTIAL");
        }
        checkOffset(offset, call);
        return status(io(write, offset * etypeBytes, buf, count, type, call));
    }

    // ------------------------------------------------------------ individual file pointer

    /** Reads {@code count} items at the individual file pointer and moves it past them (MPI_FILE_READ). */
    public Status read(Object buf, int count, Datatype type) throws MPIException {
        return individual(false, buf, count, type, "File.read");
    }

    /** {@link #read}, collective (MPI_FILE_READ_ALL). */
    public Status readAll(Object buf, int count, Datatype type) throws MPIException {
        return individual(false, buf, count, type, "File.readAll");
    }

    /** Writes {@code count} items at the individual file pointer and moves it past them (MPI_FILE_WRITE). */
    public Status write(Object buf, int count, Datatype type) throws MPIException {
        return individual(true, buf, count, type, "File.write");
    }

    /** {@link #write}, collective (MPI_FILE_WRITE_ALL). */
    public Status writeAll(Object buf, int count, Datatype type) throws MPIException {
        return individual(true, buf, count, type, "File.writeAll");
    }

    /** {@link #read} returning a request (MPI_FILE_IREAD): complete when returned. */
    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(individual(false, buf, count, type, "File.iRead"));
    }

    /** {@link #readAll} returning a request (MPI_FILE_IREAD_ALL): complete when returned. */
    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(individual(false, buf, count, type, "File.iReadAll"));
    }

    /** {@link #write} returning a request (MPI_FILE_IWRITE): complete when returned. */
    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(individual(true, buf, count, type, "File.iWrite"));
    }

    /** {@link #writeAll} returning a request (MPI_FILE_IWRITE_ALL): complete when returned. */
    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(individual(true, buf, count, type, "File.iWriteAll"));
    }

    private Status individual(boolean write, Object buf, int count, Datatype type, String call) throws MPIException {
        live(call);
        long n = io(write, pointer * etypeBytes, buf, count, type, call);
        pointer += n / etypeBytes;
        return status(n);
    }

    /**
     * Moves the individual file pointer (MPI_FILE_SEEK): to {@code offset} etypes ({@link MPI#SEEK_SET}),
     * by {@code offset} ({@link MPI#SEEK_CUR}), or to the end of file plus {@code offset} ({@link MPI#SEEK_END}).
     */
    public void seek(long offset, int whence) throws MPIException {
        live("File.seek");
        pointer = target(pointer, offset, whence, "File.seek");
    }

    /** The individual file pointer, in etypes of the view (MPI_FILE_GET_POSITION). */
    public long getPosition() throws MPIException {
        live("File.getPosition");
        return pointer;
    }

    private long target(long current, long offset, int whence, String call) throws MPIException {
        long to;
        try {
            to = switch (whence) {
                case MPI.SEEK_SET -> offset;
                case MPI.SEEK_CUR -> current + offset;
                case MPI.SEEK_END -> tiling.dataBefore(channel.size()) / etypeBytes + offset;
                default -> throw Errors.error(MPI.ERR_ARG, call + ": whence " + whence + " is none of MPI.SEEK_SET,"
                        + " SEEK_CUR and SEEK_END");
            };
        } catch (IOException e) {
            throw ioError(e, call);
        }
        if (to < 0) {
            throw Errors.error(MPI.ERR_ARG, call + ": the pointer would move to " + to + ", before the view's start");
        }
        return to;
    }

    // ------------------------------------------------------------ shared file pointer

    /** Reads at the shared file pointer and moves it for every rank (MPI_FILE_READ_SHARED). */
    public Status readShared(Object buf, int count, Datatype type) throws MPIException {
        return shared(false, buf, count, type, "File.readShared");
    }

    /** Writes at the shared file pointer and moves it for every rank (MPI_FILE_WRITE_SHARED). */
    public Status writeShared(Object buf, int count, Datatype type) throws MPIException {
        return shared(true, buf, count, type, "File.writeShared");
    }

    /** {@link #readShared} returning a request (MPI_FILE_IREAD_SHARED): complete when returned. */
    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(shared(false, buf, count, type, "File.iReadShared"));
    }

    /** {@link #writeShared} returning a request (MPI_FILE_IWRITE_SHARED): complete when returned. */
    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return done(shared(true, buf, count, type, "File.iWriteShared"));
    }

    private Status shared(boolean write, Object buf, int count, Datatype type, String call) throws MPIException {
        live(call);
        checkIo(write, count, type, call);
        long etypes = type.packedBytes(count) / etypeBytes;
        long at = moveShared(etypes, AccumulateOp.SUM, call);
        return status(io(write, at * etypeBytes, buf, count, type, call));
    }

    /**
     * Collectively, in rank order: rank r's items follow those of ranks 0 to r - 1 at the shared
     * file pointer, which then moves past all of them (MPI_FILE_READ_ORDERED).
     */
    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException {
        return ordered(false, buf, count, type, "File.readOrdered");
    }

    /** As {@link #readOrdered}, writing (MPI_FILE_WRITE_ORDERED): the ranks' data lands in rank order. */
    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException {
        return ordered(true, buf, count, type, "File.writeOrdered");
    }

    private Status ordered(boolean write, Object buf, int count, Datatype type, String call) throws MPIException {
        live(call);
        checkIo(write, count, type, call);
        requireShared(call);
        long[] counts = new long[comm.size()];
        long[] base = new long[1];
        long mine = type.packedBytes(count) / etypeBytes;
        try {
            comm.allgather(new long[] {mine}, counts, 1, io.tutti.Datatype.LONG);
            long before = 0;
            long total = 0;
            for (int r = 0; r < counts.length; r++) {
                before += r < comm.rank() ? counts[r] : 0;
                total += counts[r];
            }
            if (comm.rank() == 0) {
                base[0] = moveShared(total, AccumulateOp.SUM, call);
            }
            comm.bcast(base, 1, io.tutti.Datatype.LONG, 0);
            MPI.raisedOn(this);
            return status(io(write, (base[0] + before) * etypeBytes, buf, count, type, call));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /** Collectively moves the shared file pointer, as {@link #seek} moves the individual one (MPI_FILE_SEEK_SHARED). */
    public void seekShared(long offset, int whence) throws MPIException {
        String call = "File.seekShared";
        live(call);
        requireShared(call);
        try {
            comm.barrier();
            long[] to = {0};
            int[] failed = {0};
            if (comm.rank() == 0) {
                try {
                    to[0] = target(moveShared(0, AccumulateOp.NO_OP, call), offset, whence, call);
                    moveShared(to[0], AccumulateOp.REPLACE, call);
                } catch (MPIException e) {
                    failed[0] = e.getErrorClass();
                }
            }
            comm.bcast(failed, 1, io.tutti.Datatype.INT, 0);
            MPI.raisedOn(this);
            if (failed[0] != 0) {
                throw Errors.error(failed[0], call + ": the shared file pointer cannot move to offset " + offset
                        + " from whence " + whence);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /** The shared file pointer, in etypes of the view (MPI_FILE_GET_POSITION_SHARED). */
    public long getPositionShared() throws MPIException {
        live("File.getPositionShared");
        requireShared("File.getPositionShared");
        return moveShared(0, AccumulateOp.NO_OP, "File.getPositionShared");
    }

    /** Atomically at rank 0: the shared pointer as it was, then {@code op} with {@code by} applied to it. */
    private long moveShared(long by, AccumulateOp op, String call) throws MPIException {
        requireShared(call);
        delta[0] = by;
        try {
            shared.lock(Window.LockType.SHARED, 0);
            try {
                shared.fetchAndOp(delta, old, io.tutti.Datatype.LONG, 0, 0, op);
            } finally {
                shared.unlock(0);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return old[0];
    }

    /** At {@link #setView}: rank 0 puts the shared pointer back to 0, and every rank waits for it. */
    private void resetShared(String call) throws MPIException {
        try {
            comm.barrier();
            if (shared != null && comm.rank() == 0) {
                moveShared(0, AccumulateOp.REPLACE, call);
            }
            comm.barrier();
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        MPI.raisedOn(this);
    }

    private void requireShared(String call) throws MPIException {
        if (shared == null) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": the shared file pointer is a Tutti window,"
                    + " which this file's ranks cannot have: " + sharedProblem);
        }
    }

    // ------------------------------------------------------------ split collectives

    /** Begins a split {@link #readAtAll} (MPI_FILE_READ_AT_ALL_BEGIN): the reading is done here. */
    public void readAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin(at(false, offset, buf, count, type, "File.readAtAllBegin"));
    }

    /** Ends it (MPI_FILE_READ_AT_ALL_END): the status of the begin. */
    public Status readAtAllEnd(Object buf) throws MPIException {
        return end("File.readAtAllEnd");
    }

    /** Begins a split {@link #writeAtAll} (MPI_FILE_WRITE_AT_ALL_BEGIN): the writing is done here. */
    public void writeAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin(at(true, offset, buf, count, type, "File.writeAtAllBegin"));
    }

    /** Ends it (MPI_FILE_WRITE_AT_ALL_END). */
    public Status writeAtAllEnd(Object buf) throws MPIException {
        return end("File.writeAtAllEnd");
    }

    /** Begins a split {@link #readAll} (MPI_FILE_READ_ALL_BEGIN). */
    public void readAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(individual(false, buf, count, type, "File.readAllBegin"));
    }

    /** Ends it (MPI_FILE_READ_ALL_END). */
    public Status readAllEnd(Object buf) throws MPIException {
        return end("File.readAllEnd");
    }

    /** Begins a split {@link #writeAll} (MPI_FILE_WRITE_ALL_BEGIN). */
    public void writeAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(individual(true, buf, count, type, "File.writeAllBegin"));
    }

    /** Ends it (MPI_FILE_WRITE_ALL_END). */
    public Status writeAllEnd(Object buf) throws MPIException {
        return end("File.writeAllEnd");
    }

    /** Begins a split {@link #readOrdered} (MPI_FILE_READ_ORDERED_BEGIN). */
    public void readOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(ordered(false, buf, count, type, "File.readOrderedBegin"));
    }

    /** Ends it (MPI_FILE_READ_ORDERED_END). */
    public Status readOrderedEnd(Object buf) throws MPIException {
        return end("File.readOrderedEnd");
    }

    /** Begins a split {@link #writeOrdered} (MPI_FILE_WRITE_ORDERED_BEGIN). */
    public void writeOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin(ordered(true, buf, count, type, "File.writeOrderedBegin"));
    }

    /** Ends it (MPI_FILE_WRITE_ORDERED_END). */
    public Status writeOrderedEnd(Object buf) throws MPIException {
        return end("File.writeOrderedEnd");
    }

    private void begin(Status s) throws MPIException {
        if (beginStatus != null) {
            throw Errors.error(MPI.ERR_OTHER, "a split collective is already begun on this file: end it first");
        }
        beginStatus = s;
    }

    private Status end(String call) throws MPIException {
        live(call);
        Status s = beginStatus;
        if (s == null) {
            throw Errors.error(MPI.ERR_OTHER, call + ": no split collective was begun on this file");
        }
        beginStatus = null;
        return s;
    }

    // ------------------------------------------------------------ the I/O

    private static Status status(long bytes) {
        return new Status().set(MPI.ANY_SOURCE, MPI.ANY_TAG, bytes);
    }

    private static Request done(Status s) {
        return Request.done(s);
    }

    private static void checkType(Datatype type, String call) throws MPIException {
        if (type == null) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the datatype is null");
        }
        type.checkUsable(call);
    }

    private static void checkOffset(long offset, String call) throws MPIException {
        if (offset < 0) {
            throw Errors.error(MPI.ERR_ARG, call + ": the offset " + offset + " is negative");
        }
    }

    private void writable(String call) throws MPIException {
        if ((amode & MPI.MODE_RDONLY) != 0) {
            throw Errors.error(MPI.ERR_ACCESS, call + ": the file was opened with MPI.MODE_RDONLY");
        }
    }

    private void checkIo(boolean write, int count, Datatype type, String call) throws MPIException {
        if (count < 0) {
            throw Errors.error(MPI.ERR_COUNT, call + ": invalid count " + count + ": it is 0 or more");
        }
        checkType(type, call);
        if (write) {
            writable(call);
        } else if ((amode & MPI.MODE_WRONLY) != 0) {
            throw Errors.error(MPI.ERR_ACCESS, call + ": the file was opened with MPI.MODE_WRONLY");
        }
    }

    /**
     * Moves {@code count} items of {@code type} between {@code buf} and the view's data from byte
     * {@code data} on, run by run; returns the bytes moved (fewer than asked when a read meets the end
     * of file). Direct buffers are read and written in place, other buffers through a direct buffer
     * of this file's, reused.
     */
    private long io(boolean write, long data, Object buf, int count, Datatype type, String call) throws MPIException {
        FileChannel ch = live(call);
        checkIo(write, count, type, call);
        Region r = region;
        r.resolve(buf, count, type, !write, call);
        long n = r.byteCount();
        if (n == 0) {
            return 0;
        }
        int unit = external ? external32Unit(type, call) : 1;
        // external32 is turned in this file's buffer, never in the program's
        boolean inPlace = unit == 1 && r.data instanceof MemorySegment s && s.isNative() && r.slice != null;
        ByteBuffer bb;
        if (inPlace) {
            bb = r.slice.asByteBuffer();
        } else {
            if (scratch.capacity() < n) {
                scratch = ByteBuffer.allocateDirect((int) Math.max(n, Math.min(Integer.MAX_VALUE,
                        2L * scratch.capacity())));
                scratchSegment = MemorySegment.ofBuffer(scratch);
            }
            bb = scratch;
            if (write) {
                r.copyOut(scratchSegment, 0);
                byteOrder(scratchSegment, n, unit);
            }
        }
        long done;
        FileLock lock = null;
        try {
            if (atomic) {
                long first = tiling.fileByte(data);
                long last = tiling.fileByte(data + n - 1);
                lock = ch.lock(first, last + 1 - first, !write);
            }
            done = runs(ch, write, bb, data, n);
        } catch (IOException e) {
            throw ioError(e, call);
        } finally {
            if (lock != null) {
                try {
                    lock.release();
                } catch (IOException e) {
                    // the channel closes it at the latest
                }
            }
        }
        if (!write && !inPlace) {
            byteOrder(scratchSegment, done - done % unit, unit);
            r.copyIn(scratchSegment, done);
        }
        return done;
    }

    /**
     * Bytes of the elements that external32 stores big-endian one by one for {@code type}'s base
     * (2 for a short, 8 for a double or each half of a DOUBLE_COMPLEX); the pair types whose C struct
     * has padding, which external32 leaves out, are refused.
     */
    private static int external32Unit(Datatype type, String call) throws MPIException {
        int k = type.base.kind;
        if (k == Datatype.SHORT_INT || k == Datatype.LONG_INT || k == Datatype.DOUBLE_INT) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_DATAREP, call + ": " + type + " in \"external32\" is not"
                    + " supported: its C struct has padding, which external32 leaves out; use \"native\"");
        }
        if (type.structOfWider) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_DATAREP, call + ": a struct of wider elements than bytes in"
                    + " \"external32\" is not supported: its fields travel as bytes, whose order cannot be turned"
                    + " per element; write its fields' types one by one, or use \"native\"");
        }
        return type.base.elementBytes();
    }

    /** Turns {@code bytes} of {@code unit}-byte elements between the platform's byte order and big-endian. */
    private static void byteOrder(MemorySegment s, long bytes, int unit) {
        if (unit == 1 || ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN) {
            return;
        }
        ValueLayout l = unit == 2 ? ValueLayout.JAVA_SHORT_UNALIGNED
                : unit == 4 ? ValueLayout.JAVA_INT_UNALIGNED : ValueLayout.JAVA_LONG_UNALIGNED;
        MemorySegment.copy(s, l, 0, s, l.withOrder(ByteOrder.BIG_ENDIAN), 0, bytes / unit);
    }

    /** The view's runs from data byte {@code data} for {@code n} bytes, moved to or from {@code bb} from its start. */
    private long runs(FileChannel ch, boolean write, ByteBuffer bb, long data, long n) throws IOException {
        ViewTiling t = tiling;
        t.seek(data);
        long done = 0;
        while (done < n) {
            long len = t.next(n - done);
            long at = t.runAt;
            bb.limit((int) (done + len)).position((int) done);
            while (bb.hasRemaining()) {
                int k = write ? ch.write(bb, at + bb.position() - done) : ch.read(bb, at + bb.position() - done);
                if (k < 0) {
                    return bb.position();     // end of file
                }
            }
            done += len;
        }
        return done;
    }

    @Override
    public String toString() {
        return "the file " + path;
    }
}

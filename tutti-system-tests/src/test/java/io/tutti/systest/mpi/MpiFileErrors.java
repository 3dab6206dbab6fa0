package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;

import java.nio.IntBuffer;
import java.nio.file.Path;
import mpi.Datatype;
import mpi.File;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The errors of MPI-IO as MPIExceptions with MPI's error classes, under a file's default handler
 * (MPI.ERRORS_RETURN, while the communicator's stays MPI.ERRORS_ARE_FATAL): a missing file without
 * MODE_CREATE, MODE_EXCL on an existing one, invalid access modes, reads of a write-only file and
 * writes of a read-only one, bad views, offsets and whences, explicit offsets in sequential mode,
 * a closed file, deleting a missing file; the file stays usable after each.
 */
public final class MpiFileErrors {
    private MpiFileErrors() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        Path dir = Path.of(args[0]);
        String missing = dir.resolve("missing.dat").toString();
        String name = dir.resolve("errors.dat").toString();

        fails(MPI.ERR_NO_SUCH_FILE, "opening a missing file without MODE_CREATE",
                () -> new File(c, missing, MPI.MODE_RDONLY));
        fails(MPI.ERR_AMODE, "no access mode", () -> new File(c, name, MPI.MODE_CREATE));
        fails(MPI.ERR_AMODE, "two access modes", () -> new File(c, name, MPI.MODE_RDONLY | MPI.MODE_RDWR));
        fails(MPI.ERR_AMODE, "MODE_RDONLY with MODE_CREATE", () -> new File(c, name, MPI.MODE_RDONLY
                | MPI.MODE_CREATE));
        fails(MPI.ERR_AMODE, "an unknown bit", () -> new File(c, name, MPI.MODE_RDWR | 1 << 20));
        fails(MPI.ERR_BAD_FILE, "a directory", () -> new File(c, dir.toString(), MPI.MODE_RDWR));
        fails(MPI.ERR_NO_SUCH_FILE, "deleting a missing file", () -> File.delete(missing));

        File f = new File(c, name, MPI.MODE_CREATE | MPI.MODE_WRONLY);
        int[] four = {1, 2, 3, 4};
        f.writeAt(16L * rank, four, 4, MPI.INT);
        fails(MPI.ERR_ACCESS, "reading a write-only file", () -> f.readAt(0, new int[1], 1, MPI.INT));
        fails(MPI.ERR_ARG, "a negative offset", () -> f.writeAt(-4, four, 1, MPI.INT));
        fails(MPI.ERR_COUNT, "a negative count", () -> f.write(four, -1, MPI.INT));
        fails(MPI.ERR_BUFFER, "more ints than the array", () -> f.write(four, 5, MPI.INT));
        fails(MPI.ERR_TYPE, "an int[] as MPI.DOUBLE", () -> f.write(four, 1, MPI.DOUBLE));
        fails(MPI.ERR_ARG, "an unknown whence", () -> f.seek(0, 17));
        fails(MPI.ERR_ARG, "a seek before the start", () -> f.seek(-1, MPI.SEEK_SET));
        fails(MPI.ERR_UNSUPPORTED_DATAREP, "a representation of no one's",
                () -> f.setView(0, MPI.INT, MPI.INT, "canonical"));
        fails(MPI.ERR_UNSUPPORTED_DATAREP, "DOUBLE_INT (padded) in external32",
                () -> f.setView(0, MPI.DOUBLE_INT, MPI.DOUBLE_INT, "external32"));
        Datatype twoInts = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 4}, new Datatype[] {MPI.INT, MPI.INT});
        twoInts.commit();
        f.setView(0, MPI.BYTE, MPI.BYTE, "external32");
        fails(MPI.ERR_UNSUPPORTED_DATAREP, "a struct of ints in external32", () -> f.write(new byte[8], 1, twoInts));
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        twoInts.free();
        Datatype backwards = Datatype.createIndexed(new int[] {1, 1}, new int[] {3, 0}, MPI.INT);
        backwards.commit();
        fails(MPI.ERR_TYPE, "a file type whose displacements decrease",
                () -> f.setView(0, MPI.INT, backwards, "native"));
        Datatype shorts = Datatype.createContiguous(3, MPI.SHORT);
        shorts.commit();
        fails(MPI.ERR_TYPE, "a file type not made of whole etypes", () -> f.setView(0, MPI.INT, shorts, "native"));
        fails(MPI.ERR_OTHER, "an end without a begin", () -> f.writeAllEnd(four));
        try {
            f.iWrite(IntBuffer.wrap(four), 1, MPI.INT);
            throw new AssertionError("iWrite of a heap buffer was accepted");
        } catch (IllegalArgumentException expected) {
            // the bindings' answer: nonblocking calls take direct buffers
        }
        f.setErrhandler(MPI.ERRORS_RETURN);
        fails(MPI.ERR_IO, "callErrhandler", () -> f.callErrhandler(MPI.ERR_IO));
        equal(4, f.write(four, 4, MPI.INT).getCount(MPI.INT), "a write after the errors");
        f.close();
        fails(MPI.ERR_FILE, "a closed file", () -> f.write(four, 1, MPI.INT));
        c.barrier();

        fails(MPI.ERR_FILE_EXISTS, "MODE_EXCL on an existing file", () -> new File(c, name, MPI.MODE_CREATE
                | MPI.MODE_EXCL | MPI.MODE_RDWR));
        File ro = new File(c, name, MPI.MODE_RDONLY);
        fails(MPI.ERR_ACCESS, "writing a read-only file", () -> ro.writeAt(0, four, 1, MPI.INT));
        fails(MPI.ERR_ACCESS, "setSize of a read-only file", () -> ro.setSize(0));
        int[] back = new int[4];
        ro.readAt(16L * rank, back, 4, MPI.INT);
        equal(four, back, "the data after the errors");
        ro.close();
        c.barrier();

        File seq = new File(c, name, MPI.MODE_WRONLY | MPI.MODE_SEQUENTIAL | MPI.MODE_DELETE_ON_CLOSE);
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "an explicit offset in MODE_SEQUENTIAL",
                () -> seq.writeAt(0, four, 1, MPI.INT));
        seq.close();
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": file errors ok");
    }
}

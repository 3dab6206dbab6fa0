package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import mpi.Datatype;
import mpi.File;
import mpi.FileView;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * MPI-IO (File) in the directory given: explicit offsets (arrays, heap and direct buffers, slices,
 * zero counts, reading past the end), a view whose vector file type interleaves the ranks' blocks,
 * individual and shared file pointers, ordered writes and reads in rank order, the nonblocking and
 * split collective forms, append, delete-on-close, sizes, atomicity, a derived memory type, and the
 * external32 representation (big-endian in the file, read back by Java's own big-endian reader).
 */
public final class MpiFiles {
    private MpiFiles() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        Path dir = Path.of(args[0]);

        explicitOffsets(c, rank, size, dir.resolve("explicit.dat").toString());
        interleaved(c, rank, size, dir.resolve("interleaved.dat").toString());
        sharedPointer(c, rank, size, dir.resolve("shared.dat").toString());
        modes(c, rank, size, dir);
        external32(c, rank, size, dir.resolve("external32.dat"));

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": files ok");
    }

    /**
     * external32: every rank writes an int, a long, a double, a char and a short at its own offset
     * (a heap array and a direct buffer); the file holds them big-endian, as Java's {@code
     * DataInputStream} reads them; read back through the view, and through a vector memory type,
     * they are the values written.
     */
    private static void external32(Intracomm c, int rank, int size, Path path) throws Exception {
        File f = new File(c, path.toString(), MPI.MODE_CREATE | MPI.MODE_RDWR);
        f.setView(0, MPI.BYTE, MPI.BYTE, "external32");
        equal("external32", f.getView().getDataRep(), "the view's representation");
        long at = 32L * rank;
        int[] ints = {0x01020304 + rank, -rank};
        f.writeAt(at, ints, 2, MPI.INT);
        java.nio.LongBuffer longs = MPI.newLongBuffer(1).put(0, 0x0102030405060708L * (rank + 1));
        f.writeAt(at + 8, longs, 1, MPI.LONG);
        f.writeAt(at + 16, new double[] {rank + 0.25}, 1, MPI.DOUBLE);
        f.writeAt(at + 24, new char[] {(char) ('A' + rank)}, 1, MPI.CHAR);
        f.writeAt(at + 26, new short[] {(short) (-300 - rank)}, 1, MPI.SHORT);
        equal(0x0102030405060708L * (rank + 1), longs.get(0), "the direct buffer is left as it was");
        f.sync();
        c.barrier();
        if (rank == 0) {
            try (java.io.DataInputStream in = new java.io.DataInputStream(Files.newInputStream(path))) {
                for (int r = 0; r < size; r++) {
                    equal(0x01020304 + r, in.readInt(), "rank " + r + "'s first int, big-endian");
                    equal(-r, in.readInt(), "rank " + r + "'s second int, big-endian");
                    equal(0x0102030405060708L * (r + 1), in.readLong(), "rank " + r + "'s long, big-endian");
                    equal(r + 0.25, in.readDouble(), "rank " + r + "'s double, big-endian");
                    equal((long) ('A' + r), (long) in.readChar(), "rank " + r + "'s char, big-endian");
                    equal(-300 - r, in.readShort(), "rank " + r + "'s short, big-endian");
                    if (r < size - 1) {
                        in.skipNBytes(4);      // the gap to the next rank's 32 bytes
                    }
                }
            }
        }
        int right = (rank + 1) % size;
        int[] back = new int[2];
        f.readAt(32L * right, back, 2, MPI.INT);
        equal(0x01020304 + right, back[0], "the neighbour's first int, read back");
        equal(-right, back[1], "the neighbour's second int, read back");
        java.nio.LongBuffer l = MPI.newLongBuffer(1);
        f.readAt(32L * right + 8, l, 1, MPI.LONG);
        equal(0x0102030405060708L * (right + 1), l.get(0), "the neighbour's long, read back into a direct buffer");
        // two ints into every other int of an array: the memory type's gaps untouched
        Datatype everyOther = Datatype.createVector(2, 1, 2, MPI.INT);
        everyOther.commit();
        int[] spread = {7, 7, 7, 7};
        f.readAt(32L * right, spread, 1, everyOther);
        that(Arrays.equals(spread, new int[] {0x01020304 + right, 7, -right, 7}),
                "ints read through a vector: " + Arrays.toString(spread));
        everyOther.free();
        f.close();
        c.barrier();
        if (rank == 0) {
            Files.delete(path);
        }
        c.barrier();
    }

    /** Every rank writes its block at an explicit offset and reads its right neighbour's. */
    private static void explicitOffsets(Intracomm c, int rank, int size, String name) throws Exception {
        File f = new File(c, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
        equal(MPI.ERRORS_RETURN, f.getErrhandler(), "a file's default handler");
        equal(MPI.MODE_CREATE | MPI.MODE_RDWR, f.getAMode(), "the access mode");
        equal(MPI.IDENT, Group.compare(c.getGroup(), f.getGroup()), "the file's group");
        int[] mine = new int[4];
        for (int i = 0; i < 4; i++) {
            mine[i] = 10 * rank + i;
        }
        Status s = f.writeAt(16L * rank, mine, 4, MPI.INT);
        equal(4, s.getCount(MPI.INT), "ints written");
        equal(0, f.writeAt(0, mine, 0, MPI.INT).getCount(MPI.INT), "a write of nothing");
        // a second region after everyone's first: from a direct buffer's slice, collectively
        IntBuffer direct = MPI.newIntBuffer(6);
        for (int i = 0; i < 6; i++) {
            direct.put(i, 1000 * rank + i);
        }
        f.writeAtAll(16L * size + 8L * rank, MPI.slice(direct, 4), 2, MPI.INT);
        f.sync();
        c.barrier();
        f.sync();
        equal(24L * size, f.getSize(), "the file's size");
        int right = (rank + 1) % size;
        IntBuffer heap = IntBuffer.allocate(5);
        s = f.readAt(16L * right, MPI.slice(heap, 1), 4, MPI.INT);
        equal(4, s.getCount(MPI.INT), "ints read");
        equal(0, heap.get(0), "before the heap slice");
        equal(10 * right + 3, heap.get(4), "the neighbour's last int");
        IntBuffer two = MPI.newIntBuffer(2);
        f.readAtAll(16L * size + 8L * right, two, 2, MPI.INT);
        equal(1000 * right + 5, two.get(1), "the neighbour's second region");
        byte[] tail = new byte[16];
        s = f.readAt(24L * size - 4, tail, 16, MPI.BYTE);
        equal(4, s.getCount(MPI.BYTE), "a read that meets the end of file");
        equal(0, f.readAt(24L * size, tail, 16, MPI.BYTE).getCount(MPI.BYTE), "a read at the end of file");

        // the nonblocking forms: complete requests with their statuses
        IntBuffer in = MPI.newIntBuffer(4);
        Request r = f.iReadAt(16L * right, in, 4, MPI.INT);
        equal(16, r.waitStatus().getCount(MPI.BYTE), "iReadAt's bytes");
        equal(10 * right, in.get(0), "iReadAt's data");
        c.barrier();
        IntBuffer out = MPI.newIntBuffer(1);
        out.put(0, -rank);
        Request w = f.iWriteAt(4L * rank, out, 1, MPI.INT);
        Request.waitAll(new Request[] {w, f.iReadAtAll(16L * right, in, 1, MPI.INT)});
        c.barrier();
        // split collectives, with a heap buffer
        f.writeAtAllBegin(16L * rank + 4, new int[] {77}, 1, MPI.INT);
        equal(1, f.writeAtAllEnd(null).getCount(MPI.INT), "writeAtAllEnd's status");
        c.barrier();
        int[] back = new int[2];
        f.readAtAllBegin(16L * rank, back, 2, MPI.INT);
        equal(2, f.readAtAllEnd(back).getCount(MPI.INT), "readAtAllEnd's status");
        equal(77, back[1], "the split write's int");
        f.close();
        c.barrier();
        if (rank == 0) {
            File.delete(name);
        }
        c.barrier();
        that(!Files.exists(Path.of(name)), "File.delete removed the file");
    }

    /**
     * A view per rank: from byte 8 * rank, the file type a vector of two blocks of two ints, the
     * blocks 2 * size ints apart, resized to 4 * size ints, so that the ranks' pairs interleave.
     */
    private static void interleaved(Intracomm c, int rank, int size, String name) throws Exception {
        File f = new File(c, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        Datatype vector = Datatype.createVector(2, 2, 2 * size, MPI.INT);
        Datatype tile = Datatype.createResized(vector, 0, 16 * size);
        tile.commit();
        f.setView(8L * rank, MPI.INT, tile, "native");
        FileView v = f.getView();
        equal(8L * rank, v.getDisp(), "the view's displacement");
        that(v.getEType() == MPI.INT && v.getFileType() == tile, "the view's types");
        equal("native", v.getDataRep(), "the view's representation");
        equal(8L * rank + 8L * size, f.getByteOffset(2), "view offset 2 in bytes");
        int[] data = new int[8];
        for (int j = 0; j < 8; j++) {
            data[j] = 100 * rank + j;
        }
        f.write(data, 5, MPI.INT);              // individual pointer: 0 to 5
        equal(5, f.getPosition(), "the pointer after 5 ints");
        f.writeAll(MPI.slice(data, 5), 3, MPI.INT);
        equal(8, f.getPosition(), "the pointer after 8 ints");
        f.sync();
        c.barrier();
        f.sync();
        f.seek(0, MPI.SEEK_END);
        equal(8, f.getPosition(), "SEEK_END in the view");
        f.seek(-8, MPI.SEEK_CUR);
        int[] again = new int[8];
        equal(8, f.read(again, 8, MPI.INT).getCount(MPI.INT), "the rank's own ints read back");
        equal(data, again, "through the view");

        // the whole file through the default view: pair b belongs to rank b % size
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        equal(0, f.getPosition(), "setView puts the pointer back");
        ByteBuffer all = MPI.newByteBuffer(32 * size);
        equal(32 * size, f.readAll(all, 32 * size, MPI.BYTE).getCount(MPI.BYTE), "the file's bytes");
        for (int k = 0; k < 8 * size; k++) {
            int b = k / 2;
            int owner = b % size;
            int j = (b / size) * 2 + k % 2;
            equal(100 * owner + j, all.getInt(4 * k), "file int " + k);
        }
        // a derived memory type: every other int of an array, written through the default view
        Datatype everyOther = Datatype.createVector(3, 1, 2, MPI.INT);
        everyOther.commit();
        int[] spread = {1, -1, 2, -1, 3};
        c.barrier();
        f.writeAt(32L * size + 12L * rank, spread, 1, everyOther);
        c.barrier();
        int[] packed = new int[3];
        f.readAt(32L * size + 12L * rank, packed, 3, MPI.INT);
        equal(new int[] {1, 2, 3}, packed, "a vector memory type, packed in the file");
        int[] unpacked = new int[5];
        f.readAt(32L * size + 12L * rank, unpacked, 1, everyOther);
        equal(new int[] {1, 0, 2, 0, 3}, unpacked, "read into a vector memory type");
        // cut the file inside rank 0's second block: its view holds 3 ints before the end, the others' 2
        c.barrier();
        f.setView(8L * rank, MPI.INT, tile, "native");
        f.setSize(8L * size + 4);
        f.seek(0, MPI.SEEK_END);
        equal(rank == 0 ? 3 : 2, f.getPosition(), "SEEK_END where the file ends inside a block");
        f.close();
        c.barrier();
        that(!Files.exists(Path.of(name)), "MODE_DELETE_ON_CLOSE removed the file");
    }

    /** The shared file pointer: writes and reads in any order, then ordered ones in rank order. */
    private static void sharedPointer(Intracomm c, int rank, int size, String name) throws Exception {
        File f = new File(c, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        f.setView(0, MPI.INT, MPI.INT, "native");
        equal(0, f.getPositionShared(), "the shared pointer at the start");
        c.barrier();
        int[] triple = {rank, rank, rank};
        f.writeShared(triple, 3, MPI.INT);
        c.barrier();
        equal(3L * size, f.getPositionShared(), "the shared pointer after every rank's 3 ints");
        f.seekShared(0, MPI.SEEK_SET);
        int[] got = new int[3];
        equal(3, f.readShared(got, 3, MPI.INT).getCount(MPI.INT), "readShared's ints");
        that(got[0] == got[1] && got[1] == got[2], "a triple stays whole: " + Arrays.toString(got));
        int[] owners = new int[size];
        c.allGather(new int[] {got[0]}, 1, MPI.INT, owners, 1, MPI.INT);
        Arrays.sort(owners);
        for (int r = 0; r < size; r++) {
            equal(r, owners[r], "each rank's triple read by one rank");
        }

        c.barrier();
        f.seekShared(0, MPI.SEEK_SET);
        IntBuffer pair = MPI.newIntBuffer(2);
        pair.put(0, 5 * rank).put(1, 5 * rank + 1);
        equal(2, f.writeOrdered(pair, 2, MPI.INT).getCount(MPI.INT), "writeOrdered's ints");
        equal(2L * size, f.getPositionShared(), "the shared pointer after the ordered write");
        f.sync();
        c.barrier();
        f.sync();
        int[] file = new int[2 * size];
        f.readAt(0, file, 2 * size, MPI.INT);
        for (int k = 0; k < 2 * size; k++) {
            equal(5 * (k / 2) + k % 2, file[k], "ordered int " + k);
        }
        f.seekShared(-2L * size, MPI.SEEK_CUR);
        int[] mine = new int[2];
        f.readOrderedBegin(mine, 2, MPI.INT);
        f.readOrderedEnd(mine);
        equal(new int[] {5 * rank, 5 * rank + 1}, mine, "readOrdered gives each rank its own pair");
        c.barrier();
        f.seekShared(0, MPI.SEEK_END);
        equal(3L * size, f.getPositionShared(), "SEEK_END of the shared pointer");
        c.barrier();
        IntBuffer one = MPI.newIntBuffer(1);
        one.put(0, 9);
        f.iWriteShared(one, 1, MPI.INT).waitFor();
        c.barrier();
        equal(4L * size, f.getPositionShared(), "after every rank's iWriteShared");
        f.close();
    }

    /** Append, sizes, atomicity, and the individual pointer's nonblocking and split forms. */
    private static void modes(Intracomm c, int rank, int size, Path dir) throws Exception {
        String name = dir.resolve("modes.dat").toString();
        File f = new File(c, name, MPI.MODE_CREATE | MPI.MODE_WRONLY | MPI.MODE_EXCL);
        f.setSize(100);
        equal(100, f.getSize(), "setSize extends");
        c.barrier();
        f.preallocate(50);
        equal(100, f.getSize(), "preallocate never shrinks");
        c.barrier();
        f.setSize(12);
        equal(12, f.getSize(), "setSize truncates");
        f.close();

        f = new File(c, name, MPI.MODE_WRONLY | MPI.MODE_APPEND);
        equal(12, f.getPosition(), "MODE_APPEND: the individual pointer at the end");
        equal(12, f.getPositionShared(), "MODE_APPEND: the shared pointer at the end");
        f.setAtomicity(true);
        that(f.getAtomicity(), "atomic mode set");
        ByteBuffer b = MPI.newByteBuffer(4);
        b.putInt(0, rank);
        f.seek(12 + 4L * rank, MPI.SEEK_SET);
        f.iWrite(b, 4, MPI.BYTE).waitFor();
        f.writeAllBegin(b, 0, MPI.BYTE);
        f.writeAllEnd(b);
        equal(16 + 4L * rank, f.getPosition(), "after the nonblocking write");
        f.close();
        c.barrier();

        f = new File(c, name, MPI.MODE_RDONLY | MPI.MODE_DELETE_ON_CLOSE);
        equal(12 + 4L * size, f.getSize(), "every rank's append");
        f.setView(12, MPI.INT, MPI.INT, "native");
        IntBuffer ints = MPI.newIntBuffer(size);
        f.iRead(ints, size, MPI.INT).waitFor();
        for (int r = 0; r < size; r++) {
            equal(r, ints.get(r), "appended int " + r);
        }
        f.seek(0, MPI.SEEK_SET);
        f.readAllBegin(ints, 1, MPI.INT);
        equal(1, f.readAllEnd(ints).getCount(MPI.INT), "readAllEnd's status");
        f.iReadAll(ints, 1, MPI.INT).waitFor();
        equal(1, ints.get(0), "the second int by iReadAll");
        f.close();
        c.barrier();
        that(!Files.exists(Path.of(name)), "deleted on close");
    }
}

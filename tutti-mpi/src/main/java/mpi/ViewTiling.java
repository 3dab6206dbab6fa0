package mpi;

/**
 * Where the data of a file view lies: the file type tiles the file from the view's displacement on,
 * one tile per extent, and the view's data bytes are the bytes of each tile's blocks, in order. Maps
 * a position in the view's data to the file's bytes, as runs of contiguous bytes ({@link #seek},
 * then {@link #next} until the request is done); a dense file type (no gaps) is one run.
 */
final class ViewTiling {
    private final long disp;
    /** The file type's blocks as (byte offset, length) pairs within a tile. */
    private final long[] map;
    private final long extent;
    /** Data bytes of one tile. */
    private final long size;
    private final boolean dense;
    /** The cursor: position in the data, or tile, block and offset in the block. */
    private long pos;
    private long tile;
    private int block;
    private long inner;

    ViewTiling(long disp, long[] map, long extent) {
        this.disp = disp;
        this.map = map;
        this.extent = extent;
        long s = 0;
        for (int k = 1; k < map.length; k += 2) {
            s += map[k];
        }
        this.size = s;
        this.dense = map.length == 2 && map[0] == 0 && map[1] == extent;
    }

    /**
     * Checks a file type's blocks as MPI requires them (not negative, in increasing order, within one
     * extent, some data); returns the problem or null.
     */
    static String problem(long[] map, long extent) {
        long end = 0;
        long data = 0;
        for (int k = 0; k < map.length; k += 2) {
            if (map[k] < end) {
                return "its displacements are negative or decrease";
            }
            end = map[k] + map[k + 1];
            data += map[k + 1];
        }
        if (end > extent) {
            return "its data runs past its extent, so tiles would overlap";
        }
        return data == 0 ? "it holds no data" : null;
    }

    /** The file byte of view data byte {@code data}. */
    long fileByte(long data) {
        seek(data);
        next(1);
        return runAt;
    }

    /** Bytes of the view's data that lie before file byte {@code fileSize}. */
    long dataBefore(long fileSize) {
        long rel = fileSize - disp;
        if (rel <= 0) {
            return 0;
        }
        if (dense) {
            return rel;
        }
        long data = rel / extent * size;
        long rem = rel % extent;
        for (int k = 0; k < map.length && map[k] < rem; k += 2) {
            data += Math.min(map[k + 1], rem - map[k]);
        }
        return data;
    }

    /** Puts the cursor at view data byte {@code data}. */
    void seek(long data) {
        pos = data;
        if (!dense) {
            tile = data / size;
            long rem = data % size;
            block = 0;
            while (rem >= map[2 * block + 1]) {
                rem -= map[2 * block + 1];
                block++;
            }
            inner = rem;
        }
    }

    /** The file byte where the run {@link #next} returned starts. */
    long runAt;

    /** The next run of at most {@code max} bytes from the cursor: its length; {@link #runAt} its file byte. */
    long next(long max) {
        if (dense) {
            runAt = disp + pos;
            pos += max;
            return max;
        }
        runAt = disp + tile * extent + map[2 * block] + inner;
        long n = Math.min(max, map[2 * block + 1] - inner);
        inner += n;
        if (inner == map[2 * block + 1]) {
            inner = 0;
            block++;
            if (2 * block == map.length) {
                block = 0;
                tile++;
            }
        }
        return n;
    }
}

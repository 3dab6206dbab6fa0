package mpi;

/**
 * A file's view (what {@link File#getView} returns and {@link File#setView} sets): the displacement
 * in bytes where it starts, the elementary type its offsets count in, the file type that tiles the
 * file from the displacement on (the bytes of its data are the view's, its gaps are skipped), and
 * the data representation.
 */
public final class FileView {
    private final long disp;
    private final Datatype etype;
    private final Datatype filetype;
    private final String datarep;

    /** A view starting at byte {@code disp}, of {@code etype}s, tiled by {@code filetype}, in {@code datarep}. */
    public FileView(long disp, Datatype etype, Datatype filetype, String datarep) {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
    }

    /** The displacement of the view, in bytes from the start of the file. */
    public long getDisp() {
        return disp;
    }

    /** The elementary type: offsets and file pointers count in these. */
    public Datatype getEType() {
        return etype;
    }

    /** The type that tiles the file from the displacement. */
    public Datatype getFileType() {
        return filetype;
    }

    /** The data representation: {@code native}. */
    public String getDataRep() {
        return datarep;
    }
}

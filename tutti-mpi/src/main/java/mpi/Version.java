package mpi;

/** The version of the MPI standard this API follows, from {@link MPI#getVersion()}. */
public final class Version {
    private final int version;
    private final int subVersion;

    /** Made by {@link MPI#getVersion()}. */
    protected Version(int version, int subVersion) {
        this.version = version;
        this.subVersion = subVersion;
    }

    /** The major version (3, as Open MPI 5.0's bindings report). */
    public int getVersion() {
        return version;
    }

    /** The minor version (1). */
    public int getSubVersion() {
        return subVersion;
    }
}

package io.tutti;

/** Element types of message buffers. Java arrays carry their type; off-heap buffers are bytes. */
public enum Datatype {
    BYTE(1), SHORT(2), CHAR(2), INT(4), LONG(8), FLOAT(4), DOUBLE(8);

    private final int size;

    Datatype(int size) {
        this.size = size;
    }

    /** Size of one element in bytes. */
    public int size() {
        return size;
    }
}

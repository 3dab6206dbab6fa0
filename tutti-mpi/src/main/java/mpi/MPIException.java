package mpi;

/**
 * The error every call of this API reports: a checked exception, as in the bindings, carrying the
 * MPI error class ({@link MPI#ERR_TRUNCATE}, {@link MPI#ERR_RANK}, ...) and code; for the errors
 * this layer raises the code is the class.
 *
 * <p>It is thrown under {@link MPI#ERRORS_RETURN}; under the default {@link MPI#ERRORS_ARE_FATAL}
 * the job ends instead (see {@link Errhandler}). Before {@code Init} and after {@code Finalize}
 * every error is thrown, with class 0.
 */
public final class MPIException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int errorCode;
    private final int errorClass;

    /** An error with its MPI code and class. */
    protected MPIException(int code, int clazz, String message) {
        super(message);
        this.errorCode = code;
        this.errorClass = clazz;
    }

    /** An error with the message only; its code and class are 0 ({@link MPI#SUCCESS}), as in the bindings. */
    public MPIException(String message) {
        this(0, 0, message);
    }

    /** An error caused by another exception, whose stack trace it takes over, as in the bindings. */
    public MPIException(Throwable cause) {
        super(cause);
        this.errorCode = 0;
        this.errorClass = 0;
        setStackTrace(cause.getStackTrace());
    }

    /** An error of {@code clazz} (used as the code too) caused by one of Tutti's exceptions. */
    MPIException(int clazz, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = clazz;
        this.errorClass = clazz;
    }

    /** The MPI error code. */
    public int getErrorCode() {
        return errorCode;
    }

    /** The MPI error class ({@link MPI#ERR_TRUNCATE}, ...). */
    public int getErrorClass() {
        return errorClass;
    }
}

package io.sluice.spi.error;

/**
 * The class of a failure; it decides the exit code and whether a partition is retried.
 * Exit codes: USAGE 2, INVALID_SPEC 3, PREFLIGHT 4, VERIFICATION 5, the others 1.
 */
public enum ErrorKind {
    /** The spec asks for something impossible (found offline or at plan time without touching data). */
    INVALID_SPEC(3, false),
    /** Cannot connect, authenticate, or find a table/column/type; nothing was written. */
    PREFLIGHT(4, false),
    /** A passing fault: connection reset, admin shutdown, too many connections, serialization failure, deadlock. */
    TRANSIENT(1, true),
    /** Bad data or a permanent server refusal during the copy (value too long, permission denied). */
    DATA(1, false),
    /** Rows on both sides disagree after the load. */
    VERIFICATION(5, false),
    /** Anything else. */
    FAILED(1, false),
    /** The command asks for something that cannot be done as asked (e.g. a run id that exists, without --resume). */
    USAGE(2, false);

    private final int exitCode;
    private final boolean retryable;

    ErrorKind(int exitCode, boolean retryable) {
        this.exitCode = exitCode;
        this.retryable = retryable;
    }

    public int exitCode() {
        return exitCode;
    }

    public boolean isRetryable() {
        return retryable;
    }
}

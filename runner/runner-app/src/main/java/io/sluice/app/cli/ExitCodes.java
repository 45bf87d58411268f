package io.sluice.app.cli;

/** The exit codes, documented in the README and docs/operations.md. Scripts depend on them. */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int RUN_FAILED = 1;
    public static final int USAGE = 2;
    public static final int INVALID_SPEC = 3;
    public static final int PREFLIGHT = 4;
    public static final int VERIFICATION = 5;
    /** The run was done, but a file it was asked to write (--summary-json, --junit-xml, --report) could not be. */
    public static final int OUTPUT_NOT_WRITTEN = 6;
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}

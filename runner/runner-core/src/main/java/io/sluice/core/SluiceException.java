package io.sluice.core;

import io.sluice.core.diag.Position;
import io.sluice.spi.error.CodedFailure;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorCode;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.memory.JavaHeap;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The unchecked side of {@link CodedFailure}. A failure the runner reports to a person: a stable code, a class that decides the exit code, what happened with
 * the stream/partition it concerns, and how to fix it. Messages never carry secrets (the edge redacts them too).
 */
public final class SluiceException extends RuntimeException implements CodedFailure {
    private final ErrorKind kind;
    private final String code;
    private final String fix;
    /** Where in the spec the failure points, when it is about one place there (a source's where:, a rule). */
    private final Position position;

    public SluiceException(ErrorKind kind, ErrorCode code, String message, String fix) {
        this(kind, code.name(), message, fix, null);
    }

    public SluiceException(ErrorKind kind, ErrorCode code, String message, String fix, Throwable cause) {
        this(kind, code.name(), message, fix, cause);
    }

    /** With a code as a string, e.g. a connector's carried over from its {@link ConnectorException}. */
    public SluiceException(ErrorKind kind, String code, String message, String fix) {
        this(kind, code, message, fix, null);
    }

    public SluiceException(ErrorKind kind, String code, String message, String fix, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.kind = requireNonNull(kind, "kind is null");
        this.code = requireNonNull(code, "code is null");
        this.fix = fix;
        this.position = null;
    }

    private SluiceException(SluiceException e, Position position) {
        super(e.getMessage(), e.getCause());
        this.kind = e.kind;
        this.code = e.code;
        this.fix = e.fix;
        this.position = requireNonNull(position, "position is null");
        setStackTrace(e.getStackTrace());
    }

    /** This failure, pointing at {@code position} in the spec (shown as {@code file:line:col:} before it). */
    public SluiceException at(Position position) {
        return new SluiceException(this, position);
    }

    public Optional<Position> position() {
        return Optional.ofNullable(position);
    }

    /** Wraps a connector failure, naming where it happened, e.g. {@code stream 'orders', partition 3/8}. */
    /**
     * RUN030: a throwable nobody expected at {@code where} (a bug, not the data's fault), so nothing fails silently:
     * the run fails with a code and says how to go on.
     */
    public static SluiceException unexpected(Throwable e, String where) {
        if (e instanceof OutOfMemoryError) {
            return new SluiceException(ErrorKind.FAILED, RunnerCode.RUN031, where + ": the JVM ran out of heap (at most "
                    + JavaHeap.megabytes(JavaHeap.maxBytes()) + "): " + e.getMessage(), JavaHeap.fix(0), e);
        }
        String message = e.getMessage() == null ? "" : ": " + e.getMessage();
        return new SluiceException(ErrorKind.FAILED, RunnerCode.RUN030, where + ": unexpected " + e.getClass().getName()
                + message, "this is a bug in Sluice or the connector, not in the data: report it with the plan "
                + "(sluice plan) and the log; done partitions stay done, so sluice run --resume continues", e);
    }

    public static SluiceException from(ConnectorException e, String where) {
        return new SluiceException(e.kind(), e.code(), where + ": " + e.getMessage(), e.fix().orElse(null), e);
    }

    @Override
    public ErrorKind kind() {
        return kind;
    }

    @Override
    public String code() {
        return code;
    }

    @Override
    public Optional<String> fix() {
        return Optional.ofNullable(fix);
    }

}

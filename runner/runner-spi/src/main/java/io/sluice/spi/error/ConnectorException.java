package io.sluice.spi.error;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The checked side of {@link CodedFailure}, thrown by connectors. A failure a person can act on: a stable code, what happened, and how to fix it. Messages must name the object
 * (table, column, file) and never contain secrets; the runner adds the stream and partition.
 */
public class ConnectorException extends Exception implements CodedFailure {
    private final ErrorKind kind;
    private final String code;
    private final String fix;

    public ConnectorException(ErrorKind kind, ErrorCode code, String message, String fix) {
        this(kind, code, message, fix, null);
    }

    public ConnectorException(ErrorKind kind, ErrorCode code, String message, String fix, Throwable cause) {
        this(kind, requireNonNull(code, "code is null").name(), message, fix, cause);
    }

    /** With a code as a string; {@link ErrorCode} constants are preferred, as they can be listed and documented. */
    public ConnectorException(ErrorKind kind, String code, String message, String fix) {
        this(kind, code, message, fix, null);
    }

    public ConnectorException(ErrorKind kind, String code, String message, String fix, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.kind = requireNonNull(kind, "kind is null");
        this.code = requireNonNull(code, "code is null");
        this.fix = fix;
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

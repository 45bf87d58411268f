package io.sluice.spi.error;

import java.util.Optional;

/**
 * What every Sluice failure carries, whether a connector's checked {@link ConnectorException} or the runner's
 * unchecked one: a stable code (documented in docs/error-codes.md), a kind that decides the exit code and whether a
 * partition is retried, a message that names the object and holds no secret, and how to fix it. Whatever reports a
 * failure (the command line, the summary, the ledger) reads it through this one shape.
 */
public interface CodedFailure {
    ErrorKind kind();

    String code();

    String getMessage();

    Optional<String> fix();

    default int exitCode() {
        return kind().exitCode();
    }
}

package io.sluice.spi.connector;

import io.sluice.spi.error.ErrorCode;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A finding of a connector's offline lint. {@code optionKey} names the source/target key it is about (for the
 * position), {@code code} is stable (e.g. {@code PG101}), {@code fix} says what to do; both message and fix must be
 * free of secrets.
 */
public record Problem(Severity severity, String code, String optionKey, String message, Optional<String> fix) {
    public enum Severity { ERROR, WARNING, NOTE }

    public Problem {
        requireNonNull(severity, "severity is null");
        requireNonNull(code, "code is null");
        requireNonNull(optionKey, "optionKey is null");
        requireNonNull(message, "message is null");
        requireNonNull(fix, "fix is null");
    }

    public static Problem error(ErrorCode code, String optionKey, String message, String fix) {
        return error(requireNonNull(code, "code is null").name(), optionKey, message, fix);
    }

    public static Problem warning(ErrorCode code, String optionKey, String message, String fix) {
        return warning(requireNonNull(code, "code is null").name(), optionKey, message, fix);
    }

    public static Problem error(String code, String optionKey, String message, String fix) {
        return new Problem(Severity.ERROR, code, optionKey, message, Optional.ofNullable(fix));
    }

    public static Problem warning(String code, String optionKey, String message, String fix) {
        return new Problem(Severity.WARNING, code, optionKey, message, Optional.ofNullable(fix));
    }
}

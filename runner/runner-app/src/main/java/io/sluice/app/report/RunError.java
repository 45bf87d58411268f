package io.sluice.app.report;

import io.sluice.spi.error.CodedFailure;

import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A failure as reports show it: the stable code, its class (which decides the exit code), the message and the fix.
 * Anything that is not a {@link CodedFailure} is an internal error with code {@code INTERNAL}.
 */
public record RunError(String code, String kind, String message, Optional<String> fix) {
    public RunError {
        requireNonNull(code, "code is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(message, "message is null");
        requireNonNull(fix, "fix is null");
    }

    public static RunError of(Throwable error) {
        requireNonNull(error, "error is null");
        if (error instanceof CodedFailure e) {
            return new RunError(e.code(), e.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    e.getMessage(), e.fix());
        }
        return new RunError("INTERNAL", "failed", error.toString(),
                Optional.of("run again with -Dsluice.debug=true for a stack trace and report it"));
    }
}

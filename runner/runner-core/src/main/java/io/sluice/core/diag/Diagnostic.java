package io.sluice.core.diag;

import java.util.Comparator;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One finding about a spec: where, how bad, a stable code (documented in docs/spec.md), what, and how to fix it.
 * The message text is API: golden tests pin it.
 */
public record Diagnostic(Severity severity, String code, Position position, String message, Optional<String> fix) {
    public static final Comparator<Diagnostic> ORDER = Comparator
            .comparing((Diagnostic d) -> d.position().file())
            .thenComparingInt(d -> d.position().line())
            .thenComparingInt(d -> d.position().column())
            .thenComparing(Diagnostic::code);

    public Diagnostic {
        requireNonNull(severity, "severity is null");
        requireNonNull(code, "code is null");
        requireNonNull(position, "position is null");
        requireNonNull(message, "message is null");
        requireNonNull(fix, "fix is null");
    }

    /** {@code specs/orders.yaml:14:7: error[SPEC012] unknown key 'degre' in stream 'orders'} */
    public String headline() {
        return position + ": " + severity.label() + "[" + code + "] " + message;
    }
}

package io.sluice.core.spec;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** Collects the diagnostics of one spec file while the loader walks it; the loader reports everything at once. */
final class Findings {
    private final List<Diagnostic> diagnostics = new ArrayList<>();

    void error(SpecCode code, Position position, String message, String fix) {
        add(Severity.ERROR, code.name(), position, message, fix);
    }

    void warning(SpecCode code, Position position, String message, String fix) {
        add(Severity.WARNING, code.name(), position, message, fix);
    }

    void note(SpecCode code, Position position, String message, String fix) {
        add(Severity.NOTE, code.name(), position, message, fix);
    }

    void add(Severity severity, String code, Position position, String message, String fix) {
        diagnostics.add(new Diagnostic(severity, requireNonNull(code, "code is null"), position, message,
                Optional.ofNullable(fix)));
    }

    boolean hasErrors() {
        return diagnostics.stream().anyMatch(d -> d.severity() == Severity.ERROR);
    }

    List<Diagnostic> all() {
        return List.copyOf(diagnostics);
    }
}

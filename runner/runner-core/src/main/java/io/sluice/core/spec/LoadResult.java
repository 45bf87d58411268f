package io.sluice.core.spec;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of loading one spec: the spec when it has no errors, and every diagnostic (errors, warnings, notes)
 * sorted by position. Messages are already free of secrets.
 */
public record LoadResult(Optional<PipelineSpec> spec, List<Diagnostic> diagnostics) {
    public LoadResult {
        requireNonNull(spec, "spec is null");
        diagnostics = diagnostics.stream().sorted(Diagnostic.ORDER).toList();
    }

    public boolean hasErrors() {
        return diagnostics.stream().anyMatch(d -> d.severity() == Severity.ERROR);
    }
}

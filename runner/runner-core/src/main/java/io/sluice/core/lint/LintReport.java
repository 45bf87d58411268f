package io.sluice.core.lint;

import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What {@code sluice lint} found: the files it read, in order, and every diagnostic sorted by file, line, column.
 */
public record LintReport(List<String> files, List<Diagnostic> diagnostics) {
    /** Exit code when any diagnostic is an error ("invalid spec", as for {@code sluice run}). */
    public static final int EXIT_INVALID = 3;

    public LintReport {
        files = List.copyOf(requireNonNull(files, "files is null"));
        diagnostics = requireNonNull(diagnostics, "diagnostics is null").stream().sorted(Diagnostic.ORDER).toList();
    }

    public long count(Severity severity) {
        return diagnostics.stream().filter(d -> d.severity() == severity).count();
    }

    public long errors() {
        return count(Severity.ERROR);
    }

    /** 0 when no errors (warnings and notes allowed), 3 when any error. */
    public int exitCode() {
        return errors() > 0 ? EXIT_INVALID : 0;
    }
}

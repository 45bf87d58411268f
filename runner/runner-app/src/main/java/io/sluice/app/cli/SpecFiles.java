package io.sluice.app.cli;

import io.sluice.core.SluiceException;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import io.sluice.core.spec.Environment;
import io.sluice.core.spec.LoadResult;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.SpecLoader;
import io.sluice.spi.ErrorKind;

import java.io.PrintWriter;
import java.nio.file.Path;

/** Loads a spec for {@code run} and {@code plan}: diagnostics go to stderr, any error stops with exit 3. */
final class SpecFiles {
    private SpecFiles() {
    }

    static PipelineSpec loadForRun(ConnectorRegistry registry, Path file, PrintWriter err) {
        LoadResult result = new SpecLoader(registry, Environment.system(), SpecLoader.Mode.RUN).load(file);
        long errors = result.diagnostics().stream().filter(d -> d.severity() == Severity.ERROR).count();
        for (Diagnostic diagnostic : result.diagnostics()) {
            if (diagnostic.severity() != Severity.NOTE) {
                err.println(diagnostic.headline());
                diagnostic.fix().ifPresent(fix -> err.println("  fix: " + fix));
            }
        }
        err.flush();
        if (errors > 0 || result.spec().isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, "SPEC000",
                    file + " has " + errors + " error(s); nothing was run",
                    "fix the errors above; 'sluice lint " + file + "' lists them all");
        }
        return result.spec().get();
    }
}

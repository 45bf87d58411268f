package io.sluice.app.cli;

import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;

import java.io.PrintWriter;
import java.nio.file.Path;

/** Loads a spec for {@code run}, {@code plan} and {@code status}: diagnostics go to stderr, any error exits 3. */
final class SpecFiles {
    private SpecFiles() {
    }

    static PipelineSpec load(Sluice sluice, Path file, PrintWriter err) {
        try {
            return sluice.load(file, file.toString(), diagnostic -> {
                err.println(diagnostic.headline());
                diagnostic.fix().ifPresent(fix -> err.println("  fix: " + fix));
            });
        } finally {
            err.flush();
        }
    }
}

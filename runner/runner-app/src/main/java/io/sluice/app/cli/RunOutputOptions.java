package io.sluice.app.cli;

import io.sluice.core.run.RunListener;
import io.sluice.core.run.RunReport;
import io.sluice.core.spec.PipelineSpec;

import java.io.PrintWriter;
import java.util.List;

/**
 * Where a run's results go besides the terminal: options such as a JSON summary file or a JUnit report, mixed into
 * {@code run}. {@link #listeners} joins the run's listeners; {@link #finish} writes files once the run ended.
 */
final class RunOutputOptions {
    /** Extra listeners for this run, e.g. a JSON log writer. */
    List<RunListener> listeners(PipelineSpec spec, String runId, PrintWriter err, Terminal terminal) {
        return List.of();
    }

    /** Called once with the final report, whatever the outcome; failures here do not change the exit code. */
    void finish(PipelineSpec spec, RunReport report, PrintWriter err, Terminal terminal) {
    }
}

package io.sluice.app.output;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.PartitionReport;
import io.sluice.core.run.RunListener;
import io.sluice.core.run.StreamReport;
import io.sluice.core.run.Verification;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/** Human-readable run events on stderr: stream starts, retries, failures and per-stream summaries. */
public final class ConsoleRunListener implements RunListener {
    private final PrintWriter err;
    private final UnaryOperator<String> redact;
    private final Object lock = new Object();

    public ConsoleRunListener(PrintWriter err, UnaryOperator<String> redact) {
        this.err = requireNonNull(err, "err is null");
        this.redact = requireNonNull(redact, "redact is null");
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        line("run " + runId + " of spec " + plan.spec().name() + " (sha256 " + plan.spec().checksum().substring(0, 12)
                + ")");
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        line("stream " + stream.name() + ": " + stream.partitions().size() + " partition(s), method "
                + stream.spec().distribution().method().specName() + ", degree " + stream.degree() + ", "
                + stream.projection().format().name().toLowerCase(java.util.Locale.ROOT) + " copy, "
                + snapshotMode + (stream.estimatedRows() > 0
                ? ", ~" + Numbers.count(stream.estimatedRows()) + " rows" : ""));
    }

    @Override
    public void partitionRetrying(StreamPlan stream, PartitionPlan partition, int attempt, SluiceException cause,
                                  Duration backoff) {
        line("retry: " + cause.getMessage() + " (transient, attempt " + (attempt + 1) + "/"
                + stream.spec().retry().maxAttempts() + " in " + backoff.toMillis() + " ms)");
    }

    @Override
    public void partitionFinished(StreamPlan stream, PartitionReport report) {
        if (report.state() == PartitionReport.State.FAILED) {
            line("failed: " + report.error().orElse("partition " + (report.index() + 1)));
        }
    }

    @Override
    public void lockWait(StreamPlan stream, String what, boolean waiting) {
        if (waiting) {
            line("stream " + stream.name() + ": waiting for " + what);
        }
    }

    @Override
    public void ledgerProblem(StreamPlan stream, String message) {
        line("warning: stream " + stream.name() + ": " + message);
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        Verification v = report.verification();
        switch (v.status()) {
            case PASSED -> line("stream " + report.name() + ": verify " + mode(v) + " passed per " + v.scope() + " ("
                    + v.detail() + ")");
            case FAILED -> v.mismatches().forEach(m -> line("stream " + report.name() + ": verify " + mode(v)
                    + " MISMATCH: " + m));
            case SKIPPED -> line("stream " + report.name() + ": verify " + mode(v) + " skipped: " + v.detail());
            case NOT_REQUESTED -> { }
        }
        String counts = report.partitionsDone() + "/" + report.partitionsPlanned() + " partitions"
                + (report.partitionsDoneBefore() > 0 ? " (+" + report.partitionsDoneBefore() + " done before)" : "")
                + (report.retries() > 0 ? ", " + report.retries() + " retried" : "");
        switch (report.state()) {
            case DONE -> line("stream " + report.name() + ": done, " + Numbers.count(report.rows()) + " rows, "
                    + Numbers.megabytes(report.bytes()) + " in " + Numbers.seconds(report.duration().toMillis())
                    + " (" + Numbers.rate(report.rowsPerSecond(), "rows") + ", "
                    + String.format(java.util.Locale.ROOT, "%.1f MB/s", report.megabytesPerSecond()) + "), "
                    + counts + (report.rowCountsMatch() ? ", rows read = rows written" : "")
                    + (report.deletedRows() > 0 ? "; " + Numbers.count(report.deletedRows()) + " rows the source "
                    + "lacks deleted (delete-missing)" : ""));
            case FAILED -> line("stream " + report.name() + ": FAILED after " + counts + "; committed partitions "
                    + "stay in the target, the rest were rolled back");
            case INTERRUPTED -> line("stream " + report.name() + ": interrupted after " + counts
                    + "; in-flight partitions were rolled back");
            case SKIPPED -> line("stream " + report.name() + ": skipped");
        }
    }

    private static String mode(Verification v) {
        return v.mode().name().toLowerCase(java.util.Locale.ROOT);
    }

    private void line(String text) {
        synchronized (lock) {
            err.println(redact.apply(text));
            err.flush();
        }
    }
}

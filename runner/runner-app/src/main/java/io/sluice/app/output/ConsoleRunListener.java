package io.sluice.app.output;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Human-readable run events on stderr: stream starts, retries, failures and per-stream summaries. A run of many
 * tables (more than {@link #MANY_STREAMS}) prints instead a line per failed or slow table and a run line every tenth
 * of the tables (done / total, rows, megabytes, rate), unless {@code verbose}: a thousand tables are not three
 * thousand lines. The JSON log keeps every table's events either way.
 */
public final class ConsoleRunListener implements RunListener {
    static final int MANY_STREAMS = 20;
    /** A table that takes this long gets its own line in a run of many tables. */
    static final Duration SLOW = Duration.ofSeconds(60);

    private final PrintWriter err;
    private final UnaryOperator<String> redact;
    private final boolean verbose;
    private final Object lock = new Object();
    private volatile boolean many;
    private int streams;
    private int finished;
    private long rows;
    private long bytes;
    private long startedNanos;

    public ConsoleRunListener(PrintWriter err, UnaryOperator<String> redact) {
        this(err, redact, false);
    }

    /** {@code verbose}: every table's lines, however many tables the run has. */
    public ConsoleRunListener(PrintWriter err, UnaryOperator<String> redact, boolean verbose) {
        this.err = requireNonNull(err, "err is null");
        this.redact = requireNonNull(redact, "redact is null");
        this.verbose = verbose;
    }

    @Override
    public void runStarted(PipelinePlan plan, String runId) {
        line("run " + runId + " of spec " + plan.spec().name() + " (sha256 " + plan.spec().checksum().substring(0, 12)
                + ")");
        synchronized (lock) {
            streams = plan.streams().size();
            startedNanos = System.nanoTime();
        }
        many = !verbose && plan.streams().size() > MANY_STREAMS;
        if (many) {
            line("run " + runId + ": " + plan.streams().size() + " tables; a line for each one that fails or takes "
                    + "over " + SLOW.toSeconds() + " s, and one every " + step() + " tables done (--verbose: a line "
                    + "per table)");
        }
    }

    private int step() {
        return Math.max(1, streams / 10);
    }

    @Override
    public void streamStarted(StreamPlan stream, String snapshotMode) {
        // A change of the target's shape is told whatever the number of tables: someone will look for it.
        stream.load().shapeChanges().forEach(change -> line("stream " + stream.name() + ": " + change));
        if (many) {
            return;
        }
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
    public void changesRetrying(String feed, SluiceException cause, int failures, int maxAttempts, Duration backoff) {
        line("changes " + feed + ": retry: " + cause.getMessage() + " (transient, " + failures + " in a row of at "
                + "most " + maxAttempts + "; opening the feed again at the ledger's position in " + backoff.toMillis()
                + " ms)");
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
    public void runHookRan(String phase, String connection, int statements) {
        line("run: " + phase + " hook on " + connection + " ran (" + statements + " statement"
                + (statements == 1 ? "" : "s") + ")");
    }

    @Override
    public void hookRan(StreamPlan stream, String phase, int statements) {
        line("stream " + stream.name() + ": " + phase + " hook ran (" + statements + " statement"
                + (statements == 1 ? "" : "s") + ")");
    }

    @Override
    public void ledgerProblem(StreamPlan stream, String message) {
        line("warning: stream " + stream.name() + ": " + message);
    }

    @Override
    public void streamFinished(StreamPlan stream, StreamReport report) {
        if (report.rowsRejected() > 0) { // told whatever the number of tables, like a change of shape
            line("stream " + stream.name() + ": " + Numbers.count(report.rowsRejected()) + " rows set aside in "
                    + stream.spec().rejects().map(r -> r.table()).orElse("the rejects table") + " (first: "
                    + String.join("; ", report.rejectReasons()) + ")");
        }
        if (!many) {
            tell(report);
            return;
        }
        boolean slow = report.duration().compareTo(SLOW) >= 0;
        if (report.state() != StreamReport.State.DONE || slow
                || report.verification().status() == Verification.Status.FAILED) {
            tell(report);
        }
        String run;
        synchronized (lock) {
            finished++;
            rows += report.rows();
            bytes += report.bytes();
            if (finished % step() != 0 && finished != streams) {
                return;
            }
            long millis = Math.max(1, (System.nanoTime() - startedNanos) / 1_000_000L);
            run = "tables " + finished + "/" + streams + " done, " + Numbers.count(rows) + " rows, "
                    + Numbers.megabytes(bytes) + " in " + Numbers.seconds(millis) + " ("
                    + Numbers.rate(rows * 1000.0 / millis, "rows") + ")";
        }
        line(run);
    }

    private void tell(StreamReport report) {
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
                    + counts + (!report.rowCountsMatch() ? "" : report.rowsRejected() > 0
                    ? ", rows read = rows written + rows set aside" : ", rows read = rows written")
                    + (report.deletedRows() > 0 ? "; " + Numbers.count(report.deletedRows()) + " rows the source "
                    + "lacks deleted (delete-missing)" : ""));
            case FAILED -> line("stream " + report.name() + ": FAILED after " + counts + "; committed partitions "
                    + "stay in the target, the rest were rolled back");
            case INTERRUPTED -> line("stream " + report.name() + ": interrupted after " + counts
                    + "; in-flight partitions were rolled back");
            case SKIPPED -> line("stream " + report.name() + ": skipped");
        }
    }

    @Override
    public void changesStarted(String feed, String mode, String from, java.util.Optional<String> upTo) {
        line("changes " + feed + ": applying " + mode + ", from " + from + upTo.map(p -> " up to " + p)
                .orElse(" on until stopped (--follow)"));
    }

    private volatile long lastChangesNanos = System.nanoTime();

    @Override
    public void changesApplied(String feed, ChangeBatch batch,
                               ChangeApplier.Applied applied, long bytesBehind) {
        long now = System.nanoTime();
        if (now - lastChangesNanos < java.util.concurrent.TimeUnit.SECONDS.toNanos(5)) {
            return; // a line every few seconds, however many batches
        }
        lastChangesNanos = now;
        line("changes " + feed + ": at " + batch.end() + ", " + Numbers.megabytes(bytesBehind) + " behind the "
                + "source");
    }

    @Override
    public void changesFinished(ChangeReport report) {
        ChangeApplier.Applied a = report.applied();
        String counts = Numbers.count(report.transactions()) + " source transactions (" + Numbers.count(a.inserts())
                + " inserts, " + Numbers.count(a.updates()) + " updates, " + Numbers.count(a.deletes()) + " deletes, "
                + Numbers.count(a.truncates()) + " truncates)";
        if (report.error().isPresent()) {
            line("changes " + report.feed() + ": FAILED after " + counts + ", applied up to " + report.to()
                    + "; what was applied stays, the ledger holds its position");
            return;
        }
        line("changes " + report.feed() + ": " + counts + " applied in " + Numbers.seconds(report.duration()
                .toMillis()) + ", up to " + report.to() + (report.bytesBehind() == 0 ? ", caught up" : ", "
                + Numbers.megabytes(report.bytesBehind()) + " behind")
                + (report.sequencesReset() > 0 ? "; cut-over: " + report.sequencesReset() + " target sequence(s) set "
                + "past the source's" : ""));
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

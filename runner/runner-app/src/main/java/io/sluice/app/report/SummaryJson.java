package io.sluice.app.report;

import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.PartitionReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * {@code --summary-json}: one JSON document per run, version 1, described by
 * {@code specs/sluice-summary-v1.schema.json} and docs/operations.md. Keys are kebab-case like the spec's; readers must ignore keys they do not know, because
 * version 1 may gain keys (a new version number is only for renamed or removed keys or changed meanings).
 * Every string passes the redactor, so a secret never reaches the file.
 */
public final class SummaryJson {
    public static final int VERSION = 1;
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final UnaryOperator<String> redact;
    private final Optional<String> htmlReport;

    public SummaryJson(UnaryOperator<String> redact) {
        this(redact, Optional.empty());
    }

    /** With {@code htmlReport}, the run's HTML report written beside it, under the key {@code report}. */
    public SummaryJson(UnaryOperator<String> redact, Optional<String> htmlReport) {
        this.redact = requireNonNull(redact, "redact is null");
        this.htmlReport = requireNonNull(htmlReport, "htmlReport is null");
    }

    public String render(RunOutcome outcome) {
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(tree(outcome)) + "\n";
    }

    public ObjectNode tree(RunOutcome outcome) {
        requireNonNull(outcome, "outcome is null");
        ObjectNode root = MAPPER.createObjectNode();
        root.put("summary-version", VERSION);
        root.put("sluice-version", SluiceVersion.get());
        putString(root, "run-id", outcome.runId());
        ObjectNode spec = root.putObject("spec");
        putString(spec, "name", outcome.spec().name());
        spec.put("file", redact.apply(outcome.spec().file()));
        putString(spec, "checksum", outcome.spec().checksum());
        root.put("state", outcome.state());
        root.put("exit-code", outcome.exitCode());
        root.put("started", outcome.started().toString());
        root.put("finished", outcome.finished().toString());
        root.put("seconds", round(outcome.seconds(), 3));
        root.put("rows", outcome.rows());
        root.put("bytes", outcome.bytes());
        ArrayNode streams = root.putArray("streams");
        outcome.streams().forEach(s -> stream(streams.addObject(), s));
        if (!outcome.changes().isEmpty()) {
            ArrayNode changes = root.putArray("changes");
            outcome.changes().forEach(c -> changes(changes.addObject(), c));
        }
        error(root, "error", outcome.error().map(e -> afterWrites(e, outcome.exitCode() == 1)));
        htmlReport.ifPresent(r -> root.put("report", redact.apply(r)));
        return root;
    }

    private void changes(ObjectNode node, ChangeReport feed) {
        node.put("feed", feed.feed());
        ArrayNode streams = node.putArray("streams");
        feed.streams().forEach(s -> streams.add(redact.apply(s)));
        node.put("state", feed.error().isPresent() ? "failed" : "done");
        node.put("from", feed.from());
        node.put("to", feed.to());
        node.put("transactions", feed.transactions());
        node.put("inserts", feed.applied().inserts());
        node.put("updates", feed.applied().updates());
        node.put("deletes", feed.applied().deletes());
        node.put("truncates", feed.applied().truncates());
        node.put("seconds", round(feed.duration().toNanos() / 1e9, 3));
        node.put("bytes-behind", feed.bytesBehind());
    }

    private void stream(ObjectNode node, StreamReport stream) {
        node.put("name", redact.apply(stream.name()));
        node.put("state", stream.state().name().toLowerCase(Locale.ROOT));
        node.put("degree", stream.degree());
        node.put("rows", stream.rows());
        node.put("bytes", stream.bytes());
        node.put("deleted-rows", stream.deletedRows());
        node.put("seconds", round(stream.duration().toNanos() / 1e9, 3));
        node.put("rows-per-second", round(stream.rowsPerSecond(), 1));
        node.put("megabytes-per-second", round(stream.megabytesPerSecond(), 3));
        ObjectNode partitions = node.putObject("partitions");
        partitions.put("planned", stream.partitionsPlanned());
        partitions.put("done", stream.partitionsDone());
        partitions.put("failed", stream.partitionsFailed());
        partitions.put("cancelled", count(stream, PartitionReport.State.CANCELLED));
        partitions.put("retried", stream.partitions().stream().filter(p -> p.attempts() > 1).count());
        partitions.put("retries", stream.retries());
        partitions.put("done-before", stream.partitionsDoneBefore());
        ArrayNode shape = node.putArray("schema-changes");
        stream.schemaChanges().forEach(change -> shape.add(redact.apply(change)));
        node.put("rejected-rows", stream.rowsRejected());
        ArrayNode reasons = node.putArray("reject-reasons");
        stream.rejectReasons().forEach(reason -> reasons.add(redact.apply(reason)));
        // An object so that further checks slot in beside these without a new summary version.
        ObjectNode verification = node.putObject("verification");
        verification.put("rows-read-equals-rows-written", stream.rowCountsMatch());
        Verification verify = stream.verification();
        verification.put("mode", verify.mode().name().toLowerCase(Locale.ROOT));
        verification.put("status", verify.status().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        verification.put("scope", verify.scope());
        verification.put("detail", redact.apply(verify.detail()));
        ArrayNode mismatches = verification.putArray("mismatches");
        verify.mismatches().forEach(m -> mismatches.add(redact.apply(m)));
        error(node, "error", stream.error().map(RunError::of).map(e -> afterWrites(e, stream.partitionsDone() > 0
                || stream.deletedRows() > 0)));
        ArrayNode details = node.putArray("partition-reports");
        for (PartitionReport partition : stream.partitions()) {
            ObjectNode p = details.addObject();
            p.put("index", partition.index() + 1);
            p.put("id", redact.apply(partition.id()));
            p.put("state", partition.state().name().toLowerCase(Locale.ROOT));
            p.put("rows-read", partition.rowsRead());
            p.put("rows-written", partition.rowsWritten());
            p.put("rows-rejected", partition.rowsRejected());
            p.put("bytes", partition.bytes());
            p.put("attempts", partition.attempts());
            p.put("seconds", round(partition.duration().toNanos() / 1e9, 3));
            putString(p, "error", partition.error());
        }
    }

    /**
     * {@code invalid-spec} and {@code preflight} promise that nothing was written (exits 3 and 4); an error of theirs
     * that came after rows were committed (a file deleted mid-run) is told as {@code failed}, as the exit code is.
     */
    private static RunError afterWrites(RunError error, boolean written) {
        boolean promisesNothing = error.kind().equals("invalid-spec") || error.kind().equals("preflight");
        return written && promisesNothing ? new RunError(error.code(), "failed", error.message(), error.fix()) : error;
    }

    private void error(ObjectNode parent, String key, Optional<RunError> error) {
        if (error.isEmpty()) {
            parent.putNull(key);
            return;
        }
        ObjectNode node = parent.putObject(key);
        node.put("code", error.get().code());
        node.put("kind", error.get().kind());
        node.put("message", redact.apply(error.get().message()));
        putString(node, "fix", error.get().fix());
    }

    private void putString(ObjectNode node, String key, Optional<String> value) {
        if (value.isPresent()) {
            node.put(key, redact.apply(value.get()));
        } else {
            node.putNull(key);
        }
    }

    private static long count(StreamReport stream, PartitionReport.State state) {
        return stream.partitions().stream().filter(p -> p.state() == state).count();
    }

    private static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}

package io.sluice.app.report;

import io.sluice.core.ledger.Ledger;
import io.sluice.core.service.RunStatus;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.PartitionClaim;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A past run's timeline as the ledger recorded it ({@code sluice status SPEC RUN_ID --report}): each partition's
 * first start and commit, and every attempt that did not commit; the rows are the partitions' (in a resumed run the
 * stream's own count is the last start's). The ledger keeps no start for the attempt that committed after an
 * earlier one: it is drawn from the end of the attempt before it (so it includes the back-off, or the time until a
 * resume).
 */
public final class LedgerTimeline {
    private LedgerTimeline() {
    }

    public static RunTimeline of(String specName, List<RunStatus.StreamRun> runs, Instant now) {
        requireNonNull(specName, "specName is null");
        requireNonNull(runs, "runs is null");
        requireNonNull(now, "now is null");
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no stream of the run was recorded");
        }
        List<RunTimeline.StreamTimeline> streams = new ArrayList<>();
        for (RunStatus.StreamRun run : runs) {
            streams.add(stream(run, now));
        }
        List<LedgerStream> recorded = runs.stream().map(RunStatus.StreamRun::stream).toList();
        Instant started = recorded.stream().map(LedgerStream::startedAt).min(Comparator.naturalOrder()).orElseThrow();
        boolean allFinished = recorded.stream().allMatch(s -> s.finishedAt().isPresent());
        Optional<Instant> finished = allFinished ? recorded.stream().map(s -> s.finishedAt().orElseThrow())
                .max(Comparator.naturalOrder()) : Optional.empty();
        String state = recorded.stream().anyMatch(s -> s.state() == LedgerStream.State.FAILED) ? "failed"
                : recorded.stream().anyMatch(s -> s.state() == LedgerStream.State.INTERRUPTED) ? "interrupted"
                : recorded.stream().anyMatch(s -> s.state() == LedgerStream.State.RUNNING) ? "running" : "done";
        return new RunTimeline(recorded.getFirst().runId(), specName, state, started, finished,
                streams.stream().mapToLong(RunTimeline.StreamTimeline::rows).sum(),
                streams.stream().mapToLong(RunTimeline.StreamTimeline::bytes).sum(),
                recorded.stream().flatMap(s -> s.error().stream()).findFirst(), "read from the ledger", streams);
    }

    /** The recorded definition's {@code key: value} lines (see {@link LedgerStream#definition()}). */
    private static Map<String, String> definition(String text) {
        Map<String, String> values = new java.util.HashMap<>();
        for (String line : text.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                values.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 2).trim());
            }
        }
        return values;
    }

    /** The rows the target's finish deleted, as its mark keeps them ({@link io.sluice.spi.ledger.LoadMarks}). */
    private static long deletedRows(Map<String, String> marks) {
        String value = marks.getOrDefault(Ledger.TARGET_MARKS
                + LoadMarks.DELETED_ROWS, "");
        return value.isEmpty() ? 0 : Long.parseLong(value);
    }

    private static List<String> schemaChanges(Map<String, String> marks) {
        String value = marks.getOrDefault(Ledger.TARGET_MARKS
                + LoadMarks.SCHEMA_CHANGES, "");
        return value.isEmpty() ? List.of() : List.of(value.split("\n"));
    }

    private static RunTimeline.StreamTimeline stream(RunStatus.StreamRun run, Instant now) {
        LedgerStream stream = run.stream();
        Map<String, List<AttemptRecord>> failedAttempts = run.attempts().stream()
                .collect(Collectors.groupingBy(AttemptRecord::partitionId));
        List<RunTimeline.PartitionTimeline> partitions = new ArrayList<>();
        long bytes = 0;
        long rows = 0;
        for (LedgerPartition p : run.partitions()) {
            List<RunTimeline.Attempt> attempts = new ArrayList<>();
            Optional<String> process = p.claim().map(PartitionClaim::holder);
            Instant lastEnd = null;
            for (AttemptRecord a : failedAttempts.getOrDefault(p.partitionId(), List.of())) {
                attempts.add(new RunTimeline.Attempt(a.attempt(), a.startedAt(), a.finishedAt(), switch (a.outcome()) {
                    case RETRIED -> RunTimeline.Outcome.RETRIED;
                    case FAILED -> RunTimeline.Outcome.FAILED;
                    case CANCELLED -> RunTimeline.Outcome.CANCELLED;
                }, a.errorCode().map(c -> c + ": " + a.message().orElse("")).or(a::message), process));
                lastEnd = a.finishedAt();
            }
            String state;
            if (p.state() == LedgerPartition.State.DONE) {
                Instant end = p.finishedAt().orElse(now);
                Instant start = lastEnd != null ? lastEnd : p.startedAt().orElse(end);
                attempts.add(new RunTimeline.Attempt(attempts.size() + 1, start, end, RunTimeline.Outcome.DONE,
                        Optional.empty(), process));
                state = "done";
            } else if (p.startedAt().isPresent() && stream.state() == LedgerStream.State.RUNNING
                    && (lastEnd == null || attempts.getLast().outcome() == RunTimeline.Outcome.RETRIED)) {
                attempts.add(new RunTimeline.Attempt(attempts.size() + 1, lastEnd != null ? lastEnd
                        : p.startedAt().orElseThrow(), now, RunTimeline.Outcome.RUNNING, Optional.empty(), process));
                state = "running";
            } else {
                state = attempts.isEmpty() ? "not run" : attempts.getLast().outcome().name().toLowerCase(Locale.ROOT);
            }
            bytes += p.bytes();
            rows += p.rows();
            partitions.add(new RunTimeline.PartitionTimeline(p.index(), p.partitionId(), p.predicate(), state,
                    p.rows(), p.bytes(), attempts, p.rejected()));
        }
        int retries = (int) run.attempts().stream().filter(a -> a.outcome() == AttemptRecord.Outcome.RETRIED).count();
        Map<String, String> definition = definition(stream.definition());
        String source = definition.getOrDefault("source.table", definition.getOrDefault("source.query",
                definition.getOrDefault("source.files", "")));
        String method = definition.getOrDefault("distribution.method", "none")
                + Optional.ofNullable(definition.get("distribution.key")).map(k -> " on " + k).orElse("")
                + ", load mode " + definition.getOrDefault("load-mode", "append");
        return new RunTimeline.StreamTimeline(stream.stream(), stream.state().name().toLowerCase(Locale.ROOT),
                source, definition.getOrDefault("target.table", ""), method, 0, rows, bytes,
                deletedRows(run.marks()), stream.partitionsPlanned(),
                0, retries, List.of("-- the stream's definition as the ledger recorded it\n" + stream.definition()),
                List.of(), "", stream.error(), partitions, schemaChanges(run.marks()));
    }
}

package io.sluice.app.report;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What a run did over time, as the run report draws it: per stream its partitions and each attempt of each with its
 * start, end and outcome. Built while a run runs ({@link TimelineRecorder}) or afterwards from the ledger
 * ({@link LedgerTimeline}); rendered by {@link HtmlRunReport}. Plain data, not yet redacted.
 *
 * @param state    done, failed, interrupted or running, as the summary says it
 * @param finished empty while the run runs
 */
public record RunTimeline(String runId, String specName, String state, Instant started, Optional<Instant> finished,
                          long rows, long bytes, Optional<String> error, String origin,
                          List<StreamTimeline> streams, List<ChangeTimeline> changes) {
    public RunTimeline {
        requireNonNull(runId, "runId is null");
        requireNonNull(specName, "specName is null");
        requireNonNull(state, "state is null");
        requireNonNull(started, "started is null");
        requireNonNull(finished, "finished is null");
        requireNonNull(error, "error is null");
        requireNonNull(origin, "origin is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
        changes = List.copyOf(requireNonNull(changes, "changes is null"));
    }

    /** A run whose change feeds are not known (read back from the ledger, which keeps only their positions). */
    public RunTimeline(String runId, String specName, String state, Instant started, Optional<Instant> finished,
                       long rows, long bytes, Optional<String> error, String origin, List<StreamTimeline> streams) {
        this(runId, specName, state, started, finished, rows, bytes, error, origin, streams, List.of());
    }

    /**
     * One change feed the run applies: {@code state} applying, done or failed; {@code at} the position applied up
     * to; {@code bytesBehind} how far the source was ahead after the last batch (its lag).
     */
    public record ChangeTimeline(String feed, String state, String from, String at, long transactions, long inserts,
                                 long updates, long deletes, long truncates, long bytesBehind,
                                 Optional<String> error) {
        public ChangeTimeline {
            requireNonNull(feed, "feed is null");
            requireNonNull(state, "state is null");
            requireNonNull(from, "from is null");
            requireNonNull(at, "at is null");
            requireNonNull(error, "error is null");
        }
    }

    /**
     * One stream of the run. {@code statements} are what each side runs; {@code columns} the mapping, one per line;
     * {@code schemaChanges} what the load changed in the target table's shape.
     */
    public record StreamTimeline(String name, String state, String source, String target, String method, int degree,
                                 long rows, long bytes, long deletedRows, int partitionsPlanned, int partitionsDoneBefore, int retries,
                                 List<String> statements, List<String> columns, String verification,
                                 Optional<String> error, List<PartitionTimeline> partitions, List<String> schemaChanges) {
        public StreamTimeline {
            requireNonNull(name, "name is null");
            requireNonNull(state, "state is null");
            requireNonNull(source, "source is null");
            requireNonNull(target, "target is null");
            requireNonNull(method, "method is null");
            statements = List.copyOf(requireNonNull(statements, "statements is null"));
            columns = List.copyOf(requireNonNull(columns, "columns is null"));
            requireNonNull(verification, "verification is null");
            requireNonNull(error, "error is null");
            partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
            schemaChanges = List.copyOf(requireNonNull(schemaChanges, "schemaChanges is null"));
        }

        /** Rows the partitions set aside ({@code rejects:}). */
        public long rejected() {
            return partitions.stream().mapToLong(PartitionTimeline::rejected).sum();
        }
    }

    /** One partition: its final state and every attempt, in order. */
    public record PartitionTimeline(int index, String id, String predicate, String state, long rows, long bytes,
                                    List<Attempt> attempts, long rejected) {
        /** A partition that set no rows aside. */
        public PartitionTimeline(int index, String id, String predicate, String state, long rows, long bytes,
                                 List<Attempt> attempts) {
            this(index, id, predicate, state, rows, bytes, attempts, 0);
        }

        public PartitionTimeline {
            requireNonNull(id, "id is null");
            requireNonNull(predicate, "predicate is null");
            requireNonNull(state, "state is null");
            attempts = List.copyOf(requireNonNull(attempts, "attempts is null"));
        }
    }

    /** How one attempt ended; RUNNING while it has not. */
    public enum Outcome { DONE, RETRIED, FAILED, CANCELLED, RUNNING }

    /**
     * One attempt of a partition.
     *
     * @param process in a joined run, the process that ran it; empty otherwise
     */
    public record Attempt(int number, Instant start, Instant end, Outcome outcome, Optional<String> error,
                          Optional<String> process) {
        public Attempt {
            requireNonNull(start, "start is null");
            requireNonNull(end, "end is null");
            requireNonNull(outcome, "outcome is null");
            requireNonNull(error, "error is null");
            requireNonNull(process, "process is null");
            if (end.isBefore(start)) {
                end = start;
            }
        }
    }
}

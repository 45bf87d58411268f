package io.sluice.core.service;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.Connections;
import io.sluice.core.plan.Endpoints;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.changes.ChangeFeedState;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.StoredRejects;
import io.sluice.spi.write.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The runs of a spec as the ledgers in its targets recorded them, read without planning anything. Closing it closes
 * the connections.
 */
public final class RunStatus implements AutoCloseable {
    /**
     * One stream of one run; with its partitions and the attempts that did not commit when one run was asked for.
     *
     * @param marks what the stream of the run keeps besides partitions, e.g. an incremental stream's window
     *              ({@link io.sluice.core.plan.IncrementalWindow})
     */
    public record StreamRun(LedgerStream stream, List<LedgerPartition> partitions, List<AttemptRecord> attempts,
                            java.util.Map<String, String> marks) {
        public StreamRun {
            requireNonNull(stream, "stream is null");
            partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
            attempts = List.copyOf(requireNonNull(attempts, "attempts is null"));
            marks = java.util.Map.copyOf(requireNonNull(marks, "marks is null"));
        }
    }

    private final PipelineSpec spec;
    private final Connections connections;

    RunStatus(PipelineSpec spec, Connections connections) {
        this.spec = requireNonNull(spec, "spec is null");
        this.connections = requireNonNull(connections, "connections is null");
    }

    /**
     * Without {@code runId} the newest {@code runsShown} runs of the spec, stream by stream; with it that run's
     * streams and their partitions. Refused (STATUS001) for a spec with {@code ledger: off}.
     */
    public List<StreamRun> runs(Optional<String> runId, int runsShown) {
        requireNonNull(runId, "runId is null");
        if (!spec.ledger()) {
            throw new SluiceException(ErrorKind.USAGE, RunnerCode.STATUS001, "spec '" + spec.name()
                    + "' has ledger: off, so no runs are recorded", "remove ledger: off to record later runs");
        }
        List<StreamRun> found = new ArrayList<>();
        try {
            for (StreamSpec stream : spec.streams()) {
                Ledger ledger = ledgerOf(stream);
                List<LedgerStream> runs = runId.isEmpty() ? ledger.streamsOfSpec(spec.name(), runsShown)
                        : ledger.streamsOfRun(runId.get());
                for (LedgerStream run : runs) {
                    // A stream over a table pattern records one stream per table, named <stream>.<schema>.<table>.
                    if (run.stream().equals(stream.name()) || run.stream().startsWith(stream.name() + ".")) {
                        StreamKey key = new StreamKey(run.runId(), run.stream());
                        found.add(new StreamRun(run, runId.isEmpty() ? List.of() : ledger.partitions(key),
                                runId.isEmpty() ? List.of() : ledger.attempts(key),
                                ledger.marks(run.key())));
                    }
                }
            }
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "ledger");
        }
        return found;
    }

    /**
     * The newest {@code limit} rows each stream with {@code rejects:} set aside (of run {@code runId} when given), as
     * its rejects table keeps them, stream by stream.
     */
    public java.util.Map<String, List<RejectedRow.Stored>> rejects(Optional<String> runId, int limit) {
        requireNonNull(runId, "runId is null");
        java.util.Map<String, List<RejectedRow.Stored>> found = new java.util.LinkedHashMap<>();
        try {
            for (StreamSpec stream : spec.streams()) {
                if (stream.rejects().isEmpty()) {
                    continue;
                }
                Connector connector = connections.get(stream.target().connection());
                Target target = Endpoints.target(connector, connector.bindTarget(stream.target().options(),
                        java.util.Map.of("schema", "schema", "table", "table")));
                StoredRejects stored = target.storedRejects().orElseThrow(() -> new ConnectorException(
                        ErrorKind.FAILED, SpiCode.SPI011, target.describe() + " sets no rows aside",
                        "remove rejects: from the stream"));
                found.put(stream.name(), stored.rejectedRows(stream.rejects().get().table(), stream.name(), runId,
                        limit));
            }
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "rejects table");
        }
        return found;
    }

    /**
     * One change feed of the spec: what the ledger recorded of it and what the source holds now.
     *
     * @param streams  the spec's streams that follow it; empty for a feed the ledger holds and no stream follows any
     *                 more (a spec changed or renamed: its slot still keeps WAL on the source)
     */
    public record FeedStatus(String feed, List<String> streams, Optional<ChangeFeedRecord> record,
                             Optional<ChangeFeedState> state) {
        public FeedStatus {
            requireNonNull(feed, "feed is null");
            streams = List.copyOf(requireNonNull(streams, "streams is null"));
            requireNonNull(record, "record is null");
            requireNonNull(state, "state is null");
        }
    }

    /**
     * The spec's change feeds, those its streams follow first, then those only its ledgers remember. Reads only: a
     * ledger that does not exist yet (or predates change feeds) is not created, it just holds none ({@code sluice
     * plan} writes nothing).
     */
    public List<FeedStatus> feeds() {
        if (!spec.ledger()) {
            return List.of();
        }
        java.util.Map<String, FeedStatus> found = new java.util.LinkedHashMap<>();
        java.util.Set<String> remembered = new java.util.LinkedHashSet<>();
        java.util.Map<String, ChangeFeedRecord> records = new java.util.HashMap<>();
        try {
            for (StreamSpec stream : spec.streams()) {
                Ledger ledger = ledgerOf(stream, false);
                for (ChangeFeedRecord record : ledger.feeds().records(spec.name())) {
                    records.putIfAbsent(record.feed(), record);
                    remembered.add(record.feed());
                }
                Optional<ChangeFeedState> state = connections.get(stream.source().connection())
                        .changeFeedState(stream.source().options());
                if (state.isPresent()) {
                    String feed = state.get().feed();
                    FeedStatus before = found.get(feed);
                    List<String> streams = new ArrayList<>(before == null ? List.of() : before.streams());
                    streams.add(stream.name());
                    found.put(feed, new FeedStatus(feed, streams, Optional.empty(), state));
                }
            }
        } catch (ConnectorException e) {
            throw SluiceException.from(e, "change feed");
        }
        List<FeedStatus> feeds = new ArrayList<>();
        for (FeedStatus feed : found.values()) {
            feeds.add(new FeedStatus(feed.feed(), feed.streams(), Optional.ofNullable(records.get(feed.feed())),
                    feed.state()));
        }
        for (String feed : remembered) {
            if (!found.containsKey(feed)) {
                feeds.add(new FeedStatus(feed, List.of(), Optional.of(records.get(feed)), Optional.empty()));
            }
        }
        return feeds;
    }

    private Ledger ledgerOf(StreamSpec stream) throws ConnectorException {
        return ledgerOf(stream, true);
    }

    /** {@code ready}: created or migrated first (to record or read runs), else as it is (to read feeds). */
    private Ledger ledgerOf(StreamSpec stream, boolean ready) throws ConnectorException {
        // The ledger lives with the connection, whatever table a template would name.
        Connector connector = connections.get(stream.target().connection());
        Ledger ledger = Endpoints.target(connector, connector.bindTarget(stream.target().options(),
                        java.util.Map.of("schema", "schema", "table", "table")))
                .ledgerStore().map(Ledger::new)
                .orElseThrow(() -> new SluiceException(ErrorKind.USAGE, RunnerCode.STATUS002, "the target of stream '"
                        + stream.name() + "' keeps no ledger", null));
        if (ready) {
            ledger.ensureReady();
        }
        return ledger;
    }

    @Override
    public void close() {
        connections.close();
    }
}

package io.sluice.core.run.changes;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.ChangeFollowChecks;
import io.sluice.core.plan.ShapedSource;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.context.Backoff;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.spec.ColumnRule;
import io.sluice.core.spec.RetrySpec;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeFeed;
import io.sluice.spi.changes.ChangeRoute;
import io.sluice.spi.changes.ChangeSink;
import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.read.Source;
import io.sluice.spi.write.Target;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The change feeds of a run ({@code changes:}): which streams follow which feed, whether this run starts the feed
 * (a new slot whose snapshot the copy reads), finishes a copy it started before (resume), or only applies changes
 * (every run after the copy), and, after the streams, the changes applied, each batch with the ledger's position.
 */
public final class ChangeFeeds {
    /** A batch's size: big enough to amortise a round trip per table, small enough to keep memory low. */
    private static final int BATCH_CHANGES = 20_000;
    /** A batch of wide rows ends sooner: with the read-ahead, about four batches at most are in memory. */
    private static final long BATCH_BYTES = 64L << 20;
    private static final Duration WAIT = Duration.ofMillis(500);

    /** What this run does with a feed. */
    public enum Mode {
        /** Start the feed: its slot exports the snapshot the copy reads. */
        START,
        /** The copy this run began is resumed; the slot made then goes on. */
        RESUME_COPY,
        /** The copy was done by an earlier run: only changes. */
        CHANGES_ONLY;

        String label() {
            return switch (this) {
                case START -> "after the copy";
                case RESUME_COPY -> "after the resumed copy";
                case CHANGES_ONLY -> "changes only";
            };
        }
    }

    /**
     * One feed of the run and the streams whose tables it carries; {@code joining}: in a run that only applies changes,
     * the streams whose tables the feed does not carry yet (a pattern picked them up since), copied into it first.
     */
    public record Feed(String name, Mode mode, Ledger ledger, List<StreamPlan> streams, java.util.Set<String> joining) {
        public Feed {
            streams = List.copyOf(streams);
            joining = java.util.Set.copyOf(joining);
        }

        /** Whether changes up to the apply's start may be in the copy already: they are replayed over it. */
        boolean replays() {
            return mode == Mode.RESUME_COPY || !joining.isEmpty();
        }

        String label() {
            return mode.label() + (joining.isEmpty() ? "" : ", after copying " + joining.size() + " table(s) new to "
                    + "the feed (" + String.join(", ", new java.util.TreeSet<>(joining)) + ")");
        }
    }

    private final Map<String, Feed> byStream = new HashMap<>();
    private final Map<String, SluiceException> failed = new HashMap<>();
    private final List<Feed> feeds = new ArrayList<>();
    private final BoundPlan bound;
    private final RunIdentity identity;

    private ChangeFeeds(BoundPlan bound, RunIdentity identity) {
        this.bound = bound;
        this.identity = identity;
    }

    /** Reads each feed's record and checks it can start or go on; a feed that cannot fails its streams. */
    public static ChangeFeeds prepare(BoundPlan bound, RunIdentity identity, ChangeFollow follow) {
        requireNonNull(bound, "bound is null");
        requireNonNull(identity, "identity is null");
        requireNonNull(follow, "follow is null");
        ChangeFeeds feeds = new ChangeFeeds(bound, identity);
        Map<String, StreamPlan> streams = new HashMap<>();
        bound.plan().streams().forEach(s -> streams.put(s.name(), s));
        for (SnapshotSharing.Group group : SnapshotSharing.of(bound)) {
            if (group.feed().isEmpty()) {
                continue;
            }
            List<StreamPlan> members = group.streams().stream().map(streams::get).toList();
            try {
                Feed feed = feeds.prepare(group.feed().get(), members, follow);
                feeds.feeds.add(feed);
                members.forEach(s -> feeds.byStream.put(s.name(), feed));
            } catch (ConnectorException e) {
                SluiceException error = new SluiceException(e.kind() == ErrorKind.FAILED ? ErrorKind.PREFLIGHT
                        : e.kind(), e.code(), "change feed " + group.feed().get() + ": "
                        + identity.redactor().redact(e.getMessage()), e.fix().orElse(null), e);
                members.forEach(s -> feeds.failed.put(s.name(), error));
            } catch (SluiceException e) {
                members.forEach(s -> feeds.failed.put(s.name(), e));
            } catch (RuntimeException e) {
                SluiceException error = SluiceException.unexpected(e, "change feed " + group.feed().get());
                members.forEach(s -> feeds.failed.put(s.name(), error));
            }
        }
        // A stream with a feed outside every group reads no PostgreSQL snapshot: consistency none.
        for (StreamPlan stream : bound.plan().streams()) {
            StreamBinding binding = bound.binding(stream);
            if (binding.source().changes().isPresent() && !feeds.byStream.containsKey(stream.name())
                    && !feeds.failed.containsKey(stream.name())) {
                feeds.failed.put(stream.name(), refused(stream, "it reads with consistency: none (or reads a "
                        + "table another stream writes), and changes meet the copy only in the slot's snapshot",
                        "set consistency: snapshot on the stream"));
            }
        }
        return feeds;
    }

    private Feed prepare(String name, List<StreamPlan> streams, ChangeFollow follow)
            throws ConnectorException, SluiceException {
        Optional<Ledger> ledger = Optional.empty();
        for (StreamPlan stream : streams) {
            check(stream);
            ledger = ledger.or(() -> bound.binding(stream).ledger());
        }
        Ledger kept = ledger.orElseThrow(() -> refused(streams.getFirst(), "its run keeps no ledger (ledger: off), "
                + "and the feed's position lives there", "remove ledger: off"));
        kept.ensureReady();
        String spec = identity.specName();
        Optional<ChangeFeedRecord> record = kept.feeds().record(spec, name);
        if (follow.restart() && record.isPresent()) {
            kept.feeds().drop(spec, name);
            record = Optional.empty();
        }
        Mode mode;
        if (record.isEmpty()) {
            mode = Mode.START;
        } else if (record.get().state() == ChangeFeedRecord.State.APPLYING) {
            mode = Mode.CHANGES_ONLY;
        } else if (record.get().runId().equals(identity.runId())) {
            mode = Mode.RESUME_COPY;
        } else {
            mode = Mode.START; // a copy another run began and never finished: this fresh run copies anew
        }
        List<ChangeSource> members = streams.stream().map(s -> changesOf(bound.binding(s).source())).toList();
        ChangeSource source = members.getFirst();
        source.checkChanges(mode != Mode.START);
        java.util.Set<String> joining = new java.util.HashSet<>();
        if (mode == Mode.CHANGES_ONLY) {
            List<ChangeSource> added = source.newToChanges(members);
            for (int i = 0; i < streams.size(); i++) {
                if (added.contains(members.get(i))) {
                    joining.add(streams.get(i).name());
                }
            }
        }
        return new Feed(name, mode, kept, streams, joining);
    }

    /** What cannot follow changes ({@link io.sluice.core.plan.ChangeFollowChecks}, checked at plan already). */
    private void check(StreamPlan stream) {
        ChangeFollowChecks.refuse(stream.spec(), bound.binding(stream).target());
    }

    private static SluiceException refused(StreamPlan stream, String why, String fix) {
        return new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.RUN070, "stream '" + stream.name()
                + "' follows changes, but " + why, fix);
    }

    public Optional<SluiceException> failure(StreamPlan stream) {
        return Optional.ofNullable(failed.get(stream.name()));
    }

    public Optional<Feed> of(StreamPlan stream) {
        return Optional.ofNullable(byStream.get(stream.name()));
    }

    /** Whether the stream's table was copied by an earlier run: this one applies its changes only. */
    public boolean changesOnly(StreamPlan stream) {
        Feed feed = byStream.get(stream.name());
        return feed != null && feed.mode() == Mode.CHANGES_ONLY && !feed.joining().contains(stream.name());
    }

    /** Records where the feed this run started begins, before anything is copied: a resume goes on from it. */
    public void started(Feed feed, SharedSnapshot snapshot) throws ConnectorException {
        String from = snapshot.changesFrom().orElseThrow(() -> new IllegalStateException(feed.name()
                + ": the snapshot of a started feed names no position"));
        feed.ledger().feeds().write(new ChangeFeedRecord(identity.specName(), feed.name(),
                ChangeFeedRecord.State.COPYING, from, identity.runId()));
    }

    /**
     * Applies each feed whose copy is done ({@code reports}: the run's stream reports), one thread per feed, until
     * caught up with the source's position at the start or, following, until {@code stop} says so.
     */
    public List<ChangeReport> apply(Map<String, StreamReport> reports, RunListener listener, ChangeFollow follow,
                             BooleanSupplier stop) {
        List<ChangeReport> done = new ArrayList<>();
        Map<Feed, Thread> threads = new LinkedHashMap<>();
        Map<Feed, ChangeReport> results = new java.util.concurrent.ConcurrentHashMap<>();
        for (Feed feed : feeds) {
            List<String> unfinished = feed.streams().stream().filter(s -> !changesOnly(s))
                    .filter(s -> reports.get(s.name()) == null
                            || reports.get(s.name()).state() != StreamReport.State.DONE)
                    .map(StreamPlan::name).toList();
            if (!unfinished.isEmpty()) {
                ChangeReport report = new ChangeReport(feed.name(), names(feed), "", "", 0,
                        ChangeApplier.Applied.NONE, Duration.ZERO, 0, Optional.of(new SluiceException(
                        ErrorKind.FAILED, RunnerCode.RUN072, "change feed " + feed.name() + " applied nothing: "
                        + "the copy of " + String.join(", ", unfinished) + " did not finish", "fix what failed "
                        + "the copy, then run with --resume: the changes apply once every table is copied")), 0);
                listener.changesFinished(report);
                results.put(feed, report);
                continue;
            }
            threads.put(feed, Thread.ofVirtual().name("sluice-changes-" + feed.name()).start(() -> {
                ChangeReport report = applyOne(feed, listener, follow, stop);
                results.put(feed, report);
                listener.changesFinished(report);
            }));
        }
        for (Thread thread : threads.values()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Feed feed : feeds) {
            Optional.ofNullable(results.get(feed)).ifPresent(done::add);
        }
        return done;
    }

    private static List<String> names(Feed feed) {
        return feed.streams().stream().map(StreamPlan::name).toList();
    }

    /** What one feed's apply got to, across the attempts a follower makes after passing failures. */
    private static final class Applying {
        String from = "";
        String at = "";
        long transactions;
        long behind;
        int sequences;
        ChangeApplier.Applied applied = ChangeApplier.Applied.NONE;
        /** Passing failures in a row: a batch applied ends the row. */
        int failures;
        /** Up to where batches are replays (empty: none), fixed by the first attempt. */
        String replayUntil;
    }

    private ChangeReport applyOne(Feed feed, RunListener listener, ChangeFollow follow, BooleanSupplier stop) {
        Instant started = Instant.now();
        Applying state = new Applying();
        // A follower rides through a source or target restart: a passing failure is retried from the ledger's
        // position, with the first stream's retry: settings; a lasting one (that many in a row) ends the run.
        RetrySpec retry = feed.streams().getFirst().spec().retry();
        Backoff backoff = new Backoff(retry);
        while (true) {
            try {
                applyFromLedger(feed, listener, follow, stop, state);
                return report(feed, state, started, Optional.empty());
            } catch (ConnectorException e) {
                SluiceException error = new SluiceException(e.kind(), e.code(), "change feed " + feed.name() + ": "
                        + identity.redactor().redact(e.getMessage()), e.fix().orElse(null), e);
                state.failures++;
                if (follow.follow() && e.kind().isRetryable() && state.failures < retry.maxAttempts()) {
                    Duration wait = backoff.before(state.failures + 1);
                    listener.changesRetrying(feed.name(), error, state.failures, retry.maxAttempts(), wait);
                    if (Backoff.pause(wait, stop)) {
                        continue;
                    }
                    // Stopped (SIGTERM) while waiting: what was applied is committed with its position, as a
                    // follower stopped between batches.
                    return report(feed, state, started, Optional.empty());
                }
                return report(feed, state, started, Optional.of(error));
            } catch (RuntimeException e) {
                return report(feed, state, started, Optional.of(SluiceException.unexpected(e, "change feed "
                        + feed.name())));
            }
        }
    }

    /** The change source of a stream the plan gave a feed: a source without one here is the runner's bug. */
    public static ChangeSource changesOf(Source source) {
        return source.changes().orElseThrow(() -> new IllegalStateException(source.describe()
                + " follows no changes"));
    }

    private static ChangeReport report(Feed feed, Applying state, Instant started, Optional<SluiceException> error) {
        return new ChangeReport(feed.name(), names(feed), state.from, state.at, state.transactions, state.applied,
                Duration.between(started, Instant.now()), state.behind, error, state.sequences);
    }

    /** Opens the feed at the ledger's position and applies until caught up, or while following, until stopped. */
    private void applyFromLedger(Feed feed, RunListener listener, ChangeFollow follow, BooleanSupplier stop,
                                 Applying state) throws ConnectorException {
        List<ChangeSource> sources = feed.streams().stream().map(s -> changesOf(bound.binding(s).source())).toList();
        ChangeFeedRecord record = feed.ledger().feeds().record(identity.specName(), feed.name()).orElseThrow(() ->
                new ConnectorException(ErrorKind.FAILED, RunnerCode.RUN071, "change feed " + feed.name()
                        + " has no record in the ledger any more", "run again: the feed starts anew"));
        if (record.state() == ChangeFeedRecord.State.COPYING) {
            // Every stream of the feed is copied: from now on a run only applies changes, even when this one
            // fails before its first batch.
            record = record.at(ChangeFeedRecord.State.APPLYING, record.position(), identity.runId());
            feed.ledger().feeds().write(record);
        }
        if (state.from.isEmpty()) {
            state.from = record.position();
        }
        state.at = record.position();
        List<ChangeRoute> routes = new ArrayList<>();
        for (StreamPlan stream : feed.streams()) {
            routes.add(route(stream));
        }
        Target first = bound.binding(feed.streams().getFirst()).target();
        int parallel = bound.plan().spec().run().maxParallelStreams();
        try (ChangeFeed changes = sources.getFirst().openChanges(sources, record.position());
             ChangeLanes applier = ChangeLanes.open(first, routes, parallel, changes.positionOrder(),
                     feed.ledger(), record, identity.runId())) {
            String now = changes.currentPosition();
            Optional<String> upTo = follow.follow() ? Optional.empty() : Optional.of(now);
            // After a resumed copy (or a copy of tables new to the feed), the partitions of a later moment hold
            // some of the changes up to the first attempt's start already: those batches are replays, applied to
            // converge rather than to fail on a row met twice.
            if (state.replayUntil == null) {
                state.replayUntil = feed.replays() ? now : "";
            }
            String until = state.replayUntil;
            java.util.function.Predicate<String> replayed = until.isEmpty() ? end -> false
                    : changes.positionOrder().<java.util.function.Predicate<String>>map(order ->
                    end -> order.compare(end, until) <= 0).orElse(end -> true);
            if (state.failures == 0) {
                listener.changesStarted(feed.name(), feed.label() + (applier.lanes() > 1 ? ", "
                        + applier.lanes() + " table groups at once" : ""), record.position(), upTo);
            }
            boolean untilCaughtUp = follow.follow() && follow.untilCaughtUp();
            boolean again;
            do {
                try (ChangeReadAhead reading = new ChangeReadAhead("sluice-changes-read-" + feed.name(), changes,
                        upTo, untilCaughtUp, stop, BATCH_CHANGES, BATCH_BYTES, WAIT)) {
                    Optional<ChangeReadAhead.Read> read;
                    while ((read = reading.next()).isPresent()) {
                        ChangeBatch batch = read.get().batch();
                        if (replayed.test(batch.end())) {
                            batch = batch.asReplay();
                        }
                        if (batch.partial()) {
                            // Part of a transaction too big for one batch: applied, committed with its last part.
                            state.applied = state.applied.plus(applier.apply(batch));
                            continue;
                        }
                        ChangeApplier.Applied one = applier.apply(batch);
                        changes.confirm(batch.end());
                        state.at = batch.end();
                        state.transactions += batch.transactions();
                        state.applied = state.applied.plus(one);
                        state.behind = read.get().behindBytes();
                        state.failures = 0;
                        listener.changesApplied(feed.name(), batch, one, state.behind);
                    }
                }
                // The reading found the source quiet while batches still waited here: quiet still, now that
                // everything read is applied? (The reading has ended: its feed may be asked from this thread.)
                again = untilCaughtUp && !stop.getAsBoolean() && !changes.reached(changes.currentPosition());
            } while (again);
            state.behind = 0;
            if (follow.follow() && follow.untilCaughtUp()) {
                // The cut-over: the source is quiet and every change is applied; the target's sequences go
                // past the source's so inserts on the target after the switch take new values.
                state.sequences = applier.whole().resetSequences(changes.sequenceValues());
            }
        }
    }

    /** The stream's table, as the feed names it, and where each carried column lands. */
    private ChangeRoute route(StreamPlan stream) throws ConnectorException {
        StreamBinding binding = bound.binding(stream);
        Source source = ShapedSource.unwrap(binding.source());
        String name = source.copiedTable().orElseThrow(() -> new ConnectorException(ErrorKind.PREFLIGHT,
                RunnerCode.RUN070, "stream '" + stream.name() + "' follows changes and reads no table",
                "read a table")).display();
        // A pair's source side is the shaped column (a rename already applied); changes name the table's own
        // columns, so each is mapped through its rule: a renamed column's changes land where its copy did.
        Map<String, String> pairs = new HashMap<>();
        for (ColumnPair pair : stream.columns()) {
            pairs.put(pair.source().name(), pair.target().name());
        }
        Map<String, String> columns = new LinkedHashMap<>();
        List<Column> known = source.columns();
        for (Column column : known) {
            Optional<ColumnRule> rule = stream.spec().columnRules().of(column.name());
            if (rule.isPresent() && rule.get().exclude()) {
                continue;
            }
            String shaped = rule.map(ColumnRule::targetName).orElse(column.name());
            String target = pairs.get(shaped);
            if (target != null) {
                columns.put(column.name(), target);
            }
        }
        ChangeSink sink = binding.target().changeSink().orElseThrow(() -> new IllegalStateException(
                binding.target().describe() + " cannot apply changes: refused at plan (ChangeFollowChecks)"));
        return new ChangeRoute(name, sink, columns, known, stream.spec().load().schemaChanges());
    }
}

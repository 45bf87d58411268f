package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.changes.ChangeFeeds;
import io.sluice.core.run.changes.ChangeFollow;
import io.sluice.core.run.context.Join;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.ChangeReport;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.run.report.StreamReport;
import io.sluice.core.run.report.Verification;
import io.sluice.core.spec.RunSettings;
import io.sluice.spi.error.ConnectorException;
import io.sluice.toolkit.Redactor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static java.util.Objects.requireNonNull;

/**
 * Runs a plan's streams: one after another in spec order, or with {@code max-parallel-streams} several at once, the
 * largest (by estimated size) first, so the run ends as early as it can. A failed stream stops the others only with
 * {@code fail-fast} (running ones are cancelled, waiting ones skipped); otherwise they go on, and the run's error is
 * the worst stream's (the highest exit code). {@link #interrupt()} may be called from a signal handler at any time.
 */
public final class PipelineRunner {
    private final RunProgress progress = new RunProgress();
    private final Set<StreamExecutor> running = ConcurrentHashMap.newKeySet();
    private volatile boolean interrupted;
    private volatile boolean stopped;
    private volatile ChangeFollow follow = ChangeFollow.ONCE;
    /** Set once the streams are done and changes apply: an interrupt then stops following, it cancels nothing. */
    private volatile boolean applyingChanges;
    private volatile boolean stopFollowing;

    /** How this run applies changes after its copy ({@code --follow}, {@code --restart-changes}); call before run. */
    public void follow(ChangeFollow follow) {
        this.follow = requireNonNull(follow, "follow is null");
    }

    public RunReport run(BoundPlan bound, String runId, RunListener listener) {
        return run(bound, runId, listener, Optional.empty());
    }

    /** {@link #run}, as one of several processes of a joined run when {@code join} is given. */
    public RunReport run(BoundPlan bound, String runId, RunListener listener, Optional<Join> join) {
        return run(bound, runId, listener, join, false);
    }

    /**
     * {@link #run}; {@code fresh}: the caller made sure the ledger knows nothing of {@code runId}, so no earlier process
     * of this run left anything behind (a resume's may have).
     */
    public RunReport run(BoundPlan bound, String runId, RunListener listener, Optional<Join> join, boolean fresh) {
        requireNonNull(bound, "bound is null");
        requireNonNull(join, "join is null");
        requireNonNull(runId, "runId is null");
        requireNonNull(listener, "listener is null");
        PipelinePlan plan = bound.plan();
        RunSettings settings = plan.spec().run();
        Instant started = Instant.now();
        RunIdentity identity = new RunIdentity(runId, plan.spec().name(), plan.spec().checksum(),
                new Redactor(plan.spec().secrets()), join, fresh);
        listener.runStarted(plan, runId);
        ChangeFeeds feeds = ChangeFeeds.prepare(bound, identity, follow);
        recordPlanned(plan, bound, identity, listener, feeds);
        Map<String, StreamReport> reports = new ConcurrentHashMap<>();
        int parallel = Math.min(settings.maxParallelStreams(), Math.max(1, plan.streams().size()));
        // Streams of one source connection read one moment of it: their snapshot first, held for the run.
        AcrossStreams acrossStreams = AcrossStreams.of(bound, identity, listener, plan.streams().stream()
                .filter(feeds::changesOnly).map(StreamPlan::name).collect(java.util.stream.Collectors.toSet()));
        Optional<SluiceException> notPrepared = acrossStreams.beforeStreams()
                .or(acrossStreams::runBefore);
        try (SharedSnapshots snapshots = SharedSnapshots.export(bound, feeds)) {
            if (parallel == 1) {
                for (StreamPlan stream : plan.streams()) {
                    reports.put(stream.name(), runOne(stream, bound, identity, listener, settings, snapshots,
                            acrossStreams, notPrepared, feeds));
                }
            } else {
                progress.acrossStreams(plan.streams().stream().mapToInt(s -> s.partitions().size()).sum(),
                        plan.streams().stream().mapToLong(StreamPlan::estimatedBytes).sum());
                List<StreamPlan> largestFirst = plan.streams().stream()
                        .sorted(Comparator.comparingLong(StreamPlan::estimatedBytes).reversed()).toList();
                try (ExecutorService pool = Executors.newFixedThreadPool(parallel,
                        Thread.ofPlatform().name("sluice-stream-", 0).factory())) {
                    for (StreamPlan stream : largestFirst) {
                        pool.submit(() -> {
                            try {
                                reports.put(stream.name(), runOne(stream, bound, identity, listener, settings,
                                        snapshots, acrossStreams, notPrepared, feeds));
                            } catch (Throwable e) { // the executor reports everything; a bug must not lose a stream
                                reports.put(stream.name(), failed(stream, SluiceException.unexpected(e,
                                        stream.where())));
                            }
                        });
                    }
                }
            }
        }
        List<ChangeReport> changes = List.of();
        if (!interrupted && !stopped) {
            applyingChanges = true;
            changes = feeds.apply(reports, listener, follow, () -> stopFollowing || interrupted);
        }
        List<StreamReport> inSpecOrder = plan.streams().stream().map(s -> reports.get(s.name())).toList();
        Optional<SluiceException> worst = java.util.stream.Stream.concat(inSpecOrder.stream()
                        .filter(r -> r.state() != StreamReport.State.DONE).flatMap(r -> r.error().stream()),
                        changes.stream().flatMap(c -> c.error().stream()))
                .max(Comparator.comparingInt(SluiceException::exitCode));
        RunReport report = new RunReport(runId, plan.spec().name(), plan.spec().checksum(), started, Instant.now(),
                inSpecOrder, interrupted, worst, changes);
        listener.runFinished(report);
        return report;
    }

    /**
     * Every stream into the ledger before the first one starts: a run killed between streams is unfinished, and its
     * streams not yet started are what --resume copies. A stream whose ledger cannot take this now fails on its own
     * start, so here that is only told.
     */
    private static void recordPlanned(PipelinePlan plan, BoundPlan bound, RunIdentity identity, RunListener listener,
                                      ChangeFeeds feeds) {
        if (plan.streams().size() < 2 && plan.spec().run().before().isEmpty()) {
            return; // a single stream records itself as it starts; a run's before hook needs it recorded first
        }
        // One transaction per ledger: the streams of one target connection share its ledger (a pattern's thousand
        // tables used to record themselves one transaction each).
        Map<String, List<StreamPlan>> byLedger = new LinkedHashMap<>();
        for (StreamPlan stream : plan.streams()) {
            Optional<Ledger> ledger = bound.binding(stream).ledger();
            if (!stream.recorded() || feeds.changesOnly(stream) || ledger.isEmpty()) {
                continue;
            }
            String where = bound.binding(stream).targetConnection() + "\u0000" + ledger.get().describe();
            byLedger.computeIfAbsent(where, k -> new ArrayList<>()).add(stream);
        }
        for (List<StreamPlan> group : byLedger.values()) {
            Ledger ledger = bound.binding(group.getFirst()).ledger().orElseThrow(); // the group's first one's
            try {
                ledger.ensureReady();
                ledger.planStreams(group.stream().map(stream -> new StreamLedger(stream, Optional.of(ledger),
                        identity, listener).planned()).toList());
                // The store is ready, and which earlier runs of the spec are unfinished, asked once for the group:
                // usually none, and then no stream asks for its own earlier runs (two reads a stream).
                Optional<Set<String>> unfinished = ledger.unfinishedRuns(identity.specName(), identity.runId());
                for (StreamPlan stream : group) {
                    bound.binding(stream).ledger().orElseThrow().knowRunStart(unfinished, identity.fresh());
                }
            } catch (ConnectorException | RuntimeException e) {
                for (StreamPlan stream : group) {
                    listener.ledgerProblem(stream, "could not record the stream as planned in the ledger: "
                            + identity.redactor().redact(e.getMessage()));
                }
            }
        }
    }

    /** One stream, or its SKIPPED report when the run was stopped before it began. */
    private StreamReport runOne(StreamPlan stream, BoundPlan bound, RunIdentity identity, RunListener listener,
                                RunSettings settings, SharedSnapshots snapshots, AcrossStreams acrossStreams,
                                Optional<SluiceException> notPrepared, ChangeFeeds feeds) {
        if (stopped || interrupted) {
            return skipped(stream);
        }
        if (feeds.changesOnly(stream) && notPrepared.isEmpty()) {
            // Copied by an earlier run: its rows change only through the feed, applied after the streams.
            StreamReport report = new StreamReport(stream.name(), StreamReport.State.DONE, stream.degree(), 0, 0,
                    Duration.ZERO, List.of(), 0, 0, Optional.empty(), Verification.notRequested(), 0, 0);
            listener.streamFinished(stream, report);
            return report;
        }
        Optional<SluiceException> noSnapshot = notPrepared.or(() -> feeds.failure(stream))
                .or(() -> snapshots.failure(stream));
        if (noSnapshot.isPresent()) {
            StreamReport report = failed(stream, noSnapshot.get());
            listener.streamFinished(stream, report);
            return report;
        }
        StreamExecutor executor = new StreamExecutor(stream, bound.binding(stream), identity, listener, progress,
                snapshots.of(stream), acrossStreams);
        running.add(executor);
        if (stopped || interrupted) {
            executor.interrupt();
        }
        StreamReport report;
        try {
            report = executor.execute();
        } finally {
            running.remove(executor);
        }
        if (report.state() == StreamReport.State.FAILED && settings.failFast()) {
            stopped = true;
            running.forEach(StreamExecutor::interrupt); // the others stop now: their copies roll back
        }
        return report;
    }

    private static StreamReport failed(StreamPlan stream, SluiceException error) {
        return new StreamReport(stream.name(), StreamReport.State.FAILED, stream.degree(), 0, 0, Duration.ZERO,
                List.of(), stream.partitions().size(), 0, Optional.of(error), Verification.notRequested(), 0, 0);
    }

    private static StreamReport skipped(StreamPlan stream) {
        return new StreamReport(stream.name(), StreamReport.State.SKIPPED, stream.degree(), 0, 0, Duration.ZERO,
                List.of(), stream.partitions().size(), 0, Optional.empty(), Verification.notRequested(), 0, 0);
    }

    /**
     * Cancels in-flight copies (rolled back) and skips what is left; once the copy is done and changes apply, it
     * only stops applying after the batch under way (committed and confirmed): a followed run ends cleanly.
     */
    public void interrupt() {
        if (applyingChanges) {
            stopFollowing = true;
            return;
        }
        interrupted = true;
        running.forEach(StreamExecutor::interrupt);
    }

    public RunProgress progress() {
        return progress;
    }
}

package io.sluice.core.run;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.StreamBinding;
import io.sluice.core.run.context.RunIdentity;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.spec.RunHook;
import io.sluice.core.spec.RunSettings;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.StreamKey;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The targets' work that spans the streams of a run (foreign keys between the run's tables): before the first stream
 * starts ({@code PlannedLoad#beginBeforeStreams}, e.g. holding those keys off so each table can be emptied and loaded in
 * any order), and once every stream is done ({@code PlannedLoad#finishAfterStreams}, putting them back), the latter by the
 * stream that finishes its load last, before it is recorded done, so a crash during it leaves that stream unfinished
 * and a resume does it again. Every target of the spec takes part with its stream's marks of the run, those of streams
 * a resume skipped as done included.
 */
final class AcrossStreams {
    private final Map<String, StreamBinding> everyTarget;
    private final RunIdentity run;
    /** Every stream of the run is in the ledger before the first starts (two or more streams; see PipelineRunner). */
    private final boolean recordedFirst;
    /** The marks each stream of this process used (with ledger: off they live only there). */
    private final Map<String, LoadMarks> used = new ConcurrentHashMap<>();
    private final RunSettings settings;
    private final RunListener listener;
    private int loading;
    /** Streams whose own {@code after:} hooks have not run yet: the run's wait for them all. */
    private int hooking;

    private AcrossStreams(Map<String, StreamBinding> everyTarget, RunIdentity run, int loading, RunSettings settings,
                          RunListener listener) {
        this.settings = requireNonNull(settings, "settings is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.recordedFirst = loading >= 2 && loading == everyTarget.size();
        this.everyTarget = new TreeMap<>(everyTarget);
        this.run = run;
        this.loading = loading;
        this.hooking = loading;
    }

    static AcrossStreams of(BoundPlan bound, RunIdentity run, RunListener listener) {
        return of(bound, run, listener, java.util.Set.of());
    }

    /**
     * Without the streams in {@code notLoaded}: streams whose tables an earlier run copied and whose changes this run
     * only applies (their keys stay as they are, and the ledger does not record them as streams of this run).
     */
    static AcrossStreams of(BoundPlan bound, RunIdentity run, RunListener listener,
                            java.util.Set<String> notLoaded) {
        requireNonNull(bound, "bound is null");
        requireNonNull(run, "run is null");
        requireNonNull(notLoaded, "notLoaded is null");
        Map<String, StreamBinding> loaded = new java.util.HashMap<>(bound.bindings());
        loaded.keySet().removeAll(notLoaded);
        return new AcrossStreams(loaded, run, bound.plan().streams().size() - notLoaded.size(),
                bound.plan().spec().run(), listener);
    }

    /** For a stream run on its own (tests, tools): nothing waits for others. */
    static AcrossStreams none() {
        return new AcrossStreams(Map.of(), null, Integer.MAX_VALUE, RunSettings.DEFAULT, RunListener.NONE);
    }

    /**
     * The spec's top-level {@code before:} hooks, before the first stream starts: each on its connection's first
     * stream's target (by name), marked in that stream's ledger, so it runs once per run (a resume finds it marked).
     * A failure fails every stream of the run, before any of them wrote.
     */
    Optional<SluiceException> runBefore() {
        return runHooks("before", settings.before());
    }

    private Optional<SluiceException> runHooks(String phase, java.util.List<RunHook> hooks) {
        for (int i = 0; i < hooks.size(); i++) {
            RunHook hook = hooks.get(i);
            String where = "the run's " + phase + " hook #" + (i + 1) + " (connection '" + hook.connection() + "')";
            Optional<Map.Entry<String, StreamBinding>> carrier = everyTarget.entrySet().stream()
                    .filter(e -> e.getValue().targetConnection().equals(hook.connection())
                            && e.getValue().ledger().isPresent()).findFirst();
            if (carrier.isEmpty()) {
                return Optional.of(new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN009,
                        where + ": no stream with a ledger loads into that connection", "run it on a connection a "
                        + "stream loads into, with the ledger on"));
            }
            try {
                StreamBinding binding = carrier.get().getValue();
                LoadMarks used = this.used.get(carrier.get().getKey());
                LoadMarks marks = used != null ? used : marksOf(carrier.get().getKey(), binding);
                if (StreamExecutor.hooksOf(binding.load(), phase).runHook("run-" + phase + "-" + (i + 1),
                        hook.statements(), marks)) {
                    listener.runHookRan(phase, hook.connection(), hook.statements().size());
                }
            } catch (ConnectorException e) {
                return Optional.of(new SluiceException(e.kind(), e.code(), where + ": "
                        + run.redactor().redact(e.getMessage()), e.fix().orElse(null), e));
            } catch (RuntimeException e) {
                return Optional.of(SluiceException.unexpected(e, where));
            }
        }
        return Optional.empty();
    }

    /**
     * Before the first stream of a fresh run of two or more streams: each target with a ledger prepares what spans the
     * streams, recording it in its stream's marks (a target without one does nothing: what it took away could not be
     * put back after a crash). A failure fails every stream of the run, before any of them wrote.
     */
    Optional<SluiceException> beforeStreams() {
        if (!recordedFirst) {
            return Optional.empty(); // a single stream, or a resume: what was held off is in the marks already
        }
        for (Map.Entry<String, StreamBinding> target : everyTarget.entrySet()) {
            if (target.getValue().ledger().isEmpty()) {
                continue;
            }
            String where = "stream '" + target.getKey() + "'";
            try {
                target.getValue().ledger().get().ensureReady();
                target.getValue().load().beginBeforeStreams(marksOf(target.getKey(), target.getValue()));
            } catch (ConnectorException e) {
                return Optional.of(new SluiceException(e.kind() == ErrorKind.FAILED ? ErrorKind.PREFLIGHT : e.kind(),
                        e.code(), where + ": " + run.redactor().redact(e.getMessage()), e.fix().orElse(null), e));
            } catch (RuntimeException e) {
                return Optional.of(SluiceException.unexpected(e, where));
            }
        }
        return Optional.empty();
    }

    /** The marks {@code stream} loads with. */
    void uses(String stream, LoadMarks marks) {
        used.put(requireNonNull(stream, "stream is null"), requireNonNull(marks, "marks is null"));
    }

    /**
     * A stream's load is finished: when it is the run's last, every target's after-streams work runs now, on this
     * stream's thread; its failure is this stream's.
     */
    void loadFinished() throws ConnectorException {
        synchronized (this) {
            loading--;
            if (loading != 0) {
                return;
            }
        }
        Map<StreamBinding, LoadMarks> finished = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, StreamBinding> target : everyTarget.entrySet()) {
            LoadMarks marks = used.get(target.getKey());
            if (marks == null && target.getValue().ledger().isEmpty()) {
                continue;
            }
            // A stream this process did not load (a resume skipped it as done): its marks are in the ledger.
            LoadMarks of = marks != null ? marks : marksOf(target.getKey(), target.getValue());
            target.getValue().load().finishAfterStreams(of);
            finished.put(target.getValue(), of);
        }
        for (Map.Entry<StreamBinding, LoadMarks> target : finished.entrySet()) {
            target.getKey().load().finishLast(target.getValue());
        }
    }

    /**
     * A stream's own {@code after:} hooks ran (after its load and verification): when it is the run's last, the run's
     * {@code after:} hooks run now, on this stream's thread, after every stream's own. Still before the last stream is
     * recorded done, so a failure leaves it unfinished and a resume runs them again (their marks say which did).
     */
    void hooksFinished() {
        synchronized (this) {
            hooking--;
            if (hooking != 0) {
                return;
            }
        }
        Optional<SluiceException> failed = runHooks("after", settings.after());
        if (failed.isPresent()) {
            throw failed.get();
        }
    }

    private LoadMarks marksOf(String stream, StreamBinding binding) {
        return binding.ledger().orElseThrow().loadMarks(new StreamKey(run.runId(), stream), run.specName());
    }
}

package io.sluice.app.serve;

import io.sluice.app.session.RunSession;
import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.TimelineRecorder;
import io.sluice.toolkit.Redactor;
import io.sluice.core.run.PipelineRunner;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One run the service accepted: queued, then running (with a runner to read progress from and to interrupt), then
 * finished with its outcome. Written by the run's thread, read by request threads.
 */
final class RunRecord {
    enum State { QUEUED, RUNNING, DONE, FAILED, INTERRUPTED }

    private final String runId;
    private final String spec;
    private final Instant submitted;
    private final boolean resume;
    /** What the run does over time, for its live page. */
    private final TimelineRecorder timeline = new TimelineRecorder(Clock.systemUTC());
    private volatile State state = State.QUEUED;
    private volatile Instant started;
    private volatile PipelineRunner runner;
    private volatile boolean interruptRequested;
    private volatile RunOutcome outcome;
    private volatile Redactor redactor = Redactor.none();

    RunRecord(String runId, String spec, Instant submitted, boolean resume) {
        this.runId = requireNonNull(runId, "runId is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.submitted = requireNonNull(submitted, "submitted is null");
        this.resume = resume;
    }

    /** Whether this continues an earlier run of the same id. */
    boolean resume() {
        return resume;
    }

    TimelineRecorder timeline() {
        return timeline;
    }

    /** The spec's secrets, known once it loaded: from then on everything shown of the run passes it. */
    void redactWith(Redactor redactor) {
        this.redactor = requireNonNull(redactor, "redactor is null");
    }

    String runId() {
        return runId;
    }

    String spec() {
        return spec;
    }

    Instant submitted() {
        return submitted;
    }

    State state() {
        return state;
    }

    Optional<Instant> started() {
        return Optional.ofNullable(started);
    }

    Optional<PipelineRunner> runner() {
        return Optional.ofNullable(runner);
    }

    Optional<RunOutcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    Redactor redactor() {
        return redactor;
    }

    void starting() {
        started = Instant.now();
        state = State.RUNNING;
    }

    /** The copy begins; an interruption asked for while planning takes effect now. */
    void running(PipelineRunner runner) {
        this.runner = runner;
        if (interruptRequested) {
            runner.interrupt();
        }
    }

    void interrupt() {
        interruptRequested = true;
        PipelineRunner current = runner;
        if (current != null) {
            current.interrupt();
        }
    }

    void finished(RunSession.Result result) {
        redactor = result.redactor();
        outcome = result.outcome();
        runner = null;
        state = switch (result.outcome().state()) {
            case "done" -> State.DONE;
            case "interrupted" -> State.INTERRUPTED;
            default -> State.FAILED;
        };
    }
}

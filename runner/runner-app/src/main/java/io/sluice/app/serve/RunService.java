package io.sluice.app.serve;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.metrics.MetricsRunListener;
import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.SpecIdentity;
import io.sluice.app.session.RunSession;
import io.sluice.app.telemetry.OtelExport;
import io.sluice.core.plan.PlanOptions;
import io.sluice.core.run.PipelineRunner;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.service.RunRequest;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.toolkit.Redactor;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * Runs specs in the background for {@code POST /api/runs}: at most {@code maxConcurrentRuns} at once, the rest
 * queue in order. Keeps the last {@value #KEPT_RUNS} runs for {@code GET /api/runs/{id}}. Closing interrupts the
 * runs in flight (their partitions roll back) and waits for them briefly.
 */
final class RunService implements AutoCloseable {
    static final int KEPT_RUNS = 200;

    private final SpecFolder specs;
    private final RunSession session;
    private final MeterRegistry meters;
    private final Optional<OtelExport> otel;
    private final ExecutorService executor;
    private final Map<String, RunRecord> runs = new LinkedHashMap<>();

    RunService(SpecFolder specs, RunSession session, MeterRegistry meters, int maxConcurrentRuns) {
        this(specs, session, meters, maxConcurrentRuns, Optional.empty());
    }

    /** With {@code otel}, each run is also traced to an OpenTelemetry collector. */
    RunService(SpecFolder specs, RunSession session, MeterRegistry meters, int maxConcurrentRuns,
               Optional<OtelExport> otel) {
        this.otel = requireNonNull(otel, "otel is null");
        this.specs = requireNonNull(specs, "specs is null");
        this.session = requireNonNull(session, "session is null");
        this.meters = requireNonNull(meters, "meters is null");
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(maxConcurrentRuns,
                r -> Thread.ofPlatform().name("sluice-run-" + threads.incrementAndGet()).unstarted(r));
    }

    /**
     * Accepts a run of {@code specName}; the id is {@code requestedId} or a generated one. With {@code resume} it
     * continues the run {@code requestedId} names (done partitions are skipped), which a run of this service that
     * has finished may have been.
     */
    RunRecord submit(String specName, Optional<String> requestedId, boolean resume) {
        Path file = specs.resolve(specName);
        requestedId.ifPresent(id -> {
            if (!RunRequest.RUN_ID.matcher(id).matches()) {
                throw ApiException.badRequest("'run-id' must be " + RunRequest.RUN_ID_RULE);
            }
        });
        RunRecord run;
        synchronized (runs) {
            if (resume && requestedId.isEmpty()) {
                throw ApiException.badRequest("'resume': true needs the 'run-id' of the run to continue");
            }
            String id = requestedId.orElseGet(RunService::generatedId);
            RunRecord earlier = runs.get(id);
            if (earlier != null && (!resume || earlier.outcome().isEmpty())) {
                throw new ApiException(409, "a run with id '" + id + "' " + (earlier.outcome().isEmpty()
                        ? "is in progress" : "exists; resume it with \"resume\": true"));
            }
            runs.remove(id);
            run = new RunRecord(id, specName, Instant.now(), resume);
            runs.put(id, run);
            forgetOldest();
        }
        executor.execute(() -> execute(run, file));
        return run;
    }

    private void execute(RunRecord run, Path file) {
        run.starting();
        RunSession.Result result;
        try {
            RunRequest request = run.resume() ? new RunRequest(Optional.of(run.runId()), Optional.of(run.runId()),
                    false) : RunRequest.fresh(run.runId());
            result = session.run(file, run.spec(), PlanOptions.DEFAULT, request, new RunSession.Hooks() {
                @Override
                public void loaded(PipelineSpec spec, Redactor redactor) {
                    run.redactWith(redactor);
                }

                @Override
                public List<RunListener> listeners(PipelineSpec spec, String runId) {
                    List<RunListener> listeners = new ArrayList<>(List.of(new MetricsRunListener(meters),
                            run.timeline()));
                    Redactor redactor = run.redactor();
                    otel.ifPresent(o -> listeners.addAll(o.listeners(redactor::redact)));
                    return listeners;
                }

                @Override
                public RunSession.Running started(PipelineRunner runner) {
                    run.running(runner);
                    return () -> { };
                }
            });
        } catch (RuntimeException e) {
            // The outcome says what went wrong; the service itself stays up for the next run.
            result = new RunSession.Result(RunOutcome.failedBeforeRun(Optional.of(run.runId()),
                    new SpecIdentity(Optional.empty(), run.spec(), Optional.empty()), run.started()
                            .orElse(Instant.now()), e, 1), Redactor.none(), Optional.empty(), Optional.empty(),
                    Optional.of(e));
        }
        run.finished(result);
    }

    Optional<RunRecord> find(String id) {
        synchronized (runs) {
            return Optional.ofNullable(runs.get(id));
        }
    }

    List<RunRecord> all() {
        synchronized (runs) {
            return List.copyOf(runs.values());
        }
    }

    private void forgetOldest() {
        if (runs.size() <= KEPT_RUNS) {
            return;
        }
        // Only finished runs are forgotten; running ones stay visible however many there are. Their meters go
        // too, or the run_id tag would grow /actuator/prometheus without bound.
        List<String> forgotten = new java.util.ArrayList<>();
        var iterator = runs.values().iterator();
        while (runs.size() > KEPT_RUNS && iterator.hasNext()) {
            RunRecord run = iterator.next();
            if (run.outcome().isPresent()) {
                iterator.remove();
                forgotten.add(run.runId());
            }
        }
        if (!forgotten.isEmpty()) {
            meters.getMeters().stream().filter(m -> forgotten.contains(m.getId().getTag("run_id")))
                    .toList().forEach(meters::remove);
        }
    }

    private static String generatedId() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    }

    @Override
    public void close() {
        Collection<RunRecord> current = all();
        current.forEach(RunRecord::interrupt);
        executor.shutdownNow();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        otel.ifPresent(OtelExport::close);
    }
}

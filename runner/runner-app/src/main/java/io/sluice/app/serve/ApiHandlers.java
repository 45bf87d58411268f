package io.sluice.app.serve;

import io.sluice.app.report.LedgerTimeline;
import io.sluice.app.report.RunTimeline;
import io.sluice.app.report.SummaryJson;
import io.sluice.app.report.TimelineChartData;
import io.sluice.core.SluiceException;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.diag.Severity;
import io.sluice.core.lint.LintReport;
import io.sluice.core.run.RunProgress;
import io.sluice.core.service.RunStatus;
import io.sluice.core.service.Sluice;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.toolkit.Redactor;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The {@code /api} endpoints. Responses are JSON written here (the same encoder as the summary file); every string
 * that came from a run passes the run's redactor, as on the command line.
 */
final class ApiHandlers {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final Set<String> RUN_REQUEST_KEYS = Set.of("spec", "run-id", "resume");
    /** Runs per spec that {@code GET /api/specs/{name}/runs} reads from the ledger. */
    static final int LEDGER_RUNS_SHOWN = 20;

    private final SpecFolder specs;
    private final RunService runs;
    private final Sluice sluice;

    ApiHandlers(SpecFolder specs, RunService runs, Sluice sluice) {
        this.specs = requireNonNull(specs, "specs is null");
        this.runs = requireNonNull(runs, "runs is null");
        this.sluice = requireNonNull(sluice, "sluice is null");
    }

    /**
     * {@code POST /api/runs {"spec": "orders.yaml", "run-id": "optional", "resume": false}}: 202 with the run's id.
     * With {@code "resume": true} the run {@code run-id} names is continued, as {@code sluice run --resume ID}.
     */
    ServerResponse startRun(ServerRequest request) throws Exception {
        JsonNode body;
        try {
            body = MAPPER.readTree(request.body(String.class));
        } catch (JacksonException e) {
            throw ApiException.badRequest("the body must be a JSON object such as {\"spec\": \"orders.yaml\"}");
        }
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object such as {\"spec\": \"orders.yaml\"}");
        }
        for (String key : body.propertyNames()) {
            if (!RUN_REQUEST_KEYS.contains(key)) {
                throw ApiException.badRequest("unknown key '" + key + "'; known: spec, run-id, resume");
            }
        }
        String spec = text(body, "spec").orElse(null);
        JsonNode resume = body.get("resume");
        if (resume != null && !resume.isNull() && !resume.isBoolean()) {
            throw ApiException.badRequest("'resume' must be true or false");
        }
        RunRecord run = runs.submit(spec, text(body, "run-id"), resume != null && resume.asBoolean(false));
        ObjectNode json = brief(run);
        return ServerResponse.accepted().location(URI.create("/api/runs/" + run.runId()))
                .contentType(MediaType.APPLICATION_JSON).body(MAPPER.writeValueAsString(json));
    }

    /** {@code GET /api/runs/{id}}: state, live progress while running, the summary once finished. */
    ServerResponse getRun(ServerRequest request) {
        RunRecord run = find(request.pathVariable("id"));
        ObjectNode json = brief(run);
        run.started().ifPresentOrElse(t -> json.put("started", t.toString()), () -> json.putNull("started"));
        Optional<RunProgress.Snapshot> progress = run.runner().map(r -> r.progress().snapshot());
        if (progress.isPresent() && !progress.get().stream().isEmpty()) {
            RunProgress.Snapshot s = progress.get();
            ObjectNode p = json.putObject("progress");
            p.put("stream", run.redactor().redact(s.stream()));
            p.put("rows", s.rows());
            p.put("bytes", s.bytes());
            p.put("partitions-done", s.partitionsDone());
            p.put("partitions-total", s.partitionsTotal());
            p.put("rows-per-second", s.rowsPerSecond());
            p.put("megabytes-per-second", s.megabytesPerSecond());
            if (s.etaSeconds() >= 0) {
                p.put("eta-seconds", s.etaSeconds());
            } else {
                p.putNull("eta-seconds");
            }
        } else {
            json.putNull("progress");
        }
        if (run.outcome().isPresent()) {
            json.set("summary", new SummaryJson(run.redactor()::redact).tree(run.outcome().get()));
        } else {
            json.putNull("summary");
        }
        return json(json);
    }

    /** {@code GET /api/runs/{id}/timeline}: the run report's data for the run's live page, while it runs too. */
    ServerResponse runTimeline(ServerRequest request) {
        RunRecord run = find(request.pathVariable("id"));
        return json(new TimelineChartData(run.redactor()::redact).tree(run.timeline().timeline()));
    }

    RunRecord find(String id) {
        return runs.find(id).orElseThrow(() -> ApiException.notFound("no run '" + id + "'"));
    }

    /**
     * {@code GET /api/specs/{name}/runs}: the spec's newest runs as its targets' ledgers recorded them, whoever ran
     * them (this service, a scheduler's task, a joined run), one entry per stream of a run.
     */
    ServerResponse ledgerRuns(ServerRequest request) {
        String name = request.pathVariable("name");
        ObjectNode json = MAPPER.createObjectNode();
        json.put("spec", name);
        ArrayNode list = json.putArray("runs");
        LedgerView view = ledger(name, Optional.empty());
        for (RunStatus.StreamRun run : view.runs()) {
            LedgerStream s = run.stream();
            ObjectNode node = list.addObject();
            node.put("run-id", view.redactor().redact(s.runId()));
            node.put("stream", view.redactor().redact(s.stream()));
            node.put("state", s.state().name().toLowerCase(Locale.ROOT));
            node.put("rows", s.rows());
            node.put("partitions-done", s.partitionsDone());
            node.put("partitions-planned", s.partitionsPlanned());
            node.put("started", s.startedAt().toString());
            s.finishedAt().ifPresentOrElse(f -> node.put("finished", f.toString()), () -> node.putNull("finished"));
            node.put("href", "/specs/" + name + "/runs/" + s.runId());
        }
        return json(json);
    }

    /** {@code GET /api/specs/{name}/runs/{id}/timeline}: a run's report data, from the ledger. */
    ServerResponse ledgerTimeline(ServerRequest request) {
        String name = request.pathVariable("name");
        LedgerView view = ledger(name, Optional.of(request.pathVariable("id")));
        return json(new TimelineChartData(view.redactor()::redact).tree(view.timeline()));
    }

    /** One spec's runs read from its targets' ledgers, and the redactor for its secrets. */
    record LedgerView(String spec, List<RunStatus.StreamRun> runs, Redactor redactor) {
        RunTimeline timeline() {
            return LedgerTimeline.of(spec, runs, Instant.now());
        }
    }

    LedgerView ledger(String specName, Optional<String> runId) {
        java.nio.file.Path file = specs.resolve(specName);
        PipelineSpec spec;
        try {
            spec = sluice.load(file, specName, diagnostic -> { });
        } catch (SluiceException e) {
            throw new ApiException(422, "spec '" + specName + "' does not load: " + e.getMessage());
        }
        Redactor redactor = new Redactor(spec.secrets());
        try (RunStatus status = sluice.status(spec)) {
            List<RunStatus.StreamRun> found = status.runs(runId, LEDGER_RUNS_SHOWN);
            if (runId.isPresent() && found.isEmpty()) {
                throw ApiException.notFound("no run '" + runId.get() + "' of spec '" + specName + "' in the ledger");
            }
            return new LedgerView(spec.name(), found, redactor);
        } catch (SluiceException e) {
            throw new ApiException(502, redactor.redact("cannot read the ledger of spec '" + specName + "': "
                    + e.getMessage()));
        }
    }

    /** {@code GET /api/runs}: the runs the service remembers, oldest first, without their summaries. */
    ServerResponse listRuns(ServerRequest request) {
        ObjectNode json = MAPPER.createObjectNode();
        ArrayNode list = json.putArray("runs");
        for (RunRecord run : runs.all()) {
            // The list page's progress bars; GET /api/runs/{id} gives the full progress.
            ObjectNode brief = brief(run);
            Optional<RunProgress.Snapshot> progress = run.runner().map(r -> r.progress().snapshot());
            if (progress.isPresent()) {
                ObjectNode p = brief.putObject("progress");
                p.put("rows", progress.get().rows());
                p.put("partitions-done", progress.get().partitionsDone());
                p.put("partitions-total", progress.get().partitionsTotal());
            } else {
                brief.putNull("progress");
            }
            list.add(brief);
        }
        return json(json);
    }

    /** {@code GET /api/specs}: every spec in the folder with its offline lint result. */
    ServerResponse listSpecs(ServerRequest request) {
        ObjectNode json = MAPPER.createObjectNode();
        ArrayNode list = json.putArray("specs");
        for (String name : specs.names()) {
            LintReport report = sluice.lint(List.of(specs.resolve(name)), false);
            ObjectNode spec = list.addObject();
            spec.put("name", name);
            spec.put("valid", report.errors() == 0);
            spec.put("errors", report.errors());
            spec.put("warnings", report.count(Severity.WARNING));
            ArrayNode diagnostics = spec.putArray("diagnostics");
            for (Diagnostic d : report.diagnostics()) {
                // Positions only: the server's own paths are none of the caller's business.
                ObjectNode node = diagnostics.addObject();
                node.put("severity", d.severity().name().toLowerCase(Locale.ROOT));
                node.put("code", d.code());
                node.put("line", d.position().line());
                node.put("column", d.position().column());
                node.put("message", d.message());
                d.fix().ifPresentOrElse(f -> node.put("fix", f), () -> node.putNull("fix"));
            }
        }
        return json(json);
    }

    /** An {@link ApiException} as its status and {@code {"error": "..."}}. */
    static ServerResponse refusal(Throwable error, ServerRequest request) {
        ApiException refusal = (ApiException) error;
        ObjectNode json = MAPPER.createObjectNode();
        json.put("error", refusal.getMessage());
        return ServerResponse.status(HttpStatus.valueOf(refusal.status())).contentType(MediaType.APPLICATION_JSON)
                .body(MAPPER.writeValueAsString(json));
    }

    private ObjectNode brief(RunRecord run) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("run-id", run.runId());
        json.put("spec", run.spec());
        json.put("state", run.state().name().toLowerCase(Locale.ROOT));
        json.put("submitted", run.submitted().toString());
        run.outcome().ifPresentOrElse(o -> json.put("exit-code", o.exitCode()), () -> json.putNull("exit-code"));
        json.put("href", "/api/runs/" + run.runId());
        json.put("page", "/runs/" + run.runId());
        return json;
    }

    private static ServerResponse json(ObjectNode json) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).body(MAPPER.writeValueAsString(json));
    }

    private static Optional<String> text(JsonNode body, String key) {
        JsonNode value = body.get(key);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isString()) {
            throw ApiException.badRequest("'" + key + "' must be a string");
        }
        return Optional.of(value.asString());
    }
}

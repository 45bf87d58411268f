package io.sluice.app.serve;

import io.sluice.app.report.SummaryJson;
import io.sluice.core.diag.Diagnostic;
import io.sluice.core.lint.LintReport;
import io.sluice.core.service.Sluice;
import io.sluice.core.run.RunProgress;
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
    private static final Set<String> RUN_REQUEST_KEYS = Set.of("spec", "run-id");

    private final SpecFolder specs;
    private final RunService runs;
    private final Sluice sluice;

    ApiHandlers(SpecFolder specs, RunService runs, Sluice sluice) {
        this.specs = requireNonNull(specs, "specs is null");
        this.runs = requireNonNull(runs, "runs is null");
        this.sluice = requireNonNull(sluice, "sluice is null");
    }

    /** {@code POST /api/runs {"spec": "orders.yaml", "run-id": "optional"}}: 202 with the run's id. */
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
                throw ApiException.badRequest("unknown key '" + key + "'; known: spec, run-id");
            }
        }
        String spec = text(body, "spec").orElse(null);
        RunRecord run = runs.submit(spec, text(body, "run-id"));
        ObjectNode json = brief(run);
        return ServerResponse.accepted().location(URI.create("/api/runs/" + run.runId()))
                .contentType(MediaType.APPLICATION_JSON).body(MAPPER.writeValueAsString(json));
    }

    /** {@code GET /api/runs/{id}}: state, live progress while running, the summary once finished. */
    ServerResponse getRun(ServerRequest request) {
        String id = request.pathVariable("id");
        RunRecord run = runs.find(id).orElseThrow(() -> ApiException.notFound("no run '" + id + "'"));
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

    /** {@code GET /api/runs}: the runs the service remembers, oldest first, without their summaries. */
    ServerResponse listRuns(ServerRequest request) {
        ObjectNode json = MAPPER.createObjectNode();
        ArrayNode list = json.putArray("runs");
        runs.all().forEach(run -> list.add(brief(run)));
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
            spec.put("warnings", report.count(io.sluice.core.diag.Severity.WARNING));
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

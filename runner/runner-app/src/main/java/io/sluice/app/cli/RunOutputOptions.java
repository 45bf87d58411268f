package io.sluice.app.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.app.logging.JsonLinesWriter;
import io.sluice.app.logging.JsonLog;
import io.sluice.app.logging.JsonProgress;
import io.sluice.app.logging.JsonRunListener;
import io.sluice.app.metrics.MetricsRunListener;
import io.sluice.app.metrics.PushgatewayPublisher;
import io.sluice.app.output.ConsoleRunListener;
import io.sluice.app.output.ProgressPrinter;
import io.sluice.app.report.HtmlRunReport;
import io.sluice.app.report.JunitXml;
import io.sluice.app.report.ReportFiles;
import io.sluice.app.report.RunError;
import io.sluice.app.report.RunOutcome;
import io.sluice.app.report.RunTimeline;
import io.sluice.app.report.SpecIdentity;
import io.sluice.app.report.SummaryJson;
import io.sluice.app.report.TimelineRecorder;
import io.sluice.app.telemetry.OtelExport;
import io.sluice.app.telemetry.OtelSettings;
import io.sluice.core.run.RunProgress;
import io.sluice.core.run.context.RunListener;
import io.sluice.core.run.report.RunReport;
import io.sluice.core.spec.PipelineSpec;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Where a run's results go besides the terminal, mixed into {@code run}: {@code --summary-json},
 * {@code --junit-xml}, {@code --report}, {@code --log-format json}, {@code --metrics-push} and OpenTelemetry (by
 * its environment). {@link #listeners} joins the run's listeners; {@link #finish} writes the files once the run
 * ended, and {@link #failedBeforeRun} when it failed before it started (invalid spec, preflight): then with the error
 * and no streams.
 */
final class RunOutputOptions {
    enum LogFormat { TEXT, JSON }

    /** The progress display of a run; closing it stops it. */
    interface Progress extends AutoCloseable {
        @Override
        void close();
    }

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec command;

    private final Instant created = Instant.now();
    private Path summaryJson;
    private Path junitXml;
    private Path htmlReport;
    private TimelineRecorder timeline;
    private Optional<OtelExport> otel = Optional.empty();
    private LogFormat logFormat = LogFormat.TEXT;
    private URI metricsPush;
    private JsonLog jsonLog;
    private PushgatewayPublisher publisher;
    private String runId;
    private volatile boolean finished;

    @CommandLine.Option(names = "--verbose",
            description = "A line for every table as it starts and ends, also in a run of more than 20 tables (which "
                    + "otherwise prints a line per failed or slow table and a run line every tenth of the tables). "
                    + "Env: SLUICE_VERBOSE=true.")
    boolean verbose;

    @CommandLine.Option(names = "--summary-json", paramLabel = "PATH",
            description = "Write a JSON summary of the run here (summary-version 1, see specs/"
                    + "sluice-summary-v1.schema.json), also when the run fails.")
    void summaryJson(Path path) {
        summaryJson = path;
    }

    @CommandLine.Option(names = "--junit-xml", paramLabel = "PATH",
            description = "Write a JUnit XML report here (one test case per stream), e.g. for Jenkins.")
    void junitXml(Path path) {
        junitXml = path;
    }

    @CommandLine.Option(names = "--report", paramLabel = "PATH",
            description = "Write a self-contained HTML report of the run here (partitions by worker over time, "
                    + "throughput, partition sizes, the plan; opens offline), also when the run fails.")
    void htmlReport(Path path) {
        htmlReport = path;
    }

    @CommandLine.Option(names = "--log-format", paramLabel = "FORMAT",
            description = "text (default, for people) or json (one JSON object per line on stderr). Env: "
                    + "SLUICE_LOG_FORMAT.")
    void logFormat(LogFormat format) {
        logFormat = format;
        if (format == LogFormat.JSON && jsonLog == null) {
            // Swapped while parsing, before the command prints anything: from here on every line on stderr,
            // whoever writes it, leaves as JSON.
            CommandLine line = command.commandLine();
            jsonLog = new JsonLog(line.getErr(), RunOutputOptions::redact, Clock.systemUTC(), this::runIdSoFar);
            line.setErr(new PrintWriter(new JsonLinesWriter(jsonLog), true));
        }
    }

    @CommandLine.Option(names = "--metrics-push", paramLabel = "URL",
            description = "Push the run's metrics to this Prometheus Pushgateway (http://host:9091) while it runs "
                    + "and when it ends. Env: SLUICE_METRICS_PUSH.")
    void metricsPush(String url) {
        try {
            metricsPush = PushgatewayPublisher.address(url);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(command.commandLine(), "--metrics-push: " + e.getMessage());
        }
    }

    @CommandLine.Option(names = "--metrics-push-interval", paramLabel = "SECONDS", defaultValue = "10",
            description = "Seconds between pushes during the run (default: ${DEFAULT-VALUE}; env: "
                    + "SLUICE_METRICS_PUSH_INTERVAL).")
    int metricsPushSeconds;

    /** Extra listeners for this run, e.g. a JSON log writer or a metrics pusher. */
    List<RunListener> listeners(PipelineSpec spec, String runId, PrintWriter err, Terminal terminal) {
        this.runId = runId;
        List<RunListener> listeners = new ArrayList<>();
        if (htmlReport != null) {
            timeline = new TimelineRecorder(Clock.systemUTC());
            listeners.add(timeline);
        }
        if (jsonLog != null) {
            jsonLog.runId(runId);
            listeners.add(new JsonRunListener(jsonLog));
        }
        // OpenTelemetry, configured the standard way (OTEL_EXPORTER_OTLP_ENDPOINT and friends): off when not set.
        otel = OtelExport.start(OtelSettings.fromProcess(), warning -> {
            err.println(terminal.redact(warning));
            err.flush();
        });
        otel.ifPresent(o -> listeners.addAll(o.listeners(terminal::redact)));
        if (metricsPush != null) {
            // The meters live only as long as the run: one registry, filled by the listener, pushed by the publisher.
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            listeners.add(new MetricsRunListener(registry));
            publisher = new PushgatewayPublisher(registry.getPrometheusRegistry(), metricsPush, "sluice",
                    Map.of("pipeline", spec.name()), Duration.ofSeconds(Math.max(1, metricsPushSeconds)),
                    warning -> {
                        err.println(terminal.redact(warning));
                        err.flush();
                    });
            listeners.add(publisher);
        }
        return listeners;
    }

    /** What tells people about the run's events: the text lines, or nothing when the JSON log does it. */
    RunListener consoleListener(PrintWriter err, Terminal terminal) {
        return logFormat == LogFormat.JSON ? RunListener.NONE : new ConsoleRunListener(err, terminal::redact,
                verbose);
    }

    /** A live bar on a terminal, text lines every interval otherwise, JSON progress events in JSON mode. */
    Progress progress(RunProgress progress, PrintWriter err, Duration interval) {
        if (logFormat == LogFormat.JSON) {
            return new JsonProgress(progress, jsonLog, interval)::close;
        }
        return new ProgressPrinter(progress, err, Terminal.interactive(), interval)::close;
    }

    /**
     * Before anything runs: every file asked for can be written where it was asked (its folder made if missing), so
     * a run is never done with its reports silently missing.
     */
    void checkWritable(CommandLine.Model.CommandSpec command) {
        java.util.Map<String, Path> files = new LinkedHashMap<>();
        files.put("--summary-json", summaryJson);
        files.put("--junit-xml", junitXml);
        files.put("--report", htmlReport);
        files.forEach((option, file) -> {
            if (file == null) {
                return;
            }
            try {
                ReportFiles.checkWritable(file);
            } catch (IOException | RuntimeException e) {
                throw new CommandLine.ParameterException(command.commandLine(), option + " " + file + " cannot be "
                        + "written (" + e.getMessage() + "): nothing was run; give a path in a writable folder");
            }
        });
    }

    /**
     * Called once with the final report, whatever the outcome; returns false when a file asked for could not be
     * written (said on stderr), which a run that was otherwise done reports with its own exit code.
     */
    boolean finish(PipelineSpec spec, RunReport report, PrintWriter err, Terminal terminal) {
        finished = true;
        if (publisher != null) {
            publisher.close();
        }
        otel.ifPresent(o -> o.close(warning -> {
            err.println(terminal.redact(warning));
            err.flush();
        }));
        return write(RunOutcome.of(spec, report), Optional.ofNullable(timeline).map(TimelineRecorder::timeline), err,
                terminal::redact);
    }

    /** The files asked for; the HTML report first, so the others never name a report that is not there yet. */
    private boolean write(RunOutcome outcome, Optional<RunTimeline> recorded, PrintWriter err,
                          UnaryOperator<String> redact) {
        boolean written = true;
        Optional<String> reportLink = Optional.empty();
        if (htmlReport != null) {
            RunTimeline run = recorded.orElseGet(() -> new RunTimeline(outcome.runId().orElse(""),
                    outcome.spec().name().orElse(outcome.spec().file()), outcome.state(), outcome.started(),
                    Optional.of(outcome.finished()), 0, 0, outcome.error().map(e -> e.code() + ": " + e.message()),
                    "the run failed before it started", List.of()));
            if (write(htmlReport, new HtmlRunReport(redact).render(run), "HTML report", err, redact)) {
                reportLink = Optional.of(htmlReport.toString());
            } else {
                written = false;
            }
        }
        if (summaryJson != null) {
            written &= write(summaryJson, new SummaryJson(redact, reportLink).render(outcome), "summary", err, redact);
        }
        if (junitXml != null) {
            written &= write(junitXml, new JunitXml(redact, reportLink).render(outcome), "JUnit report", err, redact);
        }
        return written;
    }

    private static boolean write(Path file, String content, String what, PrintWriter err,
                                 UnaryOperator<String> redact) {
        try {
            ReportFiles.write(file, content);
            return true;
        } catch (IOException | RuntimeException e) {
            err.println(redact.apply("warning: cannot write the " + what + " to " + file + ": " + e));
            err.flush();
            return false;
        }
    }

    /**
     * For a run that ended in {@code error} before {@link #finish} (exit 3 for an invalid spec, 4 for a preflight
     * failure): leaves its summary and JUnit report with the error, and the JSON log's last event.
     */
    void failedBeforeRun(Path specFile, Exception error, PrintWriter err) {
        if (finished) {
            return;
        }
        finished = true;
        if (publisher != null) {
            publisher.close();
        }
        otel.ifPresent(OtelExport::close);
        int exitCode = SluiceCommand.exitCodeOf(error);
        RunOutcome outcome = RunOutcome.failedBeforeRun(Optional.ofNullable(runIdSoFar()),
                SpecIdentity.ofFile(specFile), created, error, exitCode);
        if (jsonLog != null) {
            RunError cause = outcome.error().orElseThrow();
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("state", outcome.state());
            fields.put("exit-code", exitCode);
            fields.put("error-code", cause.code());
            fields.put("error-kind", cause.kind());
            fields.put("fix", cause.fix().orElse(null));
            jsonLog.event(JsonLog.Level.ERROR, "run-finished", null, null, "run failed before it started: "
                    + cause.message(), fields);
        }
        write(outcome, Optional.empty(), err, RunOutputOptions::redact);
    }

    /** The run's id once known, else what {@code --run-id} said (null when neither). */
    private String runIdSoFar() {
        if (runId != null) {
            return runId;
        }
        CommandLine.Model.OptionSpec option = command.findOption("--run-id");
        return option == null ? null : option.getValue();
    }

    private static String redact(String text) {
        return Terminal.current().redact(text);
    }
}

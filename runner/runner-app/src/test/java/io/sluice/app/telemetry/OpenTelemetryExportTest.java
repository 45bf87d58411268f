package io.sluice.app.telemetry;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import io.sluice.app.CliRun;
import io.sluice.app.report.TestPipeline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sluice run} with the standard OpenTelemetry settings pointing at a loopback OTLP/HTTP receiver: one trace
 * per run (run, stream, one span per partition attempt, a retried one among them, with their attributes), the
 * meters as OTLP metrics, and no secret in either. Without the settings nothing is sent.
 */
class OpenTelemetryExportTest {
    private static final List<String> PROPERTIES = List.of("otel.exporter.otlp.endpoint", "otel.bsp.schedule.delay",
            "otel.metric.export.interval");

    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        PROPERTIES.forEach(System::clearProperty);
    }

    @Test
    void aRunIsOneTraceWithASpanPerPartitionAttemptAndItsMetersGoToTheCollector() throws Exception {
        TestPipeline pipeline = TestPipeline.create("otel");
        Path spec = pipeline.specWithSecretTable(dir, "otel", true);
        Files.writeString(spec, Files.readString(spec).replace("    load-mode: truncate",
                "    load-mode: truncate\n    batch-size: 1250\n    retry: { initial-backoff: 10ms }"));
        pipeline.failOnceOnTarget(pipeline.secrets().get(1), 4000);

        try (OtlpReceiver collector = new OtlpReceiver()) {
            System.setProperty("otel.exporter.otlp.endpoint", collector.endpoint());
            System.setProperty("otel.bsp.schedule.delay", "100");
            System.setProperty("otel.metric.export.interval", "500");
            CliRun run = CliRun.of("run", spec.toString(), "--run-id", "otel-1");
            assertEquals(0, run.exitCode(), run.all());
            assertEquals(TestPipeline.ROWS, pipeline.secretTableCount());

            List<Span> spans = new ArrayList<>();
            for (OtlpReceiver.Request r : collector.requests("/v1/traces")) {
                assertEquals("application/x-protobuf", r.contentType());
                ExportTraceServiceRequest export = ExportTraceServiceRequest.parseFrom(r.body());
                export.getResourceSpansList().forEach(rs -> {
                    assertEquals("sluice", attributes(rs.getResource().getAttributesList()).get("service.name"));
                    rs.getScopeSpansList().forEach(ss -> spans.addAll(ss.getSpansList()));
                });
            }
            List<Span> runs = named(spans, "sluice.run");
            List<Span> streams = named(spans, "sluice.stream");
            List<Span> partitions = named(spans, "sluice.partition");
            assertEquals(1, runs.size(), spans + "\n" + run.all());
            assertEquals(1, streams.size(), spans.toString());
            Span root = runs.getFirst();
            assertEquals("otel-1", attributes(root.getAttributesList()).get("sluice.run.id"));
            assertEquals("done", attributes(root.getAttributesList()).get("sluice.outcome"));
            assertEquals(String.valueOf(TestPipeline.ROWS), attributes(root.getAttributesList()).get("sluice.rows"));
            assertTrue(root.getParentSpanId().isEmpty(), "the run is the trace's root");
            Span stream = streams.getFirst();
            assertEquals(root.getSpanId(), stream.getParentSpanId());
            assertEquals("ctid", attributes(stream.getAttributesList()).get("sluice.distribution.method"));
            assertEquals("2", attributes(stream.getAttributesList()).get("sluice.degree"));
            Set<String> traces = spans.stream().map(s -> HexFormat.of().formatHex(s.getTraceId().toByteArray()))
                    .collect(Collectors.toSet());
            assertEquals(1, traces.size(), "one trace per run");

            long planned = Long.parseLong(attributes(stream.getAttributesList()).get("sluice.partitions"));
            assertEquals(planned + 1, partitions.size(), "one span per attempt: every partition once, one retried");
            partitions.forEach(p -> assertEquals(stream.getSpanId(), p.getParentSpanId()));
            Map<String, Long> outcomes = partitions.stream().collect(Collectors.groupingBy(
                    p -> attributes(p.getAttributesList()).get("sluice.outcome"), Collectors.counting()));
            assertEquals(Map.of("done", planned, "retried", 1L), outcomes);
            Span retried = partitions.stream().filter(p -> "retried".equals(attributes(p.getAttributesList())
                    .get("sluice.outcome"))).findFirst().orElseThrow();
            assertEquals(Span.SpanKind.SPAN_KIND_INTERNAL, retried.getKind());
            assertEquals(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR,
                    retried.getStatus().getCode());
            assertEquals("2", attributes(partitions.stream().filter(p -> p != retried && attributes(
                    p.getAttributesList()).get("sluice.partition").equals(attributes(retried.getAttributesList())
                    .get("sluice.partition"))).findFirst().orElseThrow().getAttributesList()).get("sluice.attempt"));
            long rows = partitions.stream().map(p -> attributes(p.getAttributesList()))
                    .filter(a -> "done".equals(a.get("sluice.outcome"))).mapToLong(a -> Long.parseLong(a.get(
                            "sluice.rows"))).sum();
            assertEquals(TestPipeline.ROWS, rows);

            List<String> metrics = new ArrayList<>();
            for (OtlpReceiver.Request r : collector.requests("/v1/metrics")) {
                ExportMetricsServiceRequest export = ExportMetricsServiceRequest.parseFrom(r.body());
                export.getResourceMetricsList().forEach(rm -> rm.getScopeMetricsList().forEach(sm ->
                        sm.getMetricsList().stream().map(Metric::getName).forEach(metrics::add)));
            }
            assertTrue(metrics.contains("sluice.partition.retries"), metrics.toString());
            assertTrue(metrics.contains("sluice.partitions.planned"), metrics.toString());

            String everything = collector.requests("/v1/traces").stream().map(r -> new String(r.body(),
                    java.nio.charset.StandardCharsets.ISO_8859_1)).collect(Collectors.joining())
                    + collector.requests("/v1/metrics").stream().map(r -> new String(r.body(),
                    java.nio.charset.StandardCharsets.ISO_8859_1)).collect(Collectors.joining());
            for (String secret : pipeline.secrets()) {
                assertFalse(everything.contains(secret), "a secret was exported");
            }
        }
    }

    @Test
    void withoutTheSettingsNothingStarts() {
        assertEquals(Optional.empty(), OtelExport.start(new OtelSettings(key -> null)));
        assertEquals(Optional.empty(), OtelExport.start(new OtelSettings(Map.of("otel.exporter.otlp.endpoint",
                "http://127.0.0.1:1", "otel.sdk.disabled", "true")::get)));
        OtelSettings metricsOnly = new OtelSettings(Map.of("otel.exporter.otlp.metrics.endpoint",
                "http://collector:4318/v1/metrics")::get);
        assertTrue(metricsOnly.enabled() && metricsOnly.metricsEnabled() && !metricsOnly.tracesEnabled());
        assertEquals(Optional.of("http://collector:4318/v1/metrics"), new OtelSettings(Map.of(
                "otel.exporter.otlp.endpoint", "http://collector:4318/")::get).metricsUrl());
    }

    private static List<Span> named(List<Span> spans, String name) {
        return spans.stream().filter(s -> s.getName().equals(name)).toList();
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().hasStringValue()
                ? kv.getValue().getStringValue() : kv.getValue().hasIntValue()
                ? String.valueOf(kv.getValue().getIntValue()) : kv.getValue().toString()));
    }
}

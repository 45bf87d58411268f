package io.sluice.app.metrics;

import io.sluice.app.CliRun;
import io.sluice.app.report.TestPipeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real run pushing its meters to a Pushgateway endpoint on loopback; the test reads what arrived. */
class MetricsPushTest {
    private static TestPipeline pipeline;

    @TempDir
    Path dir;

    @BeforeAll
    static void databases() throws Exception {
        pipeline = TestPipeline.create("metrics");
    }

    @Test
    void aRunPushesDuringTheRunAndTheFinalCountsAtTheEnd() throws Exception {
        try (FakePushgateway gateway = new FakePushgateway()) {
            // The source sleeps 2.5 s: with a 1 s interval the run pushes while it copies, then once at the end.
            CliRun run = CliRun.of("run", pipeline.slowSpec(dir, "metrics-slow", 2.5).toString(), "--run-id", "push-1",
                    "--metrics-push", gateway.address(), "--metrics-push-interval", "1");

            assertEquals(0, run.exitCode(), run.all());
            List<FakePushgateway.Push> pushes = gateway.pushes();
            assertTrue(pushes.size() >= 2, "periodic and final pushes: " + pushes.size());
            for (FakePushgateway.Push push : pushes) {
                assertEquals("PUT", push.method());
                assertEquals("/metrics/job/sluice/pipeline/metrics-slow", push.path());
                assertTrue(push.contentType().startsWith("text/plain"), push.contentType());
            }
            String last = pushes.getLast().body();
            assertTrue(last.contains("sluice_copied_rows_total{connector=\"postgres\",degree=\"1\","
                    + "pipeline=\"metrics-slow\",run_id=\"push-1\",stream=\"items\"} 100.0"), last);
            assertTrue(last.contains("sluice_partitions_total{connector=\"postgres\",degree=\"1\","
                    + "pipeline=\"metrics-slow\",run_id=\"push-1\",state=\"done\",stream=\"items\"} 1.0"), last);
            assertTrue(last.contains("sluice_partition_duration_seconds_count{"), last);
            assertTrue(last.contains("sluice_copied_bytes_total{"), last);
            assertTrue(last.contains("sluice_partitions_planned_partitions{"), last);
            assertTrue(last.contains("sluice_throughput_rows_per_second{"), last);
        }
    }

    @Test
    void bootsPushgatewayPropertiesPushWithoutTheOption() throws Exception {
        try (FakePushgateway gateway = new FakePushgateway()) {
            String prefix = "management.prometheus.metrics.export.pushgateway.";
            System.setProperty(prefix + "enabled", "true");
            System.setProperty(prefix + "address", "127.0.0.1:" + gateway.port());
            try {
                CliRun run = CliRun.of("run", pipeline.spec(dir, "metrics-props", "items").toString(), "--run-id",
                        "props-1");
                assertEquals(0, run.exitCode(), run.all());
            } finally {
                System.clearProperty(prefix + "enabled");
                System.clearProperty(prefix + "address");
            }
            FakePushgateway.Push last = gateway.pushes().getLast();
            assertEquals("PUT", last.method(), "the final push replaces the group");
            assertEquals("/metrics/job/sluice/pipeline/metrics-props", last.path());
            assertTrue(last.body().contains("sluice_copied_rows_total{connector=\"postgres\",degree=\"2\","
                    + "pipeline=\"metrics-props\",run_id=\"props-1\",stream=\"items\"} " + TestPipeline.ROWS + ".0"),
                    last.body());
        }
    }
}

package io.sluice.app.metrics;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run that applies changes pushes them by kind, the source transactions, and the lag it reached; its summary JSON
 * lists the feed.
 */
class ChangeMetricsTest {
    @TempDir
    Path dir;

    @Test
    void aRunThatAppliesChangesPushesThemAndItsLag() throws Exception {
        try (TestingPostgres pg = TestingPostgres.start(Map.of("wal_level", "logical"))) {
            String source = pg.createDatabase("chgmetric_src");
            String target = pg.createDatabase("chgmetric_dst");
            try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
                s.execute("INSERT INTO t SELECT g, 'v' FROM generate_series(1, 100) g");
            }
            Path spec = dir.resolve("metric.yaml");
            Files.writeString(spec, """
                    version: 1
                    name: change-metric
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: t
                        source: { connection: src, table: t, changes: { slot: sluice_metric } }
                        target: { connection: dst, table: t, create: if-missing }
                    """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user()));
            assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
            try (Connection c = pg.connect(source); Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (101, 'new'), (102, 'new')");
                s.execute("UPDATE t SET v = 'w' WHERE id <= 3");
                s.execute("DELETE FROM t WHERE id = 50");
            }
            try (FakePushgateway gateway = new FakePushgateway()) {
                Path summary = dir.resolve("summary.json");
                CliRun run = CliRun.of("run", spec.toString(), "--run-id", "cm-2", "--metrics-push",
                        gateway.address(), "--summary-json", summary.toString());
                assertEquals(0, run.exitCode(), run.all());
                String json = Files.readString(summary);
                assertEquals(java.util.List.of(), io.sluice.app.report.Validators.summaryErrors(json), json);
                assertTrue(json.contains("\"feed\" : \"sluice_metric\"") && json.contains("\"inserts\" : 2")
                        && json.contains("\"transactions\" : 3"), json);
                String last = gateway.pushes().getLast().body();
                String tags = "feed=\"sluice_metric\",kind=\"%s\",pipeline=\"change-metric\",run_id=\"cm-2\"";
                assertTrue(last.contains("sluice_changes_applied_total{" + tags.formatted("insert") + "} 2.0")
                        && last.contains("sluice_changes_applied_total{" + tags.formatted("update") + "} 3.0")
                        && last.contains("sluice_changes_applied_total{" + tags.formatted("delete") + "} 1.0")
                        && last.contains("sluice_changes_applied_total{" + tags.formatted("truncate") + "} 0.0"),
                        last);
                assertTrue(last.contains("sluice_changes_transactions_total{feed=\"sluice_metric\","
                        + "pipeline=\"change-metric\",run_id=\"cm-2\"} 3.0"), last);
                assertTrue(last.contains("sluice_changes_lag_bytes{feed=\"sluice_metric\",pipeline=\"change-metric\","
                        + "run_id=\"cm-2\"} 0.0"), last);
            }
        }
    }
}

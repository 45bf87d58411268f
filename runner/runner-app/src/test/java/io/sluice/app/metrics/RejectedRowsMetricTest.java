package io.sluice.app.metrics;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sluice.rows.rejected}: a run with rows set aside pushes how many, per stream. */
class RejectedRowsMetricTest {
    @TempDir
    Path dir;

    @Test
    void aRunThatSetsRowsAsidePushesTheirCount() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("rejmetric");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE codes (id bigint, code varchar(3))");
        }
        Path spec = dir.resolve("metric.yaml");
        Files.writeString(spec, """
                version: 1
                name: rejected-metric
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: codes
                    source: { connection: lake, query: "select i as id, case when i %% 10 = 0 then 'toolong' else 'ok' end as code from range(1, 101) t(i)" }
                    target: { connection: dst, table: codes }
                    rejects: { table: codes_rejects }
                """.formatted(pg.jdbcUrl(db), pg.user()));
        try (FakePushgateway gateway = new FakePushgateway()) {
            CliRun run = CliRun.of("run", spec.toString(), "--run-id", "m-1", "--metrics-push", gateway.address());
            assertEquals(0, run.exitCode(), run.all());
            String last = gateway.pushes().getLast().body();
            assertTrue(last.contains("sluice_rows_rejected_total{connector=\"duckdb\",degree=\"1\","
                    + "pipeline=\"rejected-metric\",run_id=\"m-1\",stream=\"codes\"} 10.0"), last);
            assertTrue(last.contains("sluice_copied_rows_total{connector=\"duckdb\",degree=\"1\","
                    + "pipeline=\"rejected-metric\",run_id=\"m-1\",stream=\"codes\"} 90.0"), last);
        }
    }
}

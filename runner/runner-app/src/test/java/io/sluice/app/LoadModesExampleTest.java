package io.sluice.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** examples/load-modes.yaml as shipped: the first run creates both tables, the second replaces one, merges the other. */
class LoadModesExampleTest {
    private static final Path EXAMPLE = Path.of("../../examples/load-modes.yaml");

    // Embedded servers outlive the run in this JVM (see QuickstartTest): the folder is left to the JVM's temp files.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path state;

    @Test
    void createsBothTablesThenReplacesOneAndMergesIntoTheOther() throws Exception {
        CliRun plan = CliRun.of("plan", EXAMPLE.toString(), "--state-dir", state.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("CREATE TABLE \"public\".\"orders_snapshot_sluice_shadow\" (\"id\" bigint, "
                + "\"customer\" text, \"amount\" numeric(10,2), \"tags\" bigint[], \"details\" jsonb, \"loaded_at\" "
                + "timestamp with time zone)"), plan.out());
        for (int run = 1; run <= 2; run++) {
            CliRun result = CliRun.of("run", EXAMPLE.toString(), "--state-dir", state.toString());
            assertEquals(0, result.exitCode(), "run " + run + ":\n" + result.all());
        }
        int port = Integer.parseInt(Files.readString(state.resolve("postgres-18/port")).trim());
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/load_modes",
                "postgres", "");
             Statement s = c.createStatement()) {
            assertEquals(200_000, count(s, "SELECT count(*) FROM orders_snapshot"));
            assertEquals(200_000, count(s, "SELECT count(*) FROM orders_by_id"), "merged by id: no row twice");
            assertEquals(2, count(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid IN "
                    + "('orders_snapshot'::regclass, 'orders_by_id'::regclass)"));
            try (ResultSet rs = s.executeQuery("SELECT string_agg(relname || ' ' || relkind::text, ', ') FROM pg_class "
                    + "WHERE relname LIKE '%sluice%' AND relpersistence <> 't'")) {
                rs.next();
                assertEquals(null, rs.getString(1), "nothing of Sluice's left behind");
            }
        }
    }

    private static long count(Statement s, String query) throws Exception {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

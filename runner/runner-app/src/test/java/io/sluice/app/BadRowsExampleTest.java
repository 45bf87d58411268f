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

/**
 * examples/bad-rows.yaml as shipped: 100,000 orders, 7 in every 1,000 bad; the good ones load, the bad ones are in
 * the rejects table once each with their reason, and {@code sluice rejects} lists them.
 */
class BadRowsExampleTest {
    private static final Path EXAMPLE = Path.of("../../examples/bad-rows.yaml");

    // Embedded servers outlive the run in this JVM (see QuickstartTest): the folder is left to the JVM's temp files.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path state;

    @Test
    void loadsTheGoodRowsAndSetsTheBadOnesAsideWithTheirReasons() throws Exception {
        CliRun run = CliRun.of("run", EXAMPLE.toString(), "--state-dir", state.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(run.all().contains("700 rows set aside in public.orders_rejects"), run.all());
        assertTrue(run.all().contains("99,300 rows") && run.all().contains("rows read = rows written + rows set "
                + "aside"), run.all());
        int port = Integer.parseInt(Files.readString(state.resolve("postgres-18/port")).trim());
        try (Connection dwh = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/bad_rows_dwh",
                "postgres", ""); Statement s = dwh.createStatement()) {
            assertEquals("99300", text(s, "SELECT count(*) FROM orders"));
            assertEquals("23502:100 23505:100 23514:100 DUCK301:100 DUCK302:200 DUCK304:100", text(s,
                    "SELECT string_agg(error_code || ':' || n, ' ' ORDER BY error_code) FROM (SELECT error_code, "
                            + "count(*) n FROM orders_rejects GROUP BY 1) x"));
        }
        CliRun listed = CliRun.of("rejects", EXAMPLE.toString(), "--state-dir", state.toString(), "--limit", "3");
        assertEquals(0, listed.exitCode(), listed.all());
        assertTrue(listed.out().contains("stream orders: 3 newest row(s) set aside"), listed.out());
    }

    private static String text(Statement s, String query) throws Exception {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

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
 * examples/schema-life.yaml as shipped: the first run creates the shaped table in a schema its before hook makes; the
 * source then gains a column, and the second run adds it to the target and loads it, every check passing both times.
 */
class SchemaLifeExampleTest {
    private static final Path EXAMPLE = Path.of("../../examples/schema-life.yaml");

    // Embedded servers outlive the run in this JVM (see QuickstartTest): the folder is left to the JVM's temp files.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path state;

    @Test
    void createsTheShapedTableThenFollowsANewSourceColumn() throws Exception {
        CliRun plan = CliRun.of("plan", EXAMPLE.toString(), "--state-dir", state.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        CliRun first = CliRun.of("run", EXAMPLE.toString(), "--state-dir", state.toString());
        assertEquals(0, first.exitCode(), first.all());
        int port = Integer.parseInt(Files.readString(state.resolve("postgres-18/port")).trim());
        try (Connection crm = DriverManager.getConnection("jdbc:postgresql://localhost:" + port
                + "/schema_life_crm", "postgres", "");
             Connection dwh = DriverManager.getConnection("jdbc:postgresql://localhost:" + port
                     + "/schema_life_dwh", "postgres", "");
             Statement source = crm.createStatement(); Statement target = dwh.createStatement()) {
            assertEquals("id bigint, email text, phone text, status text, spend numeric(14,2)",
                    text(target, "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY "
                            + "attnum) FROM pg_attribute WHERE attrelid = 'crm.customers'::regclass AND attnum > 0"));
            assertEquals("47500", text(target, "SELECT count(*) FROM crm.customers"));
            assertEquals("0", text(target, "SELECT count(*) FROM crm.customers WHERE email <> lower(email) "
                    + "OR phone !~ '^\\*+$' OR spend * 100 <> id * 137"));

            source.execute("ALTER TABLE customers ADD COLUMN segment text DEFAULT 'retail'");
            CliRun second = CliRun.of("run", EXAMPLE.toString(), "--state-dir", state.toString());
            assertEquals(0, second.exitCode(), second.all());
            assertTrue(second.all().contains("added column segment text to crm.customers"), second.all());
            assertEquals("47500", text(target, "SELECT count(*) FROM crm.customers WHERE segment = 'retail'"));
        }
    }

    private static String text(Statement s, String query) throws Exception {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

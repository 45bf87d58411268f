package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rows a target's NOT NULL and CHECK constraints refuse are left out by the COPY itself (its WHERE clause) and named
 * by notices, so no COPY fails for them: a serial column's sequence, advanced once per row the server reads, shows
 * every row went to the server once. Where the screen does not decide (a unique key, a check on a generated column)
 * and where more rows are refused than one COPY may report, the rows still land exactly once.
 */
class RowScreenTest {
    private static final int ROWS = 200_000;
    private static final long DENSE_FROM = 50_001;
    private static final long DENSE_TO = 51_500;

    @TempDir
    Path dir;

    @Test
    void rowsTheConstraintsRefuseAreSetAsideWithoutSendingAnyRowTwice() throws Exception {
        LedgerFixture f = fixture("rs1");
        // qty NULL every 1,000th row (NOT NULL), -1 every 1,000th (CHECK), an amount the NOT VALID check refuses
        String query = "select i::bigint as id, case i % 1000 when 4 then null when 5 then -1 else i % 50 end as qty, "
                + "case i % 1000 when 9 then 5000 else i % 100 end as amount, 'c' || i as code "
                + "from range(1, " + (ROWS + 1) + ") t(i)";
        for (String[] shape : new String[][] {{"none", "1"}, {"modulo", "2"}}) {
            String runId = "screened-" + shape[0];
            f.sql(f.target, "ALTER SEQUENCE orders_n_seq RESTART");
            CliRun run = CliRun.of("run", spec(f, runId + ".yaml", query, shape[0], Integer.parseInt(shape[1]))
                    .toString(), "--run-id", runId);
            assertEquals(0, run.exitCode(), run.all());
            assertEquals(ROWS, f.scalar(f.target, "SELECT last_value FROM orders_n_seq"),
                    "each row read by the server once: no COPY failed and sent its rows again");
            assertEquals(Map.of("23502 qty", 200L, "23514 constraint qty_ok", 200L,
                    "23514 constraint amount_small", 200L), reasons(f, runId));
            assertExact(f, runId);
            assertEquals(200, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = '" + runId
                    + "' AND error_message = 'null value in column \"qty\" of relation \"orders\" violates "
                    + "not-null constraint' AND row_data->'qty' = 'null'::jsonb AND (row_data->>'id')::bigint % 1000 "
                    + "= 4"));
            assertEquals(200, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = '" + runId
                    + "' AND error_message = 'new row for relation \"orders\" violates check constraint \"qty_ok\"' "
                    + "AND (row_data->>'qty')::int = -1"));
        }
        // at degree 1 the row numbers are the feed's
        assertEquals(600, f.scalar(f.target, "SELECT count(*) FROM orders_rejects WHERE run_id = 'screened-none' "
                + "AND row_number = (row_data->>'id')::bigint"));
    }

    @Test
    void aDenseRunOfRefusalsAUniqueKeyAndAGeneratedColumnsCheckStillLandEachRowOnce() throws Exception {
        LedgerFixture f = fixture("rs2");
        String query = "select i::bigint as id, case when i between " + DENSE_FROM + " and " + DENSE_TO + " then -1 "
                + "when i % 1000 = 4 then null when i % 1000 = 5 then -1 when i % 1000 = 17 then 60 else i % 50 end "
                + "as qty, i % 100 as amount, case i % 1000 when 6 then 'c' || (i + 4) else 'c' || i end as code "
                + "from range(1, " + (ROWS + 1) + ") t(i)";
        Map<String, Long> expected = new TreeMap<>();
        for (long i = 1; i <= ROWS; i++) {
            boolean dense = i >= DENSE_FROM && i <= DENSE_TO;
            String reason = dense || i % 1000 == 5 ? "23514 constraint qty_ok" : i % 1000 == 4 ? "23502 qty"
                    : i % 1000 == 17 ? "23514 constraint doubled_small"
                    : i % 1000 == 10 && !(i - 4 >= DENSE_FROM && i - 4 <= DENSE_TO) ? "23505 constraint orders_code_key"
                    : null;
            if (reason != null) {
                expected.merge(reason, 1L, Long::sum);
            }
        }
        for (String[] shape : new String[][] {{"none", "1"}, {"modulo", "4"}}) {
            String runId = "dense-" + shape[0];
            CliRun run = CliRun.of("run", spec(f, runId + ".yaml", query, shape[0], Integer.parseInt(shape[1]))
                    .toString(), "--run-id", runId);
            assertEquals(0, run.exitCode(), run.all());
            // (which of a duplicated pair is refused depends on the order its rows arrive in: counted, not named)
            assertEquals(expected, reasons(f, runId));
            assertExact(f, runId);
        }
    }

    /**
     * A clause the writer's session cannot run (a check with a whole-row reference, which COPY's WHERE refuses beside a
     * generated column) leaves the load to the server's errors: the run still sets each bad row aside once.
     */
    @Test
    void aClauseTheWriterCannotRunFallsBackToTheServersErrors() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rs3", 0);
        f.sql(f.target, "CREATE TABLE orders (id bigint PRIMARY KEY, qty integer NOT NULL, amount integer, code text, "
                        + "doubled integer GENERATED ALWAYS AS (qty * 2) STORED)",
                "CREATE FUNCTION sane(orders) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1.qty >= 0'",
                "ALTER TABLE orders ADD CONSTRAINT whole_row CHECK (sane(orders))");
        String query = "select i::bigint as id, case i % 1000 when 5 then -1 else i % 50 end as qty, i % 100 as amount, "
                + "'c' || i as code from range(1, 20001) t(i)";
        CliRun run = CliRun.of("run", spec(f, "fallback.yaml", query, "modulo", 2).toString(), "--run-id", "fallback");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(Map.of("23514 constraint whole_row", 20L), reasons(f, "fallback"));
        assertEquals(20_000 - 20, f.scalar(f.target, "SELECT count(*) FROM orders"));
    }

    /**
     * A partitioned target is screened by its own constraints; once one partition has a BEFORE INSERT trigger that
     * mends a row, the clause could refuse what the trigger would have mended, so there is no screen: the mended rows
     * load and only the others are set aside.
     */
    @Test
    void aPartitionedTargetIsScreenedUnlessAPartitionsTriggerMayMendTheRow() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rs4", 0);
        f.sql(f.target, "CREATE TABLE orders (n bigserial, id bigint NOT NULL, qty integer NOT NULL, amount integer, "
                        + "code text, CONSTRAINT qty_ok CHECK (qty >= 0)) PARTITION BY RANGE (id)",
                "CREATE TABLE orders_low PARTITION OF orders FOR VALUES FROM (MINVALUE) TO (10001)",
                "CREATE TABLE orders_high PARTITION OF orders FOR VALUES FROM (10001) TO (MAXVALUE)");
        String query = "select i::bigint as id, case i % 1000 when 5 then -1 when 4 then null else i % 50 end as qty, "
                + "i % 100 as amount, 'c' || i as code from range(1, 20001) t(i)";
        CliRun screened = CliRun.of("run", spec(f, "partitioned.yaml", query, "none", 1).toString(), "--run-id",
                "partitioned");
        assertEquals(0, screened.exitCode(), screened.all());
        assertEquals(20_000, f.scalar(f.target, "SELECT last_value FROM orders_n_seq"), "no row sent twice");
        assertEquals(Map.of("23514 constraint qty_ok", 20L, "23502 qty", 20L), reasons(f, "partitioned"));

        f.sql(f.target, "CREATE FUNCTION mend() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "NEW.qty := greatest(NEW.qty, 0); RETURN NEW; END $$",
                "CREATE TRIGGER mend BEFORE INSERT ON orders_high FOR EACH ROW EXECUTE FUNCTION mend()");
        CliRun mended = CliRun.of("run", spec(f, "partitioned.yaml", query, "none", 1).toString(), "--run-id",
                "mended");
        assertEquals(0, mended.exitCode(), mended.all());
        // in orders_high the trigger mends both -1 and NULL to 0 (greatest ignores a NULL): only orders_low refuses
        assertEquals(Map.of("23514 constraint qty_ok", 10L, "23502 qty", 10L), reasons(f, "mended"));
        assertEquals(20, f.scalar(f.target, "SELECT count(*) FROM orders_high WHERE qty = 0 AND id % 1000 IN (4, 5)"));
        assertEquals(20_000 - 20, f.scalar(f.target, "SELECT count(*) FROM orders"));
    }

    /**
     * From a PostgreSQL source the COPY bytes arrive as its server cut them (tuples split across writes): the writer
     * finds the tuples itself, and rows the screen refuses and rows a unique key refuses still land once each.
     */
    @Test
    void rowsFromAPostgresSourceAreFoundInTheBytesAsTheyCome() throws Exception {
        LedgerFixture f = fixture("rs5");
        f.sql(f.source, "CREATE TABLE orders (id bigint, qty integer, amount integer, code text)",
                "INSERT INTO orders SELECT i, CASE i % 1000 WHEN 4 THEN NULL WHEN 5 THEN -1 ELSE i % 50 END, i % 100, "
                        + "CASE i % 1000 WHEN 6 THEN 'c' || (i + 4) ELSE 'c' || i END FROM generate_series(1, "
                        + ROWS + ") i");
        Path spec = dir.resolve("from-postgres.yaml");
        java.nio.file.Files.writeString(spec, """
                version: 1
                name: screen-test
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: orders
                    source: { connection: src, table: orders }
                    target: { connection: dst, table: orders }
                    distribution: { method: modulo, key: id }
                    degree: 2
                    load-mode: truncate
                    rejects: { table: orders_rejects }
                """.formatted(f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target), f.pg.user()));
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "from-postgres");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(Map.of("23502 qty", 200L, "23514 constraint qty_ok", 200L,
                "23505 constraint orders_code_key", 200L), reasons(f, "from-postgres"));
        assertExact(f, "from-postgres");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM orders_rejects r JOIN orders o ON o.id = "
                + "(r.row_data->>'id')::bigint WHERE r.run_id = 'from-postgres'"), "no row both loaded and set aside");
    }

    private static Map<String, Long> reasons(LedgerFixture f, String runId) throws SQLException {
        Map<String, Long> reasons = new TreeMap<>();
        try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT error_code || ' ' || coalesce(column_name, 'null'), count(*) "
                     + "FROM orders_rejects WHERE run_id = '" + runId + "' GROUP BY 1")) {
            while (rs.next()) {
                reasons.put(rs.getString(1), rs.getLong(2));
            }
        }
        return reasons;
    }

    /** Every id of the feed once: in the target or among the run's rejects, never both. */
    private static void assertExact(LedgerFixture f, String runId) throws SQLException {
        f.sql(f.target, "ANALYZE orders, orders_rejects");
        assertEquals(ROWS, f.scalar(f.target, "SELECT count(DISTINCT id) FROM (SELECT id FROM orders UNION ALL "
                + "SELECT (row_data->>'id')::bigint FROM orders_rejects WHERE run_id = '" + runId + "') x"));
        assertEquals(ROWS, f.scalar(f.target, "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM "
                + "orders_rejects WHERE run_id = '" + runId + "')"));
    }

    private LedgerFixture fixture(String prefix) throws SQLException {
        LedgerFixture f = new LedgerFixture(dir, prefix, 0);
        // the check calls a function outside the search_path: the clause must name its schema
        f.sql(f.target, "CREATE SCHEMA rules",
                "CREATE FUNCTION rules.small(integer) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1 < 1000'",
                "CREATE TABLE orders (n bigserial, id bigint PRIMARY KEY, qty integer NOT NULL, amount integer, "
                        + "code text UNIQUE, doubled integer GENERATED ALWAYS AS (qty * 2) STORED, "
                        + "CONSTRAINT qty_ok CHECK (qty >= 0), CONSTRAINT doubled_small CHECK (doubled < 100))",
                "ALTER TABLE orders ADD CONSTRAINT amount_small CHECK (rules.small(amount)) NOT VALID");
        return f;
    }

    private static Path spec(LedgerFixture f, String file, String query, String method, int degree)
            throws Exception {
        return f.ordersSpec(file, query, method, degree, "rejects: { table: orders_rejects }");
    }
}

package io.sluice.app.ledger;

import io.sluice.testkit.TestingPostgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A source and a target database with a table to copy, spec files for them, and checks on the result. */
public final class LedgerFixture {
    public final String source;
    public final String target;
    public final Path dir;

    public final TestingPostgres pg;

    public LedgerFixture(Path dir, String prefix, int rows) throws SQLException {
        this(TestingPostgres.shared(), dir, prefix, rows);
    }

    /** On {@code pg}, e.g. a server of the test's own that it crashes. */
    public LedgerFixture(TestingPostgres pg, Path dir, String prefix, int rows) throws SQLException {
        this.pg = pg;
        this.dir = dir;
        this.source = pg.createDatabase(prefix + "_src");
        this.target = pg.createDatabase(prefix + "_dst");
        sql(source, "CREATE TABLE items (id bigint, name text, price numeric(10,2))",
                "INSERT INTO items SELECT g, 'item ' || g, g / 7.0 FROM generate_series(1, " + rows + ") g",
                "ANALYZE items");
        sql(target, "CREATE TABLE items (id bigint, name text, price numeric(10,2))");
    }

    /** A spec copying items with {@code method} on id; {@code extra} lines are appended to the stream. */
    public Path spec(String file, String method, int degree, long batchSize, String... extra) throws Exception {
        String key = method.equals("ctid") || method.equals("none") ? "" : ", key: id";
        String yaml = """
                version: 1
                name: ledger-test
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: src, table: items }
                    target: { connection: dst, table: items }
                    distribution: { method: %s%s }
                    degree: %d
                    batch-size: %d
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), method, key, degree,
                batchSize) + String.join("", extra.length == 0 ? new String[0]
                : java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toArray(String[]::new));
        Path spec = dir.resolve(file);
        Files.writeString(spec, yaml);
        return spec;
    }

    /**
     * A spec loading a DuckDB query's rows into the target's {@code orders} ({@code truncate}), split by
     * {@code method} on id; {@code extra} lines are appended to the stream.
     */
    public Path ordersSpec(String file, String query, String method, int degree, String... extra) throws java.io.IOException {
        String key = method.equals("none") ? "" : ", key: id";
        Path spec = dir.resolve(file);
        Files.writeString(spec, """
                version: 1
                name: ledger-test
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: orders
                    source: { connection: lake, query: "%s" }
                    target: { connection: dst, table: orders }
                    distribution: { method: %s%s }
                    degree: %d
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(target), pg.user(), query, method, key, degree)
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    public void sql(String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    public long scalar(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The first column of the first row of {@code query}, as text. */
    public String scalarText(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Rows in one side and not the other, both ways, counting duplicates (EXCEPT ALL); 0 means equal. */
    public long differences() throws SQLException {
        // Both databases live on one server: copy the source rows next to the target to compare in one query.
        sql(target, "DROP TABLE IF EXISTS expected", "CREATE TABLE expected (id bigint, name text, price numeric(10,2))");
        try (Connection src = pg.connect(source); Connection dst = pg.connect(target)) {
            var out = src.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            var in = dst.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
            out.copyOut("COPY items TO STDOUT", buffer);
            in.copyIn("COPY expected FROM STDIN", new java.io.ByteArrayInputStream(buffer.toByteArray()));
        } catch (java.io.IOException e) {
            throw new SQLException(e);
        }
        return scalar(target, "SELECT (SELECT count(*) FROM (SELECT id, name, price FROM items EXCEPT ALL "
                + "SELECT * FROM expected) a) + (SELECT count(*) FROM (SELECT * FROM expected EXCEPT ALL "
                + "SELECT id, name, price FROM items) b)");
    }

    /**
     * A spec truncating and loading DuckDB's reading of {@code csv} into the target's {@code table}; {@code extra}
     * lines go into the stream.
     */
    public Path csvSpec(String file, String stream, Path csv, String table, String... extra) throws java.io.IOException {
        String yaml = """
                version: 1
                name: %s
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: lake, query: "select * from read_csv('%s')" }
                    target: { connection: dst, table: %s }
                    load-mode: truncate
                """.formatted(file.replace(".yaml", ""), pg.jdbcUrl(target), pg.user(), stream,
                csv.toString().replace("\\", "/"), table) + String.join("", java.util.Arrays.stream(extra)
                .map(l -> "    " + l + "\n").toList());
        Path spec = dir.resolve(file);
        Files.writeString(spec, yaml);
        return spec;
    }

    /** {@code table}'s columns in {@code database}, in order, as {@code name type} with {@code not null} when so. */
    public java.util.List<String> columns(String database, String table) throws SQLException {
        java.util.List<String> columns = new java.util.ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attname || ' ' || format_type(atttypid, atttypmod) || CASE WHEN "
                     + "attnotnull THEN ' not null' ELSE '' END FROM pg_attribute WHERE attrelid = '" + table
                     + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            while (rs.next()) {
                columns.add(rs.getString(1));
            }
        }
        return columns;
    }

    /** Partitions of the run that the target's ledger records as done; 0 while the ledger does not exist yet. */
    public long donePartitions(String runId) throws SQLException {
        try {
            return scalar(target, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                    + "' AND state = 'done'");
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                return 0;
            }
            throw e;
        }
    }

    /** {@link #differences()} for another table of the same name on both sides, with the same columns. */
    public long differences(String table) throws SQLException {
        String expected = "expected_" + table;
        sql(target, "DROP TABLE IF EXISTS " + expected, "CREATE TABLE " + expected + " (LIKE " + table + ")");
        try (Connection src = pg.connect(source); Connection dst = pg.connect(target)) {
            java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
            src.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut("COPY " + table + " TO STDOUT", buffer);
            dst.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyIn("COPY " + expected + " FROM STDIN",
                    new java.io.ByteArrayInputStream(buffer.toByteArray()));
        } catch (java.io.IOException e) {
            throw new SQLException(e);
        }
        return scalar(target, "SELECT (SELECT count(*) FROM (SELECT * FROM " + table + " EXCEPT ALL SELECT * FROM "
                + expected + ") a) + (SELECT count(*) FROM (SELECT * FROM " + expected + " EXCEPT ALL SELECT * FROM "
                + table + ") b)");
    }

    /** Runs {@code statements} in {@code database}, each on its own (autocommit). */
    public static void sql(TestingPostgres pg, String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    /** The first column of the first row of {@code query}, as a number. */
    public static long scalar(TestingPostgres pg, String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** {@code sluice ARGS} in a child JVM of the test's class path, its output in {@code log}: a process to kill. */
    public static Process startSluice(Path log, String... args) throws java.io.IOException {
        java.util.List<String> command = io.sluice.app.SluiceProcess.command(args);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Starts a run in a child JVM and SIGKILLs it once the ledger shows {@code done} partitions done. */
    public void killAfterDone(Path spec, String runId, int done) throws Exception {
        Path log = dir.resolve(runId + ".log");
        Process child = startSluice(log, "run", spec.toString(), "--run-id", runId);
        waitUntil(child, log, () -> donePartitions(runId) >= done);
        child.destroyForcibly();
        if (!child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new AssertionError("the killed run did not end");
        }
        awaitSessionsEnded(child.pid());
    }

    /**
     * The server may still finish what a killed process sent before it died (a batch's COMMIT in flight, which a test
     * counting rows right after the kill would miss): waits until none of its sessions is left on the server. Its
     * sockets closed with it, so each session ends as soon as it has done what it was doing.
     */
    private void awaitSessionsEnded(long pid) throws Exception {
        String left = "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE '% pid=" + pid + " %' "
                + "OR application_name LIKE '% pid=" + pid + "' OR application_name LIKE '% " + pid + "@%'";
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (scalar("postgres", left) > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the killed run's sessions are still on the server after 30 s");
            }
            Thread.sleep(2); // polling the server for a state, not timing anything
        }
    }

    @FunctionalInterface
    public interface Check {
        boolean holds() throws Exception;
    }

    /** Polls {@code check} while the child runs (polling for a state, not timing anything). */
    public static void waitUntil(Process child, Path log, Check check) throws Exception {
        if (!waitUntilOrEnded(child, log, check)) {
            throw new AssertionError("the run ended first:\n" + Files.readString(log));
        }
    }

    /** Like {@link #waitUntil}, but a run that ends first is an answer (false), not a failure. */
    public static boolean waitUntilOrEnded(Process child, Path log, Check check) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try {
                if (check.holds()) {
                    return true;
                }
            } catch (SQLException notYet) {
                // e.g. the ledger is not created yet
            }
            if (!child.isAlive()) {
                return false;
            }
            Thread.sleep(10);
        }
        child.destroyForcibly();
        throw new AssertionError("the run never reached the point:\n" + Files.readString(log));
    }
}

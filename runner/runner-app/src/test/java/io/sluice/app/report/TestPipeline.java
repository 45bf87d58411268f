package io.sluice.app.report;

import io.sluice.testkit.TestingPostgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static java.util.Objects.requireNonNull;

/**
 * A source and a target database on the shared test server and spec files between them, for the operations tests
 * (summary, JUnit, JSON log, metrics, service). Two values reach the spec only through {@code ${file:...}}
 * interpolation, so they are secrets that no output may show: the target role's password and the name of the
 * target table (which PostgreSQL's own error messages repeat).
 */
public final class TestPipeline {
    public static final int ROWS = 5000;

    private final TestingPostgres pg;
    private final String source;
    private final String target;
    private final String role;
    private final String password;
    private final String secretTable;
    private final String secretNarrowTable;

    private TestPipeline(TestingPostgres pg, String source, String target) {
        this.pg = requireNonNull(pg, "pg is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.role = target + "_writer";
        this.password = "pw-" + target.hashCode() + "-Vq9zK";
        this.secretTable = target + "_hidden_tbl";
        this.secretNarrowTable = target + "_hidden_narrow";
    }

    /**
     * Source table {@code items} with {@link #ROWS} rows; target tables {@code items}, {@code narrow} (a text
     * column too short for the data) and a wide and a narrow one with secret names, all with the same columns.
     */
    public static TestPipeline create(String prefix) throws SQLException {
        TestingPostgres pg = TestingPostgres.shared();
        TestPipeline pipeline = new TestPipeline(pg, pg.createDatabase(prefix + "_src"),
                pg.createDatabase(prefix + "_dst"));
        try (Connection c = pg.connect(pipeline.source); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2))");
            s.execute("INSERT INTO items SELECT g, 'item number ' || g, g / 7.0 FROM generate_series(1, " + ROWS
                    + ") g");
            s.execute("ANALYZE items");
        }
        try (Connection c = pg.connect(pipeline.target); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint, name text, price numeric(10,2))");
            s.execute("CREATE TABLE narrow (id bigint, name varchar(4), price numeric(10,2))");
            s.execute("CREATE TABLE " + pipeline.secretTable + " (id bigint, name text, price numeric(10,2))");
            s.execute("CREATE TABLE " + pipeline.secretNarrowTable
                    + " (id bigint, name varchar(4), price numeric(10,2))");
            s.execute("CREATE ROLE " + pipeline.role + " LOGIN SUPERUSER PASSWORD '" + pipeline.password + "'");
        }
        return pipeline;
    }

    /** The values that must never appear in any output. */
    public java.util.List<String> secrets() {
        return java.util.List.of(password, secretTable, secretNarrowTable);
    }

    /** A spec copying {@code items} into {@code targetTable} ({@code items} or {@code narrow}) with ctid. */
    public Path spec(Path dir, String name, String targetTable) throws Exception {
        return write(dir, name, "{ connection: src, table: public.items }", "ctid", 2, "\"" + targetTable + "\"");
    }

    /**
     * A spec whose target table's name comes from {@code ${file:...}}: the wide table, or the narrow one the data
     * does not fit, so that the run fails with PostgreSQL naming the (secret) table.
     */
    public Path specWithSecretTable(Path dir, String name, boolean fits) throws Exception {
        Files.writeString(dir.resolve("table.txt"), (fits ? secretTable : secretNarrowTable) + "\n");
        return write(dir, name, "{ connection: src, table: public.items }", "ctid", 2, "\"${file:table.txt}\"");
    }

    /** The row count of the secret-named wide table. */
    public long secretTableCount() throws SQLException {
        return count(secretTable);
    }

    /** A spec whose one partition takes at least {@code seconds}: its source query sleeps before the rows come. */
    public Path slowSpec(Path dir, String name, double seconds) throws Exception {
        String query = "SELECT g::bigint AS id, 'slow ' || g AS name, g::numeric(10,2) AS price "
                + "FROM pg_sleep(" + seconds + ") CROSS JOIN generate_series(1, 100) g";
        return write(dir, name, "{ connection: src, query: \"" + query + "\" }", "none", 1, "items");
    }

    private Path write(Path dir, String name, String sourceEndpoint, String method, int degree, String table)
            throws Exception {
        Files.writeString(dir.resolve("password.txt"), password + "\n");
        String yaml = """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: %s, password: "${file:password.txt}" }
                streams:
                  - name: items
                    source: %s
                    target: { connection: dst, table: %s }
                    distribution: { method: %s }
                    degree: %d
                    load-mode: truncate
                """.formatted(name, pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), role, sourceEndpoint, table,
                method, degree);
        Path spec = dir.resolve(name + ".yaml");
        Files.writeString(spec, yaml);
        return spec;
    }

    /**
     * Makes the first insert of the row {@code id} into the target's {@code table} fail with a transient error
     * (serialization_failure), so the partition holding it is retried once. The sequence that remembers it is not
     * rolled back with the failed transaction, so the retry passes.
     */
    public void failOnceOnTarget(String table, int id) throws SQLException {
        executeOnTarget("CREATE SEQUENCE IF NOT EXISTS fault_once");
        executeOnTarget("CREATE OR REPLACE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "IF NEW.id = " + id + " AND nextval('fault_once') = 1 THEN RAISE EXCEPTION "
                + "'injected transient failure' USING ERRCODE = 'serialization_failure'; END IF; RETURN NEW; END $$");
        executeOnTarget("CREATE TRIGGER fail_once BEFORE INSERT ON " + table + " FOR EACH ROW "
                + "EXECUTE FUNCTION fail_once()");
    }

    /** Runs {@code sql} in the target database as the test server's superuser. */
    public void executeOnTarget(String sql) throws SQLException {
        try (Connection c = pg.connect(target); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    public long count(String table) throws SQLException {
        try (Connection c = pg.connect(target); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

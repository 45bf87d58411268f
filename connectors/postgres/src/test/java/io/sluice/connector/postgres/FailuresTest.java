package io.sluice.connector.postgres;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceQuery;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Casts, data errors, preflight refusals, secrets, cancellation and lint. */
class FailuresTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("failures");
        harness.sourceSql("CREATE TABLE casts (id int, small int, txt text, num_text text, p point)",
                "INSERT INTO casts VALUES (1, 1, 'short', '1', '(1,2)'), (2, NULL, 'tiny', '2', NULL), "
                        + "(3, 3, 'abcdefghijklmnop', '3', '(0,0)')");
    }

    @Test
    void castsOnTheSourceWhenTypesDiffer() throws Exception {
        harness.targetSql("CREATE TABLE widened (id bigint, small numeric(10,2), num_text int)");
        CopyHarness.Result result = harness.copy(sourceTable("casts"), "widened",
                distribution(DistributionMethod.NONE, null), 1);
        assertEquals(List.of("\"id\"::bigint", "\"small\"::numeric", "\"num_text\"::integer"),
                result.projection().expressions());
        assertTrue(result.projection().notes().get(0).contains("integer cast to bigint"),
                result.projection().notes().toString());
        assertEquals("3:6", harness.query(harness.targetDb, "SELECT count(*) || ':' || sum(num_text) FROM widened"));
    }

    @Test
    void impossibleCastIsRefusedAtPlanTimeNamingColumnAndTypes() throws Exception {
        harness.targetSql("CREATE TABLE no_cast (p int)");
        ConnectorException e = assertThrows(ConnectorException.class, () -> harness.copy(sourceTable("casts"),
                "no_cast", distribution(DistributionMethod.NONE, null), 1));
        assertEquals(ErrorKind.INVALID_SPEC, e.kind());
        assertEquals("PG301", e.code());
        assertTrue(e.getMessage().contains("\"p\"") && e.getMessage().contains("point")
                && e.getMessage().contains("integer"), e.getMessage());
        assertTrue(e.fix().orElseThrow().contains("query"), e.fix().toString());
    }

    @Test
    void valueTooLongNamesColumnAndLine() throws Exception {
        harness.targetSql("CREATE TABLE narrow (id int, txt varchar(10))");
        ConnectorException e = assertThrows(ConnectorException.class, () -> harness.copy(sourceTable("casts"),
                "narrow", distribution(DistributionMethod.NONE, null), 1));
        assertEquals(ErrorKind.DATA, e.kind());
        assertTrue(e.getMessage().contains("value too long for type character varying(10)"), e.getMessage());
        assertTrue(e.getMessage().contains("line 3") && e.getMessage().contains("column txt"), e.getMessage());
        assertEquals("0", harness.query(harness.targetDb, "SELECT count(*) FROM narrow"));
    }

    @Test
    void badValueInASourceCastIsADataError() throws Exception {
        harness.targetSql("CREATE TABLE as_int (id int, txt int)");
        ConnectorException e = assertThrows(ConnectorException.class, () -> harness.copy(sourceTable("casts"),
                "as_int", distribution(DistributionMethod.NONE, null), 1));
        assertEquals(ErrorKind.DATA, e.kind());
        assertTrue(e.getMessage().contains("invalid input syntax for type integer"), e.getMessage());
    }

    @Test
    void missingTablesArePreflightFailures() throws Exception {
        ConnectorException source = assertThrows(ConnectorException.class,
                () -> harness.sourceConnector.sources().orElseThrow().open(sourceTable("nope.missing")).columns());
        assertEquals(ErrorKind.PREFLIGHT, source.kind());
        assertEquals("PG203", source.code());
        ConnectorException unqualified = assertThrows(ConnectorException.class,
                () -> harness.sourceConnector.sources().orElseThrow().open(sourceTable("Missing")).columns());
        assertTrue(unqualified.getMessage().contains("\"missing\" does not exist on the search_path"),
                unqualified.getMessage());
        ConnectorException target = assertThrows(ConnectorException.class,
                () -> harness.targetConnector.targets().orElseThrow().open(targetTable("missing")).table());
        assertEquals(ErrorKind.PREFLIGHT, target.kind());
        ConnectorException query = assertThrows(ConnectorException.class,
                () -> harness.sourceConnector.sources().orElseThrow()
                        .open(sourceQuery("SELECT * FROM missing")).columns());
        assertEquals(ErrorKind.PREFLIGHT, query.kind());
        ConnectorException syntax = assertThrows(ConnectorException.class,
                () -> harness.sourceConnector.sources().orElseThrow().open(sourceQuery("SELEC 1")).columns());
        assertEquals(ErrorKind.INVALID_SPEC, syntax.kind());
    }

    @Test
    void missingPrivilegesArePreflightFailuresWithAGrantAsFix() throws Exception {
        String role = "limited_" + ProcessHandle.current().pid();
        harness.sourceSql("CREATE ROLE " + role + " LOGIN PASSWORD 'limited-pw'",
                "CREATE TABLE guarded (id int)");
        harness.targetSql("CREATE TABLE guarded (id int)", "GRANT INSERT ON guarded TO " + role);
        Connector sourceAsRole = connectorAs(harness.sourceDb, role);
        ConnectorException read = assertThrows(ConnectorException.class,
                () -> sourceAsRole.sources().orElseThrow().open(sourceTable("guarded")).columns());
        assertEquals(ErrorKind.PREFLIGHT, read.kind());
        assertEquals("GRANT SELECT ON \"public\".\"guarded\" TO \"" + role + "\"", read.fix().orElseThrow());

        Target targetAsRole = connectorAs(harness.targetDb, role).targets().orElseThrow().open(targetTable("guarded"));
        targetAsRole.table(); // INSERT is granted
        ConnectorException truncate = assertThrows(ConnectorException.class,
                () -> ContractSource.appendTo(targetAsRole).truncate());
        assertEquals(ErrorKind.PREFLIGHT, truncate.kind());
        assertTrue(truncate.fix().orElseThrow().startsWith("GRANT TRUNCATE"), truncate.fix().toString());
        harness.targetSql("REVOKE INSERT ON guarded FROM " + role);
        ConnectorException insert = assertThrows(ConnectorException.class, targetAsRole::table);
        assertEquals(ErrorKind.PREFLIGHT, insert.kind());
    }

    private static Connector connectorAs(String database, String role) throws Exception {
        return new PostgresConnectorFactory().create(new io.sluice.spi.connector.ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, Map.of("url", harness.server.jdbcUrl(database), "user", role,
                        "password", "limited-pw")), Path.of("."), Path.of("target")));
    }

    @Test
    void secretsNeverReachMessages() throws Exception {
        Connector unreachable = new PostgresConnectorFactory().create(new io.sluice.spi.connector.ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, Map.of(
                        "url", "jdbc:postgresql://127.0.0.1:1/db?password=url-secret-1&connectTimeout=2",
                        "user", "someone", "password", "hunter2-secret",
                        "properties", Map.of("sslpassword", "ssl-secret-3"))),
                Path.of("."), Path.of("target")));
        ConnectorException e = assertThrows(ConnectorException.class,
                () -> unreachable.sources().orElseThrow().open(sourceTable("t")).columns());
        assertEquals(ErrorKind.TRANSIENT, e.kind());
        for (Throwable t = e; t != null; t = t.getCause()) {
            String text = String.valueOf(t.getMessage());
            assertFalse(text.contains("url-secret-1") || text.contains("hunter2-secret")
                    || text.contains("ssl-secret-3"), text);
        }
    }

    @Test
    void cancelStopsAReaderAndLeavesNoConnectionBusy() throws Exception {
        harness.sourceSql("CREATE TABLE big (id int, pad text)",
                "INSERT INTO big SELECT g, repeat('y', 200) FROM generate_series(1, 200000) AS g");
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("big"));
        List<Column> columns = source.columns();
        SourceProjection projection = source.project(columns.stream().map(c -> new ColumnPair(c, c)).toList());
        SourcePartition partition = source.plan(new PlanRequest(Distribution.none(), 1, 1_000_000)).get(0);
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReader reader = session.openReader(partition, projection)) {
            AtomicBoolean cancelled = new AtomicBoolean();
            ConnectorException e = assertThrows(ConnectorException.class, () -> reader.transferTo((b, o, n) -> {
                if (cancelled.compareAndSet(false, true)) {
                    Thread other = Thread.ofVirtual().start(reader::cancel);
                    try {
                        other.join();
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                }
            }));
            assertEquals("PG210", e.code());
        }
        assertEquals("0", harness.query(harness.sourceDb, "SELECT count(*) FROM pg_stat_activity "
                + "WHERE application_name = 'sluice' AND state <> 'idle' AND datname = current_database()"));
    }

    @Test
    void abortRollsBackAnOpenWriter() throws Exception {
        harness.targetSql("CREATE TABLE aborted (id int)");
        Target target = harness.targetConnector.targets().orElseThrow().open(targetTable("aborted"));
        List<Column> columns = target.table().columns();
        PartitionWriter writer = ContractSource.appendTo(target).openWriter(columns, io.sluice.spi.data.CopyFormat.TEXT);
        byte[] rows = "1\n2\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        writer.write(rows, 0, rows.length);
        Thread.ofVirtual().start(writer::abort).join();
        writer.abort(); // twice is harmless
        writer.close();
        assertEquals("0", harness.query(harness.targetDb, "SELECT count(*) FROM aborted"));
    }

    @Test
    void planRefusals() throws Exception {
        Source query = harness.sourceConnector.sources().orElseThrow().open(sourceQuery("SELECT * FROM casts"));
        ConnectorException ctid = assertThrows(ConnectorException.class, () -> query.plan(
                new PlanRequest(distribution(DistributionMethod.CTID, null), 2, 100)));
        assertEquals(ErrorKind.INVALID_SPEC, ctid.kind());
        Source table = harness.sourceConnector.sources().orElseThrow().open(sourceTable("casts"));
        ConnectorException range = assertThrows(ConnectorException.class, () -> table.plan(
                new PlanRequest(distribution(DistributionMethod.RANGE, "txt"), 2, 100)));
        assertEquals("PG306", range.code());
        ConnectorException key = assertThrows(ConnectorException.class, () -> table.plan(
                new PlanRequest(distribution(DistributionMethod.MODULO, "no_such_column"), 2, 100)));
        assertEquals("PG305", key.code());
        ConnectorException noKey = assertThrows(ConnectorException.class, () -> table.plan(
                new PlanRequest(distribution(DistributionMethod.NTILE, null), 2, 100)));
        assertEquals(ErrorKind.INVALID_SPEC, noKey.kind());
    }

    @Test
    void lintFindsProblemsOffline() {
        PostgresConnectorFactory factory = new PostgresConnectorFactory();
        List<Problem> badName = factory.lintStream(new StreamShape("s", Role.SOURCE,
                Options.of(PostgresOptions.SOURCE, Map.of("table", "a.\"b")), Distribution.none()));
        assertEquals(List.of("PG101"), badName.stream().map(Problem::code).toList());
        List<Problem> both = factory.lintStream(new StreamShape("s", Role.SOURCE,
                Options.of(PostgresOptions.SOURCE, Map.of("table", "t", "query", "SELECT 1")),
                new Distribution(DistributionMethod.CTID, Optional.empty(), Optional.empty())));
        assertEquals(List.of("PG102", "PG103"), both.stream().map(Problem::code).toList());
        List<Problem> neither = factory.lintStream(new StreamShape("s", Role.SOURCE,
                Options.of(PostgresOptions.SOURCE, Map.of()),
                new Distribution(DistributionMethod.RANGE, Optional.empty(), Optional.empty())));
        assertEquals(List.of("PG102"), neither.stream().map(Problem::code).toList(),
                "the missing key is the core's SPEC017, reported once");
        List<Problem> fine = factory.lintStream(new StreamShape("s", Role.TARGET,
                Options.of(PostgresOptions.TARGET, Map.of("table", "\"Odd Schema\".\"T\"")), Distribution.none()));
        assertEquals(List.of(), fine);
    }

    @Test
    void aWhereThatEscapesItsParenthesesOrMeetsChangesIsRefusedOffline() {
        PostgresConnectorFactory factory = new PostgresConnectorFactory();
        List<Problem> escaping = factory.lintStream(new StreamShape("s", Role.SOURCE, Options.of(
                PostgresOptions.SOURCE, Map.of("table", "t", "where", "id > 500000) OR (id < 1000")),
                Distribution.none()));
        assertEquals(List.of("PG110"), escaping.stream().map(Problem::code).toList());
        assertEquals("where", escaping.getFirst().optionKey());
        assertTrue(escaping.getFirst().message().contains("closes a parenthesis it did not open, at character 12"),
                escaping.getFirst().message());
        assertEquals(List.of(), factory.lintStream(new StreamShape("s", Role.SOURCE, Options.of(
                PostgresOptions.SOURCE, Map.of("table", "t", "where", "note <> 'a) OR (b'")), Distribution.none())));
        List<Problem> following = factory.lintStream(new StreamShape("s", Role.SOURCE, Options.of(
                PostgresOptions.SOURCE, Map.of("table", "t", "where", "id % 2 = 0", "changes",
                        Options.of(PostgresOptions.CHANGES.nested().orElseThrow(), Map.of("slot", "s1")))), Distribution.none()));
        assertEquals(List.of("PG111"), following.stream().map(Problem::code).toList());
    }

    @Test
    void lintChecksConnectionOptionsWithTheCodesConnectingWouldReport() {
        PostgresConnectorFactory factory = new PostgresConnectorFactory();
        List<Problem> both = factory.lintConnection(Options.of(PostgresOptions.CONNECTION,
                Map.of("url", "jdbc:postgresql://db/x", "embedded", "scratch")));
        assertEquals(List.of("PG208"), both.stream().map(Problem::code).toList());
        assertEquals("embedded", both.getFirst().optionKey());
        assertEquals(List.of("PG208"), factory.lintConnection(Options.of(PostgresOptions.CONNECTION,
                Map.of("user", "u"))).stream().map(Problem::code).toList());
        assertEquals(List.of("PG405"), factory.lintConnection(Options.of(PostgresOptions.CONNECTION,
                Map.of("url", "jdbc:postgresql://db/x", "init-script", "s.sql"))).stream().map(Problem::code)
                .toList());
        assertEquals(List.of(), factory.lintConnection(Options.of(PostgresOptions.CONNECTION,
                Map.of("embedded", "scratch", "init-script", "s.sql"))));
    }
}

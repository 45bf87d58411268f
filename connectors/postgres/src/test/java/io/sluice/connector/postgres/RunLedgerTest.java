package io.sluice.connector.postgres;

import io.sluice.spi.Column;
import io.sluice.spi.ConnectionConfig;
import io.sluice.spi.Connector;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.CopyFormat;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.Options;
import io.sluice.spi.PartitionWriter;
import io.sluice.spi.Target;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run ledger against a real server: creation, versions, exactly-once commits, truncation, permissions. */
class RunLedgerTest {
    private static final String SECRET = "ledger-pw-Secret-77";
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("ledger");
        harness.targetSql("CREATE TABLE items (id int, name text)");
    }

    private static Connector connector(String user, String password, String ledgerSchema) {
        Map<String, Object> values = new HashMap<>();
        values.put("url", harness.server.jdbcUrl(harness.targetDb));
        values.put("user", user);
        values.put("password", password);
        values.put("ledger-schema", ledgerSchema);
        return new PostgresConnectorFactory().create(new ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, values), Path.of("."), Path.of("target")));
    }

    private static Target target(String ledgerSchema, String table) throws ConnectorException {
        return connector(harness.server.user(), harness.server.password(), ledgerSchema).target(targetTable(table));
    }

    private static RunLedger ledger(Target target) {
        return target.ledger().orElseThrow();
    }

    private static String q(String sql) throws Exception {
        return harness.query(harness.targetDb, sql);
    }

    private static LedgerPartition planned(int index, String id) {
        return new LedgerPartition(index, id, "id % 2 = " + index, "cp-" + id, LedgerPartition.State.PLANNED, 0, 0, 0);
    }

    /** Writes {@code ids} into {@code items} through a writer and commits them with the partition's ledger row. */
    private static void copyAndCommit(Target target, String runId, String stream, String partitionId, int... ids)
            throws Exception {
        try (PartitionWriter writer = openWriter(target)) {
            write(writer, ids);
            long rows = writer.finish();
            writer.commit(new PartitionDone(runId, stream, partitionId, rows, 10L * rows, 1, Instant.now()));
        }
    }

    private static PartitionWriter openWriter(Target target) throws ConnectorException {
        List<Column> columns = target.table().columns();
        return target.openWriter(columns, CopyFormat.TEXT);
    }

    private static void write(PartitionWriter writer, int... ids) throws ConnectorException {
        StringBuilder text = new StringBuilder();
        for (int id : ids) {
            text.append(id).append("\tname ").append(id).append('\n');
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        writer.write(bytes, 0, bytes.length);
    }

    @Test
    void createsVersionedTablesOnceEvenWhenRunsRace() throws Exception {
        List<Future<?>> results = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 8; i++) {
                RunLedger ledger = ledger(target("race_ledger", "items"));
                results.add(pool.submit(() -> {
                    go.await();
                    ledger.ensureReady();
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : results) {
                f.get();
            }
        }
        assertEquals("1", q("SELECT string_agg(version::text, ',') FROM race_ledger.ledger_version"));
        assertEquals("ledger_version,run_attempts,run_partitions,run_streams", q("SELECT string_agg(tablename, ',' "
                + "ORDER BY tablename) FROM pg_tables WHERE schemaname = 'race_ledger'"));
        ledger(target("race_ledger", "items")).ensureReady(); // idempotent
        assertEquals("1", q("SELECT count(*) FROM race_ledger.ledger_version"));
    }

    @Test
    void refusesALedgerOfANewerRelease() throws Exception {
        RunLedger ledger = ledger(target("newer_ledger", "items"));
        ledger.ensureReady();
        harness.targetSql("INSERT INTO newer_ledger.ledger_version (version) VALUES (" + (RunLedger.VERSION + 1) + ")");
        ConnectorException e = assertThrows(ConnectorException.class, ledger::ensureReady);
        assertEquals(ErrorKind.PREFLIGHT, e.kind());
        assertEquals(PostgresRunLedger.LEDGER_TOO_NEW, e.code());
        assertTrue(e.getMessage().contains("version " + (RunLedger.VERSION + 1)) && e.getMessage().contains("newer"),
                e.getMessage());
        assertTrue(e.fix().orElseThrow().contains("ledger-schema:"), e.fix().toString());
    }

    @Test
    void recordsStreamsPlansAttemptsAndRestarts() throws Exception {
        Target target = target("sluice", "items");
        RunLedger ledger = ledger(target);
        ledger.ensureReady();
        Instant started = Instant.parse("2026-01-02T03:04:05.123456Z");
        ledger.startStream(new LedgerStream("run-a", "spec-1", "sum1", "orders", "def 1", LedgerStream.State.RUNNING,
                "snapshot 0000-1", started, Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0));
        ledger.recordPlan("run-a", "orders", List.of(planned(0, "p0"), planned(1, "p1"), planned(2, "p2")));
        ledger.recordPlan("run-a", "orders", List.of(planned(0, "other"))); // a second plan adds none
        assertEquals(List.of("p0", "p1", "p2"),
                ledger.partitions("run-a", "orders").stream().map(LedgerPartition::partitionId).toList());

        ledger.recordAttempt(new AttemptRecord("run-a", "orders", "p1", 1, started, started.plusSeconds(1),
                AttemptRecord.Outcome.RETRIED, Optional.of("PG205"), Optional.of("terminated")));
        copyAndCommit(target, "run-a", "orders", "p1", 1, 3, 5);
        LedgerPartition p1 = ledger.partitions("run-a", "orders").get(1);
        assertEquals(new LedgerPartition(1, "p1", "id % 2 = 1", "cp-p1", LedgerPartition.State.DONE, 3, 30, 1), p1);
        assertEquals("1|retried|PG205|terminated", q("SELECT attempt || '|' || outcome || '|' || error_code || '|' "
                + "|| message FROM sluice.run_attempts WHERE run_id = 'run-a'"));

        LedgerStream stream = ledger.findStream("run-a", "orders").orElseThrow();
        assertEquals(LedgerStream.State.RUNNING, stream.state());
        assertEquals(started, stream.startedAt());
        assertEquals(3, stream.partitionsPlanned());
        assertEquals(1, stream.partitionsDone());
        assertEquals("snapshot 0000-1", stream.snapshotMode());

        ledger.finishStream("run-a", "orders", LedgerStream.State.INTERRUPTED, 3, Optional.of("SIGTERM"));
        LedgerStream interrupted = ledger.findStream("run-a", "orders").orElseThrow();
        assertEquals(LedgerStream.State.INTERRUPTED, interrupted.state());
        assertTrue(interrupted.finishedAt().isPresent());
        assertEquals(Optional.of("SIGTERM"), interrupted.error());

        // A resume starts the stream again: the count grows, the first start time and the plan stay.
        ledger.startStream(LedgerStream.starting("run-a", "spec-1", "sum1", "orders", "def 1", "snapshot 0000-2"));
        LedgerStream resumed = ledger.findStream("run-a", "orders").orElseThrow();
        assertEquals(2, resumed.starts());
        assertEquals(LedgerStream.State.RUNNING, resumed.state());
        assertEquals(Optional.empty(), resumed.finishedAt());
        assertEquals(Optional.empty(), resumed.error());
        assertEquals(started, resumed.startedAt());
        assertEquals("snapshot 0000-2", resumed.snapshotMode());

        ConnectorException taken = assertThrows(ConnectorException.class, () -> ledger.startStream(
                LedgerStream.starting("run-a", "another-spec", "x", "orders", "d", "none")));
        assertEquals(PostgresRunLedger.RUN_ID_TAKEN, taken.code());

        ConnectorException notStarted = assertThrows(ConnectorException.class,
                () -> ledger.recordPlan("run-none", "orders", List.of(planned(0, "p0"))));
        assertEquals(PostgresRunLedger.NOT_STARTED, notStarted.code());
    }

    @Test
    void aLedgerNeverCreatedHasNothingRecordedAndABadSchemaNameIsRefused() throws Exception {
        RunLedger never = ledger(target("never_made", "items"));
        assertEquals(Optional.empty(), never.findStream("run", "s"));
        assertEquals(List.of(), never.streamsOfSpec("spec", 10));
        assertEquals(List.of(), never.streamsOfRun("run"));
        assertEquals(List.of(), never.partitions("run", "s"));
        assertEquals("0", q("SELECT count(*) FROM pg_namespace WHERE nspname = 'never_made'"), "reading creates none");
        ConnectorException tooLong = assertThrows(ConnectorException.class,
                () -> ledger(target("x".repeat(64), "items")).ensureReady());
        assertEquals(ErrorKind.INVALID_SPEC, tooLong.kind());
        assertTrue(tooLong.fix().orElseThrow().contains("ledger-schema:"), tooLong.fix().toString());
    }

    @Test
    void listsRunsOfASpecNewestFirst() throws Exception {
        RunLedger ledger = ledger(target("listing", "items"));
        ledger.ensureReady();
        Instant t0 = Instant.parse("2026-03-01T00:00:00Z");
        for (int run = 1; run <= 3; run++) {
            for (String stream : List.of("a", "b")) {
                ledger.startStream(new LedgerStream("r" + run, "spec-l", "c", stream, "d", LedgerStream.State.RUNNING,
                        "none", t0.plusSeconds(run * 100L), Optional.empty(), Optional.empty(), 0, 1,
                        Optional.empty(), 0, 0));
            }
        }
        ledger.startStream(LedgerStream.starting("other", "spec-other", "c", "a", "d", "none"));
        List<LedgerStream> latestTwo = ledger.streamsOfSpec("spec-l", 2);
        assertEquals(List.of("r3/a", "r3/b", "r2/a", "r2/b"),
                latestTwo.stream().map(s -> s.runId() + "/" + s.stream()).toList());
        assertEquals(2, ledger.streamsOfRun("r1").size());
        assertEquals(List.of(), ledger.streamsOfSpec("no-such-spec", 5));
    }

    @Test
    void aPartitionCommitsExactlyOnceWithItsLedgerRow() throws Exception {
        harness.targetSql("CREATE TABLE once (id int, name text)");
        Target target = target("sluice", "once");
        RunLedger ledger = ledger(target);
        ledger.ensureReady();
        ledger.startStream(LedgerStream.starting("run-once", "spec", "c", "s", "d", "none"));
        ledger.recordPlan("run-once", "s", List.of(planned(0, "p0"), planned(1, "p1")));

        // An aborted writer leaves neither rows nor a done row.
        try (PartitionWriter writer = openWriter(target)) {
            write(writer, 100, 101);
            writer.abort();
        }
        assertEquals("0", q("SELECT count(*) FROM once"));
        assertEquals(LedgerPartition.State.PLANNED, ledger.partitions("run-once", "s").get(0).state());

        copyAndCommit(target, "run-once", "s", "p0", 1, 2, 3);
        ConnectorException twice = assertThrows(ConnectorException.class,
                () -> copyAndCommit(target, "run-once", "s", "p0", 1, 2, 3));
        assertEquals(PostgresRunLedger.DUPLICATE_COMMIT, twice.code());
        assertEquals(ErrorKind.FAILED, twice.kind());
        assertFalse(twice.kind().isRetryable());
        assertTrue(twice.getMessage().contains("p0") && twice.getMessage().contains("twice"), twice.getMessage());
        assertEquals("3", q("SELECT count(*) FROM once"));

        // Two writers race to commit the same partition: the row lock makes exactly one win.
        List<Future<String>> outcomes = new ArrayList<>();
        CountDownLatch finished = new CountDownLatch(2);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 2; i++) {
                outcomes.add(pool.submit(() -> {
                    try (PartitionWriter writer = openWriter(target)) {
                        write(writer, 10, 11);
                        long rows = writer.finish();
                        finished.countDown();
                        finished.await();
                        writer.commit(new PartitionDone("run-once", "s", "p1", rows, 0, 1, Instant.now()));
                        return "committed";
                    } catch (ConnectorException e) {
                        return e.code();
                    }
                }));
            }
            List<String> results = new ArrayList<>();
            for (Future<String> f : outcomes) {
                results.add(f.get());
            }
            results.sort(null);
            assertEquals(List.of(PostgresRunLedger.DUPLICATE_COMMIT, "committed"), results);
        }
        assertEquals("5", q("SELECT count(*) FROM once"));
        assertEquals("2", q("SELECT count(*) FROM sluice.run_partitions WHERE run_id = 'run-once' AND state = 'done'"));
        // A partition the plan did not record is still committed once (the ledger row is inserted).
        copyAndCommit(target, "run-once", "s", "unplanned", 7);
        assertEquals(-1, ledger.partitions("run-once", "s").get(2).index());
    }

    @Test
    void truncatesOncePerRunAndStream() throws Exception {
        harness.targetSql("CREATE TABLE emptied (id int, name text)", "INSERT INTO emptied VALUES (1, 'old')");
        RunLedger ledger = ledger(target("sluice", "emptied"));
        ledger.ensureReady();
        ledger.startStream(LedgerStream.starting("run-t", "spec", "c", "s", "d", "none"));
        assertTrue(ledger.truncateOnce("run-t", "s"));
        assertEquals("0", q("SELECT count(*) FROM emptied"));
        assertTrue(ledger.findStream("run-t", "s").orElseThrow().truncatedAt().isPresent());
        harness.targetSql("INSERT INTO emptied VALUES (2, 'copied before the crash')");
        assertFalse(ledger.truncateOnce("run-t", "s"));
        assertEquals("1", q("SELECT count(*) FROM emptied"));
        // Another run truncates again.
        ledger.startStream(LedgerStream.starting("run-u", "spec", "c", "s", "d", "none"));
        assertTrue(ledger.truncateOnce("run-u", "s"));
        assertEquals("0", q("SELECT count(*) FROM emptied"));
    }

    @Test
    void aUserWhoMayNotCreateTheSchemaGetsAPreflightFailureNamingTheWayOut() throws Exception {
        String role = "ledger_limited_" + ProcessHandle.current().pid();
        harness.targetSql("CREATE ROLE " + role + " LOGIN PASSWORD '" + SECRET + "'",
                "CREATE TABLE limited (id int, name text)", "GRANT INSERT, TRUNCATE ON limited TO " + role);
        Target asRole = connector(role, SECRET, "limited_ledger").target(targetTable("limited"));
        ConnectorException create = assertThrows(ConnectorException.class, () -> ledger(asRole).ensureReady());
        assertEquals(ErrorKind.PREFLIGHT, create.kind());
        assertEquals(PostgresRunLedger.LEDGER_UNUSABLE, create.code());
        assertTrue(create.fix().orElseThrow().contains("ledger-schema:")
                && create.fix().orElseThrow().contains("ledger: off"), create.fix().toString());

        // An administrator creates the ledger; without grants the user is told which ones are missing.
        ledger(target("limited_ledger", "limited")).ensureReady();
        harness.targetSql("GRANT USAGE ON SCHEMA limited_ledger TO " + role);
        ConnectorException grants = assertThrows(ConnectorException.class, () -> ledger(asRole).ensureReady());
        assertEquals(ErrorKind.PREFLIGHT, grants.kind());
        assertTrue(grants.getMessage().contains("INSERT ON TABLE \"limited_ledger\".run_partitions"),
                grants.getMessage());
        assertTrue(grants.fix().orElseThrow().contains("GRANT SELECT ON TABLE \"limited_ledger\".run_streams TO")
                && grants.fix().orElseThrow().contains("ledger: off"), grants.fix().toString());

        // With the grants, a user without CREATE uses the ledger an administrator made (no DDL on the way).
        harness.targetSql("GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA limited_ledger TO " + role);
        RunLedger ledger = ledger(asRole);
        ledger.ensureReady();
        ledger.startStream(LedgerStream.starting("run-l", "spec", "c", "s", "d", "none"));
        ledger.recordPlan("run-l", "s", List.of(planned(0, "p0")));
        copyAndCommit(asRole, "run-l", "s", "p0", 1);
        ledger.recordAttempt(new AttemptRecord("run-l", "s", "p0", 1, Instant.now(), Instant.now(),
                AttemptRecord.Outcome.FAILED, Optional.empty(), Optional.empty()));
        assertTrue(ledger.truncateOnce("run-l", "s"));
    }

    @Test
    void ledgerRowsNeverHoldSecrets() throws Exception {
        String url = harness.server.jdbcUrl(harness.targetDb);
        Target target = target("secretless", "items");
        RunLedger ledger = ledger(target);
        ledger.ensureReady();
        // The runner redacts; if it ever slipped, the connection's own secrets are still scrubbed here.
        String password = harness.server.password();
        String leaky = "url " + url + " password " + (password.length() >= 3 ? password : "");
        ledger.startStream(LedgerStream.starting("run-s", "spec", "c", "s", leaky, "none"));
        ledger.recordAttempt(new AttemptRecord("run-s", "s", "p0", 1, Instant.now(), Instant.now(),
                AttemptRecord.Outcome.FAILED, Optional.of("PG201"), Optional.of("cannot connect to " + url)));
        ledger.finishStream("run-s", "s", LedgerStream.State.FAILED, 0, Optional.of("failed at " + url));
        String everything = q("SELECT string_agg(t::text, E'\\n') FROM (SELECT r::text AS t FROM secretless.run_streams r "
                + "UNION ALL SELECT a::text FROM secretless.run_attempts a "
                + "UNION ALL SELECT p::text FROM secretless.run_partitions p) AS x");
        assertFalse(everything.contains(url), everything);
        assertFalse(everything.contains("jdbc:postgresql"), everything);
        if (password.length() >= 3) {
            assertFalse(everything.contains(password), everything);
        }
        assertTrue(everything.contains("***"), everything);
    }
}

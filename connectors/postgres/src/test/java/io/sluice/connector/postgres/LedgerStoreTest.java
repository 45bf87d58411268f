package io.sluice.connector.postgres;

import io.sluice.connector.postgres.ledger.PostgresLedgerStore;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;
import io.sluice.testkit.LedgerWrites;

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

/**
 * PostgreSQL's ledger store against a real server: creation and versions, a ledger never created, schema names,
 * permissions, secrets. The store contract is {@link PostgresLedgerStoreContractTest}'s; the rules on top of it are
 * the core's (runner-app's LedgerRulesTest).
 */
class LedgerStoreTest {
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
        return connector(harness.server.user(), harness.server.password(), ledgerSchema).targets().orElseThrow()
                .open(targetTable(table));
    }

    private static LedgerStore ledger(Target target) {
        return target.ledgerStore().orElseThrow();
    }

    private static String q(String sql) throws Exception {
        return harness.query(harness.targetDb, sql);
    }

    private static LedgerPartition planned(int index, String id) {
        return LedgerPartition.planned(index, id, "id % 2 = " + index, "cp-" + id);
    }

    /** Writes {@code ids} through a writer and commits them with {@code withRows}. */
    private static void copyAndCommit(Target target, LedgerWork<?> withRows, int... ids) throws Exception {
        try (PartitionWriter writer = openWriter(target)) {
            write(writer, ids);
            writer.finish();
            writer.ledgeredCommit().orElseThrow().commit(withRows);
        }
    }

    private static PartitionWriter openWriter(Target target) throws ConnectorException {
        List<Column> columns = target.table().columns();
        return ContractSource.appendTo(target).openWriter(columns, CopyFormat.TEXT);
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
                LedgerStore ledger = ledger(target("race_ledger", "items"));
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
        assertEquals("1,2,3,4,5,6,7", q("SELECT string_agg(version::text, ',' ORDER BY version) FROM race_ledger.ledger_version"));
        assertEquals("change_feed_tables,change_feeds,ledger_version,run_attempts,run_marks,run_partitions,run_streams", q("SELECT string_agg("
                + "tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'race_ledger'"));
        ledger(target("race_ledger", "items")).ensureReady(); // idempotent
        assertEquals("7", q("SELECT count(*) FROM race_ledger.ledger_version"));
    }

    @Test
    void upgradesALedgerOfTheFirstReleaseKeepingWhatItRecorded() throws Exception {
        // A version-1 ledger, as the release before marks and claims left it: rows recorded, then the later
        // versions' steps taken back (version 1's DDL is unchanged).
        LedgerStore ledger = ledger(target("v1_ledger", "items"));
        ledger.ensureReady();
        StreamKey key = new StreamKey("run-v1", "s");
        LedgerWrites.insertStream(ledger, LedgerStream.starting("run-v1", "spec", "c", "s", "d", "none"));
        LedgerWrites.plan(ledger, key, List.of(planned(0, "p0")));
        harness.targetSql("DROP TABLE v1_ledger.run_marks", "DROP TABLE v1_ledger.change_feeds", "DROP TABLE v1_ledger.change_feed_tables",
                "ALTER TABLE v1_ledger.run_partitions DROP COLUMN claimed_by, DROP COLUMN lease_until, "
                        + "DROP COLUMN rows_rejected",
                "DELETE FROM v1_ledger.ledger_version WHERE version > 1");

        LedgerStore upgraded = ledger(target("v1_ledger", "items"));
        upgraded.ensureReady();
        assertEquals("1,2,3,4,5,6,7", q("SELECT string_agg(version::text, ',' ORDER BY version) FROM v1_ledger.ledger_version"));
        assertEquals(1, upgraded.streamsOfRun("run-v1").size(), "the stream recorded before the upgrade");
        assertEquals(List.of(planned(0, "p0")), upgraded.partitions(key), "its plan");
        assertEquals(Map.of(), upgraded.marks(key));
        upgraded.inTransaction(tx -> {
            tx.writeMark(key, "created", "true");
            return null;
        });
        assertEquals(Map.of("created", "true"), upgraded.marks(key), "the new table works");
        LedgerPartition claimed = upgraded.inTransaction(tx -> {
            LedgerPartition p = tx.lockNextClaimable(key, tx.now()).orElseThrow();
            LedgerPartition held = p.claimedBy(new PartitionClaim("1@host", LedgerWrites.now().plusSeconds(30)));
            tx.writePartitions(key, List.of(held));
            return held;
        });
        assertEquals(List.of(claimed), upgraded.partitions(key), "and the new columns");
    }

    @Test
    void upgradesALedgerOfTheCurrentReleaseToRowsSetAsideKeepingItsPartitions() throws Exception {
        // A version-4 ledger (the release before rejects:) with a done partition: version 5 adds rows_rejected.
        LedgerStore ledger = ledger(target("v4_ledger", "items"));
        ledger.ensureReady();
        StreamKey key = new StreamKey("run-v4", "s");
        LedgerWrites.insertStream(ledger, LedgerStream.starting("run-v4", "spec", "c", "s", "d", "none"));
        LedgerWrites.plan(ledger, key, List.of(planned(0, "p0"), planned(1, "p1")));
        harness.targetSql("ALTER TABLE v4_ledger.run_partitions DROP COLUMN rows_rejected",
                "DROP TABLE v4_ledger.change_feeds", "DROP TABLE v4_ledger.change_feed_tables",
                "UPDATE v4_ledger.run_partitions SET state = 'done', row_count = 42 WHERE partition_id = 'p0'",
                "DELETE FROM v4_ledger.ledger_version WHERE version > 4");

        LedgerStore upgraded = ledger(target("v4_ledger", "items"));
        upgraded.ensureReady();
        assertEquals("1,2,3,4,5,6,7", q("SELECT string_agg(version::text, ',' ORDER BY version) FROM v4_ledger.ledger_version"));
        List<LedgerPartition> partitions = upgraded.partitions(key);
        assertEquals(42, partitions.get(0).rows(), "what it recorded before");
        assertEquals(0, partitions.get(0).rejected(), "a partition of before set nothing aside");
        LedgerPartition done = new LedgerPartition(1, "p1", partitions.get(1).predicate(),
                partitions.get(1).checkpoint(), LedgerPartition.State.DONE, 990, 1000, 1, Optional.empty(),
                Optional.empty(), Optional.empty(), 10);
        upgraded.inTransaction(tx -> {
            tx.writePartitions(key, List.of(done));
            return null;
        });
        assertEquals(10, upgraded.partitions(key).get(1).rejected(), "and the new column works");
    }

    @Test
    void upgradesALedgerOfTheCurrentReleaseToChangeFeedsKeepingWhatItRecorded() throws Exception {
        // A version-5 ledger (the release before changes:) with a done partition: version 6 adds change_feeds.
        LedgerStore ledger = ledger(target("v5_ledger", "items"));
        ledger.ensureReady();
        StreamKey key = new StreamKey("run-v5", "s");
        LedgerWrites.insertStream(ledger, LedgerStream.starting("run-v5", "spec", "c", "s", "d", "none"));
        LedgerWrites.plan(ledger, key, List.of(planned(0, "p0")));
        harness.targetSql("DROP TABLE v5_ledger.change_feeds", "DROP TABLE v5_ledger.change_feed_tables",
                "UPDATE v5_ledger.run_partitions SET state = 'done', row_count = 42, rows_rejected = 3",
                "DELETE FROM v5_ledger.ledger_version WHERE version > 5");
        assertEquals(List.of(), ledger.changeFeeds("spec"), "a ledger without the table has no feeds");

        LedgerStore upgraded = ledger(target("v5_ledger", "items"));
        upgraded.ensureReady();
        assertEquals("1,2,3,4,5,6,7", q("SELECT string_agg(version::text, ',' ORDER BY version) FROM "
                + "v5_ledger.ledger_version"));
        assertEquals(42, upgraded.partitions(key).get(0).rows(), "what it recorded before");
        assertEquals(3, upgraded.partitions(key).get(0).rejected());
        io.sluice.spi.ledger.ChangeFeedRecord copying = new io.sluice.spi.ledger.ChangeFeedRecord("spec", "slot_a",
                io.sluice.spi.ledger.ChangeFeedRecord.State.COPYING, "0/16B3748", "run-v5");
        upgraded.inTransaction(tx -> {
            assertEquals(Optional.empty(), tx.changeFeedRows().orElseThrow().lockChangeFeed("spec", "slot_a"));
            tx.changeFeedRows().orElseThrow().writeChangeFeed(copying);
            return null;
        });
        upgraded.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().writeChangeFeed(tx.changeFeedRows().orElseThrow().lockChangeFeed("spec", "slot_a").orElseThrow().at(
                    io.sluice.spi.ledger.ChangeFeedRecord.State.APPLYING, "0/16B37F0", "run-v6"));
            return null;
        });
        io.sluice.spi.ledger.ChangeFeedRecord applying = upgraded.changeFeeds("spec").getFirst();
        assertEquals(List.of("slot_a", "APPLYING", "0/16B37F0", "run-v6"), List.of(applying.feed(),
                applying.state().name(), applying.position(), applying.runId()), "and the new table works");
        upgraded.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().deleteChangeFeed("spec", "slot_a");
            return null;
        });
        assertEquals(List.of(), upgraded.changeFeeds("spec"));
    }

    @Test
    void upgradesALedgerOfTheCurrentReleaseToTablePositionsKeepingItsFeeds() throws Exception {
        // A version-6 ledger (the release before tables applied apart) following a feed: version 7 adds
        // change_feed_tables.
        LedgerStore ledger = ledger(target("v6_ledger", "items"));
        ledger.ensureReady();
        io.sluice.spi.ledger.ChangeFeedRecord applying = new io.sluice.spi.ledger.ChangeFeedRecord("spec", "slot_b",
                io.sluice.spi.ledger.ChangeFeedRecord.State.APPLYING, "0/16B3748", "run-v6");
        ledger.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().writeChangeFeed(applying);
            return null;
        });
        harness.targetSql("DROP TABLE v6_ledger.change_feed_tables",
                "DELETE FROM v6_ledger.ledger_version WHERE version > 6");
        assertEquals(Map.of(), ledger.changeFeedTables("spec", "slot_b"), "a ledger without the table has none");

        LedgerStore upgraded = ledger(target("v6_ledger", "items"));
        upgraded.ensureReady();
        assertEquals("1,2,3,4,5,6,7", q("SELECT string_agg(version::text, ',' ORDER BY version) FROM "
                + "v6_ledger.ledger_version"));
        assertEquals("0/16B3748", upgraded.changeFeeds("spec").getFirst().position(), "the feed recorded before");
        upgraded.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().writeChangeFeedTables("spec", "slot_b", Map.of("public.a", "0/16B3800", "public.b", "0/16B3900"));
            tx.changeFeedRows().orElseThrow().writeChangeFeedTables("spec", "slot_b", Map.of("public.a", "0/16B3A00"));
            return null;
        });
        assertEquals(Map.of("public.a", "0/16B3A00", "public.b", "0/16B3900"),
                upgraded.changeFeedTables("spec", "slot_b"), "the new table works, a table's position moves");
        upgraded.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().deleteChangeFeedTables("spec", "slot_b");
            return null;
        });
        assertEquals(Map.of(), upgraded.changeFeedTables("spec", "slot_b"));
        upgraded.inTransaction(tx -> {
            tx.changeFeedRows().orElseThrow().writeChangeFeedTables("spec", "slot_b", Map.of("public.a", "0/16B3B00"));
            tx.changeFeedRows().orElseThrow().deleteChangeFeed("spec", "slot_b");
            return null;
        });
        assertEquals(Map.of(), upgraded.changeFeedTables("spec", "slot_b"), "a dropped feed takes its tables along");
    }

    @Test
    void refusesALedgerOfANewerRelease() throws Exception {
        LedgerStore ledger = ledger(target("newer_ledger", "items"));
        ledger.ensureReady();
        harness.targetSql("INSERT INTO newer_ledger.ledger_version (version) VALUES (" + (LedgerStore.VERSION + 1) + ")");
        ConnectorException e = assertThrows(ConnectorException.class, ledger::ensureReady);
        assertEquals(ErrorKind.PREFLIGHT, e.kind());
        assertEquals(PostgresLedgerStore.LEDGER_TOO_NEW, e.code());
        assertTrue(e.getMessage().contains("version " + (LedgerStore.VERSION + 1)) && e.getMessage().contains("newer"),
                e.getMessage());
        assertTrue(e.fix().orElseThrow().contains("ledger-schema:"), e.fix().toString());
    }

    @Test
    void aLedgerNeverCreatedHasNothingRecordedAndABadSchemaNameIsRefused() throws Exception {
        LedgerStore never = ledger(target("never_made", "items"));
        assertEquals(List.of(), never.streamsOfSpec("spec", 10));
        assertEquals(List.of(), never.streamsOfRun("run"));
        assertEquals(List.of(), never.partitions(new StreamKey("run", "s")));
        assertEquals(List.of(), never.attempts(new StreamKey("run", "s")));
        assertEquals("0", q("SELECT count(*) FROM pg_namespace WHERE nspname = 'never_made'"), "reading creates none");
        ConnectorException tooLong = assertThrows(ConnectorException.class,
                () -> ledger(target("x".repeat(64), "items")).ensureReady());
        assertEquals(ErrorKind.INVALID_SPEC, tooLong.kind());
        assertTrue(tooLong.fix().orElseThrow().contains("ledger-schema:"), tooLong.fix().toString());
    }

    @Test
    void listsRunsOfASpecNewestFirst() throws Exception {
        LedgerStore ledger = ledger(target("listing", "items"));
        ledger.ensureReady();
        Instant t0 = Instant.parse("2026-03-01T00:00:00Z");
        for (int run = 1; run <= 3; run++) {
            for (String stream : List.of("a", "b")) {
                LedgerWrites.insertStream(ledger, new LedgerStream("r" + run, "spec-l", "c", stream, "d", LedgerStream.State.RUNNING,
                        "none", t0.plusSeconds(run * 100L), Optional.empty(), Optional.empty(), 0, 1,
                        Optional.empty(), 0, 0));
            }
        }
        LedgerWrites.insertStream(ledger, LedgerStream.starting("other", "spec-other", "c", "a", "d", "none"));
        List<LedgerStream> latestTwo = ledger.streamsOfSpec("spec-l", 2);
        assertEquals(List.of("r3/a", "r3/b", "r2/a", "r2/b"),
                latestTwo.stream().map(s -> s.runId() + "/" + s.stream()).toList());
        assertEquals(2, ledger.streamsOfRun("r1").size());
        assertEquals(List.of(), ledger.streamsOfSpec("no-such-spec", 5));
    }

    @Test
    void aUserWhoMayNotCreateTheSchemaGetsAPreflightFailureNamingTheWayOut() throws Exception {
        String role = "ledger_limited_" + ProcessHandle.current().pid();
        harness.targetSql("CREATE ROLE " + role + " LOGIN PASSWORD '" + SECRET + "'",
                "CREATE TABLE limited (id int, name text)", "GRANT INSERT, TRUNCATE ON limited TO " + role);
        Target asRole = connector(role, SECRET, "limited_ledger").targets().orElseThrow().open(targetTable("limited"));
        ConnectorException create = assertThrows(ConnectorException.class, () -> ledger(asRole).ensureReady());
        assertEquals(ErrorKind.PREFLIGHT, create.kind());
        assertEquals(PostgresLedgerStore.LEDGER_UNUSABLE, create.code());
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

        // With the grants, a user without CREATE uses the ledger an administrator made (no DDL on the way): every
        // kind of row a run writes, in the store's transactions and in the writer's and the truncation's.
        harness.targetSql("GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA limited_ledger TO " + role);
        LedgerStore ledger = ledger(asRole);
        ledger.ensureReady();
        StreamKey key = new StreamKey("run-l", "s");
        LedgerWrites.insertStream(ledger, LedgerStream.starting("run-l", "spec", "c", "s", "d", "none"));
        ledger.inTransaction(tx -> {
            tx.writePartitions(key, List.of(planned(0, "p0")));
            tx.insertAttempt(new AttemptRecord("run-l", "s", "p0", 1, Instant.now(), Instant.now(),
                    AttemptRecord.Outcome.FAILED, Optional.empty(), Optional.empty()));
            return null;
        });
        copyAndCommit(asRole, LedgerWrites.markDone(key, "p0", 1), 1);
        assertTrue(ContractSource.appendTo(asRole).ledgeredTruncate().orElseThrow().truncate(LedgerWrites.recordTruncation(key)));
        assertEquals(LedgerPartition.State.DONE, ledger.partitions(key).get(0).state());
    }

    @Test
    void ledgerRowsNeverHoldSecrets() throws Exception {
        String url = harness.server.jdbcUrl(harness.targetDb);
        Target target = target("secretless", "items");
        LedgerStore ledger = ledger(target);
        ledger.ensureReady();
        // The runner redacts; if it ever slipped, the connection's own secrets are still scrubbed here.
        String password = harness.server.password();
        String leaky = "url " + url + " password " + (password.length() >= 3 ? password : "");
        StreamKey key = new StreamKey("run-s", "s");
        LedgerWrites.insertStream(ledger, LedgerStream.starting("run-s", "spec", "c", "s", leaky, "none"));
        ledger.inTransaction(tx -> {
            tx.insertAttempt(new AttemptRecord("run-s", "s", "p0", 1, Instant.now(), Instant.now(),
                    AttemptRecord.Outcome.FAILED, Optional.of("PG201"), Optional.of("cannot connect to " + url)));
            tx.writePartitions(key, List.of(LedgerPartition.planned(0, "p0", "id > 0 -- " + url, "")));
            LedgerStream s = tx.lockStream(key).orElseThrow();
            tx.updateStream(new LedgerStream(s.runId(), s.specName(), s.specChecksum(), s.stream(), s.definition(),
                    LedgerStream.State.FAILED, s.snapshotMode(), s.startedAt(), Optional.of(Instant.now()),
                    s.truncatedAt(), 0, s.starts(), Optional.of("failed at " + url), 0, 0));
            return null;
        });
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

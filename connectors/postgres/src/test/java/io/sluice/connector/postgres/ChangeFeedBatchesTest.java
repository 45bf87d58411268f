package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.changes.ChangeSlot;
import io.sluice.connector.postgres.changes.PostgresChangeFeed;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.testkit.TestingPostgres;
import io.sluice.toolkit.Redactor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A feed's batches are bounded by bytes as well as by changes: wide rows do not fill memory. */
class ChangeFeedBatchesTest {
    private static TestingPostgres server;

    @BeforeAll
    static void start() {
        server = TestingPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "4",
                "max_wal_senders", "4"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aTransactionOfWideRowsComesInPartsOfAboutTheByteLimitAndSmallOnesWhole() throws Exception {
        String database = server.createDatabase("feed_bytes");
        String from;
        long oid;
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE wide (id int PRIMARY KEY, body text)");
            s.execute("CREATE PUBLICATION feed_bytes FOR TABLE wide");
            try (ResultSet rs = s.executeQuery("SELECT lsn::text FROM pg_create_logical_replication_slot("
                    + "'feed_bytes', 'pgoutput')")) {
                rs.next();
                from = rs.getString(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT 'wide'::regclass::oid")) {
                rs.next();
                oid = rs.getLong(1);
            }
            // One transaction of 40 rows of 200 kB each (8 MB), then two small ones.
            s.execute("INSERT INTO wide SELECT g, repeat('x', 200000) FROM generate_series(1, 40) g");
            s.execute("INSERT INTO wide VALUES (41, 'small')");
            s.execute("UPDATE wide SET body = 'smaller' WHERE id = 41");
        }
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        PostgresConnections connections = new PostgresConnections(() -> server.jdbcUrl(database), properties,
                new PostgresErrors(Redactor.none()));
        List<ChangeBatch> batches = new ArrayList<>();
        long maxBytes = 1 << 20;
        try (PostgresChangeFeed feed = PostgresChangeFeed.open(connections, new ChangeSlot("feed_bytes",
                "feed_bytes"), from, List.of(new ResolvedTable(oid, "public", "wide", 'r')))) {
            int changes = 0;
            while (changes < 42) {
                ChangeBatch batch = feed.next(1_000, maxBytes, Duration.ofSeconds(10));
                assertFalse(batch.isEmpty(), "the changes did not come: " + batches);
                batches.add(batch);
                changes += batch.changes().size();
            }
        }
        // 1 MB holds 5 rows of 200 kB; the sixth ends a part.
        List<ChangeBatch> parts = batches.stream().filter(ChangeBatch::partial).toList();
        assertEquals(6, parts.size(), batches.toString());
        parts.forEach(p -> assertEquals(6, p.changes().size(), p.toString()));
        // The big transaction's last 4 rows end it, and the two small transactions come whole.
        List<ChangeBatch> whole = batches.stream().filter(b -> !b.partial()).toList();
        assertEquals(6, whole.stream().mapToInt(b -> b.changes().size()).sum(), whole.toString());
        assertEquals(3, whole.stream().mapToInt(ChangeBatch::transactions).sum(), whole.toString());
        assertTrue(batches.indexOf(parts.getLast()) < batches.indexOf(whole.getFirst()), batches.toString());
        // The batch that ends the big transaction cannot tell where its first transaction began: applied as one.
        assertFalse(whole.getFirst().toldApart(), whole.toString());
    }

    @Test
    void aBatchOfWholeTransactionsTellsWhereEachEnds() throws Exception {
        String database = server.createDatabase("feed_commits");
        String from;
        long oid;
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY)");
            s.execute("CREATE PUBLICATION feed_commits FOR TABLE t");
            try (ResultSet rs = s.executeQuery("SELECT lsn::text FROM pg_create_logical_replication_slot("
                    + "'feed_commits', 'pgoutput')")) {
                rs.next();
                from = rs.getString(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT 't'::regclass::oid")) {
                rs.next();
                oid = rs.getLong(1);
            }
            s.execute("INSERT INTO t VALUES (1)");
            s.execute("INSERT INTO t VALUES (2), (3)");
            s.execute("INSERT INTO t VALUES (4), (5), (6)");
        }
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        properties.setProperty("password", server.password());
        PostgresConnections connections = new PostgresConnections(() -> server.jdbcUrl(database), properties,
                new PostgresErrors(Redactor.none()));
        List<ChangeBatch.Commit> commits = new ArrayList<>();
        try (PostgresChangeFeed feed = PostgresChangeFeed.open(connections, new ChangeSlot("feed_commits",
                "feed_commits"), from, List.of(new ResolvedTable(oid, "public", "t", 'r')))) {
            int changes = 0;
            while (changes < 6) {
                ChangeBatch batch = feed.next(1_000, 1 << 20, Duration.ofSeconds(10));
                assertFalse(batch.isEmpty(), "the changes did not come: " + commits);
                assertTrue(batch.toldApart(), batch.toString());
                for (ChangeBatch.Commit commit : batch.commits()) {
                    commits.add(new ChangeBatch.Commit(changes + commit.changes(), commit.end()));
                }
                changes += batch.changes().size();
            }
            assertEquals(List.of(1, 3, 6), commits.stream().map(ChangeBatch.Commit::changes).toList());
            java.util.Comparator<String> order = feed.positionOrder().orElseThrow();
            assertTrue(order.compare(commits.get(0).end(), commits.get(1).end()) < 0, commits.toString());
            assertTrue(order.compare(commits.get(1).end(), commits.get(2).end()) < 0, commits.toString());
        }
    }
}

package io.sluice.connector.postgres;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.read.PgPartition;

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

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceQuery;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Partitions restored from their checkpoints read what they read when planned, and portable predicates. */
class CheckpointTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("checkpoint");
        harness.sourceSql("CREATE TABLE keyed (id int NOT NULL, k text, ts timestamptz, n numeric)",
                "INSERT INTO keyed SELECT g, CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN 'plain' "
                        + "WHEN 2 THEN E'it''s; $$ \\\\ \\u00e9\\u6f22 :12:, \"q\"' WHEN 3 THEN E'line\\nbreak,3:x,' "
                        + "ELSE '''); DROP TABLE keyed; --' END, "
                        + "timestamptz '2026-01-01 00:00:00+00' + g * interval '1 hour', g / 7.0 "
                        + "FROM generate_series(1, 500) AS g");
    }

    private static Set<Integer> ids(SourcePartition partition) throws Exception {
        Set<Integer> ids = new HashSet<>();
        try (Connection c = harness.server.connect(harness.sourceDb); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(((PgPartition) partition).select("id"))) {
            while (rs.next()) {
                assertTrue(ids.add(rs.getInt(1)), "row read twice within " + partition.id());
            }
        }
        return ids;
    }

    private static long readRows(Source source, SourcePartition partition) throws Exception {
        SourceProjection projection = source.project(source.columns().stream().map(c -> new ColumnPair(c, c))
                .toList());
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT);
             PartitionReader reader = session.openReader(partition, projection)) {
            return reader.transferTo((buffer, offset, length) -> { });
        }
    }

    @Test
    void ctidPartitionsRestoredAfterTheTableGrewReadTheSameRowsPlusOnlyTheNewTail() throws Exception {
        harness.sourceSql("CREATE TABLE grows (id int, pad text)",
                "INSERT INTO grows SELECT g, repeat('x', 100) FROM generate_series(1, 20000) AS g");
        Source planned = harness.sourceConnector.sources().orElseThrow().open(sourceTable("grows"));
        PlanRequest request = new PlanRequest(distribution(DistributionMethod.CTID, null), 4, 5000);
        List<SourcePartition> partitions = planned.plan(request);
        assertTrue(partitions.size() >= 4, partitions.toString());
        List<String> checkpoints = partitions.stream().map(p -> p.checkpoint().orElseThrow()).toList();
        List<Set<Integer>> before = new ArrayList<>();
        for (SourcePartition partition : partitions) {
            before.add(ids(partition));
            assertEquals(Optional.empty(), partition.portablePredicate(), "ctid is not portable");
        }

        harness.sourceSql("INSERT INTO grows SELECT g, repeat('x', 100) FROM generate_series(20001, 60000) AS g");

        // A fresh plan of the grown table splits elsewhere: resuming with it would read rows twice or never.
        Source resumed = harness.sourceConnector.sources().orElseThrow().open(sourceTable("grows"));
        assertNotEquals(partitions.stream().map(SourcePartition::predicate).toList(),
                resumed.plan(request).stream().map(SourcePartition::predicate).toList());
        List<SourcePartition> restored = new ArrayList<>();
        for (String checkpoint : checkpoints) {
            restored.add(resumed.restore(checkpoint).orElseThrow());
        }
        assertEquals(partitions, restored);
        assertEquals(partitions.stream().map(SourcePartition::predicate).toList(),
                restored.stream().map(SourcePartition::predicate).toList());

        // Earlier block ranges are full and read exactly what they did; new rows go to new blocks at the end,
        // which only the open-ended last range (ctid >= '(a,0)') admits.
        Set<Integer> added = new HashSet<>();
        for (int id = 20001; id <= 60000; id++) {
            added.add(id);
        }
        Set<Integer> all = new HashSet<>();
        long total = 0;
        for (int i = 0; i < restored.size(); i++) {
            Set<Integer> after = ids(restored.get(i));
            Set<Integer> expected = new HashSet<>(before.get(i));
            if (i == restored.size() - 1) {
                assertTrue(restored.get(i).predicate().startsWith("ctid >= "), restored.get(i).predicate());
                expected.addAll(added);
            }
            assertEquals(expected, after, "rows of restored partition " + restored.get(i).id());
            assertEquals(after.size(), readRows(resumed, restored.get(i)), "reader of " + restored.get(i).id());
            all.addAll(after);
            total += after.size();
        }
        assertEquals(60000, all.size());
        assertEquals(60000, total, "no row in two partitions");
    }

    @Test
    void everyMethodRoundTripsHostileKeysAndSaysWhatIsPortable() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("keyed"));
        for (Distribution distribution : List.of(
                distribution(DistributionMethod.NONE, null),
                distribution(DistributionMethod.RANGE, "id"),
                distribution(DistributionMethod.RANGE, "ts"),
                distribution(DistributionMethod.NTILE, "n"),
                distribution(DistributionMethod.MODULO, "k"),
                distribution(DistributionMethod.DATA_DRIVEN, "k"),
                new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("k"),
                        Optional.of("SELECT 'plain' UNION ALL SELECT E'line\\nbreak,3:x,'")))) {
            List<SourcePartition> partitions = source.plan(new PlanRequest(distribution, 3, 100));
            Set<Integer> seen = new HashSet<>();
            Source resumed = harness.sourceConnector.sources().orElseThrow().open(sourceTable("keyed"));
            for (SourcePartition partition : partitions) {
                SourcePartition back = resumed.restore(partition.checkpoint().orElseThrow()).orElseThrow();
                assertEquals(partition, back, distribution.method() + " " + partition.id());
                String portable = partition.portablePredicate().orElseThrow(
                        () -> new AssertionError(distribution.method() + " should be portable"));
                assertEquals(distribution.method() == DistributionMethod.NONE ? "true"
                        : ((PgPartition) partition).where().orElseThrow(), portable);
                // The portable condition selects the partition's rows from the table by column names alone.
                Set<Integer> byPortable = new HashSet<>();
                try (Connection c = harness.server.connect(harness.sourceDb); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT id FROM keyed WHERE " + portable)) {
                    while (rs.next()) {
                        byPortable.add(rs.getInt(1));
                    }
                }
                Set<Integer> read = ids(back);
                assertEquals(read, byPortable, partition.id());
                for (int id : read) {
                    assertTrue(seen.add(id), "row " + id + " in two partitions");
                }
            }
            assertEquals(500, seen.size(), distribution.toString());
        }
        assertEquals("500", harness.query(harness.sourceDb, "SELECT count(*) FROM keyed"), "the table survived");
    }

    @Test
    void conditionsOnSystemColumnsAreNotPortable() throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("keyed"));
        List<SourcePartition> partitions = source.plan(new PlanRequest(
                distribution(DistributionMethod.MODULO, "(ctid::text)"), 2, 100));
        assertTrue(partitions.stream().allMatch(p -> p.portablePredicate().isEmpty()), partitions.toString());
        harness.sourceSql("CREATE TABLE parent (id int, v text) PARTITION BY RANGE (id)",
                "CREATE TABLE child_a PARTITION OF parent FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE child_b PARTITION OF parent FOR VALUES FROM (100) TO (200)",
                "INSERT INTO parent SELECT g, 'v' FROM generate_series(0, 199) AS g");
        Source parent = harness.sourceConnector.sources().orElseThrow().open(sourceTable("parent"));
        List<SourcePartition> members = parent.plan(new PlanRequest(distribution(DistributionMethod.CTID, null), 2,
                100));
        Source resumed = harness.sourceConnector.sources().orElseThrow().open(sourceTable("parent"));
        for (SourcePartition member : members) {
            assertEquals(Optional.empty(), member.portablePredicate());
            assertEquals(member, resumed.restore(member.checkpoint().orElseThrow()).orElseThrow());
        }
    }

    @Test
    void aCheckpointOfAnotherRelationOrADamagedOneIsRefused() throws Exception {
        harness.sourceSql("CREATE TABLE other (id int)");
        SourcePartition partition = harness.sourceConnector.sources().orElseThrow().open(sourceTable("keyed"))
                .plan(new PlanRequest(distribution(DistributionMethod.RANGE, "id"), 2, 100)).get(0);
        String checkpoint = partition.checkpoint().orElseThrow();

        ConnectorException otherTable = assertThrows(ConnectorException.class,
                () -> harness.sourceConnector.sources().orElseThrow().open(sourceTable("other")).restore(checkpoint));
        assertEquals(ErrorKind.INVALID_SPEC, otherTable.kind());
        assertEquals(PostgresCode.PG313.name(), otherTable.code());
        assertTrue(otherTable.getMessage().contains("\"public\".\"keyed\"")
                && otherTable.getMessage().contains("\"public\".\"other\""), otherTable.getMessage());

        Source query = harness.sourceConnector.sources().orElseThrow()
                .open(sourceQuery("SELECT * FROM keyed WHERE k <> 'query-only-value'"));
        SourcePartition queryPartition = query.plan(new PlanRequest(distribution(DistributionMethod.RANGE, "id"), 2,
                100)).get(0);
        String queryCheckpoint = queryPartition.checkpoint().orElseThrow();
        assertFalse(queryCheckpoint.contains("query-only-value"), "a query's text stays out of the ledger");
        assertEquals(queryPartition, harness.sourceConnector.sources().orElseThrow().open(
                sourceQuery("SELECT * FROM keyed WHERE k <> 'query-only-value'")).restore(queryCheckpoint).orElseThrow());
        ConnectorException otherQuery = assertThrows(ConnectorException.class, () -> harness.sourceConnector
                .sources().orElseThrow()
                        .open(sourceQuery("SELECT * FROM keyed WHERE k <> 'changed'")).restore(queryCheckpoint));
        assertTrue(otherQuery.getMessage().contains("another query"), otherQuery.getMessage());
        ConnectorException tableAsQuery = assertThrows(ConnectorException.class, () -> query.restore(checkpoint));
        assertTrue(tableAsQuery.getMessage().contains("this source reads a query"), tableAsQuery.getMessage());

        Source keyed = harness.sourceConnector.sources().orElseThrow().open(sourceTable("keyed"));
        for (String damaged : List.of("", "ctid:0-10", checkpoint.substring(0, checkpoint.length() - 3),
                checkpoint.replace(PgPartition.CHECKPOINT_PREFIX, PgPartition.CHECKPOINT_PREFIX + "x"),
                checkpoint + "1:x,")) {
            ConnectorException e = assertThrows(ConnectorException.class, () -> keyed.restore(damaged), damaged);
            assertEquals(PostgresCode.PG313.name(), e.code());
        }
    }
}

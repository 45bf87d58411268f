package io.sluice.connector.postgres;

import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.SourcePartition;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Odd names, empty and mostly-dead tables, partitions and inheritance, generated targets, snapshots. */
class TableShapesTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() {
        harness = new CopyHarness("shapes");
    }

    @Test
    void identifiersWithCaseSpacesQuotesDotsAndNonAscii() throws Exception {
        String ddl = "CREATE TABLE \"Odd Schema\".\"Weird \"\"Table\"\".v1\" (\"MixedCase\" int, \"with space\" text, "
                + "\"quo\"\"te\" text, \"dot.ted\" int, \u00fcn\u00efc\u00f8d\u00e9 text, plain int)";
        harness.bothSql("CREATE SCHEMA \"Odd Schema\"", ddl);
        harness.sourceSql("INSERT INTO \"Odd Schema\".\"Weird \"\"Table\"\".v1\" SELECT g, 'v' || (g % 5), "
                + "'q\"' || g, g % 3, '\u00e9t\u00e9' || (g % 4), g FROM generate_series(1, 500) AS g",
                "INSERT INTO \"Odd Schema\".\"Weird \"\"Table\"\".v1\" VALUES (NULL, NULL, NULL, NULL, NULL, NULL)");
        String table = "\"Odd Schema\".\"Weird \"\"Table\"\".v1\"";
        String columns = "\"MixedCase\", \"with space\", \"quo\"\"te\", \"dot.ted\", \u00fcn\u00efc\u00f8d\u00e9, plain";
        String[][] methods = {{"CTID", null}, {"RANGE", "\"MixedCase\""}, {"DATA_DRIVEN", "with space"},
                {"MODULO", "\u00fcN\u00efc\u00f8d\u00e9"} /* ASCII folds, ü stays */, {"NTILE", "dot.ted"}};
        for (String[] m : methods) {
            harness.copy(sourceTable(table), table, distribution(DistributionMethod.valueOf(m[0]), m[1]), 2);
            harness.assertSameRows(table, table, columns);
        }
    }

    @Test
    void emptyTable() throws Exception {
        harness.bothSql("CREATE TABLE empty_t (id int, k int)");
        for (DistributionMethod method : DistributionMethod.values()) {
            CopyHarness.Result result = harness.copy(sourceTable("empty_t"), "empty_t",
                    distribution(method, method.needsKey() ? "k" : null), 4);
            assertEquals(0, result.rowsRead(), method.toString());
        }
    }

    @Test
    void mostlyDeadTuples() throws Exception {
        harness.bothSql("CREATE TABLE dead (id int, pad text) WITH (autovacuum_enabled = false)");
        harness.sourceSql("INSERT INTO dead SELECT g, repeat('x', 100) FROM generate_series(1, 20000) AS g",
                "DELETE FROM dead WHERE id % 100 <> 0");
        CopyHarness.Result result = harness.copy(sourceTable("dead"), "dead",
                distribution(DistributionMethod.CTID, null), 4);
        assertEquals(200, result.rowsRead());
        assertTrue(result.partitions().size() >= 4, result.partitions().toString());
        harness.assertSameRows("dead", "dead", "id, pad");
    }

    @Test
    void partitionedTableIsPlannedPerLeaf() throws Exception {
        harness.bothSql("CREATE TABLE parted (id int, region text) PARTITION BY LIST (region)",
                "CREATE TABLE parted_eu PARTITION OF parted FOR VALUES IN ('eu')",
                "CREATE TABLE parted_us PARTITION OF parted FOR VALUES IN ('us') PARTITION BY RANGE (id)",
                "CREATE TABLE parted_us_low PARTITION OF parted_us FOR VALUES FROM (MINVALUE) TO (5000)",
                "CREATE TABLE parted_us_high PARTITION OF parted_us FOR VALUES FROM (5000) TO (MAXVALUE)",
                "CREATE TABLE parted_other PARTITION OF parted DEFAULT");
        harness.sourceSql("INSERT INTO parted SELECT g, (ARRAY['eu', 'us', 'asia'])[1 + g % 3] "
                + "FROM generate_series(1, 9000) AS g", "ANALYZE parted");
        CopyHarness.Result result = harness.copy(sourceTable("parted"), "parted",
                distribution(DistributionMethod.CTID, null), 4, 500, Consistency.SNAPSHOT, null);
        assertEquals(9000, result.rowsRead());
        for (SourcePartition p : result.partitions()) {
            assertTrue(p.predicate().startsWith("FROM ONLY \"public\".\"parted_"), p.predicate());
        }
        assertTrue(result.partitions().stream().anyMatch(p -> p.id().startsWith("ctid:public.parted_us_high:")));
        harness.assertSameRows("parted", "parted", "id, region");
    }

    @Test
    void inheritanceChildrenAreReadOnceEach() throws Exception {
        harness.bothSql("CREATE TABLE animal (id int, name text)");
        harness.sourceSql("CREATE TABLE cat (lives int) INHERITS (animal)",
                "INSERT INTO animal SELECT g, 'a' FROM generate_series(1, 3000) AS g",
                "INSERT INTO cat SELECT g, 'c', 9 FROM generate_series(1, 3000) AS g");
        CopyHarness.Result result = harness.copy(sourceTable("animal"), "animal",
                distribution(DistributionMethod.CTID, null), 3);
        assertEquals(6000, result.rowsRead());
        harness.assertSameRows("animal", "animal", "id, name");
    }

    @Test
    void generatedColumnsAreLeftOutAndIdentityTakesSourceValues() throws Exception {
        harness.sourceSql("CREATE TABLE gen (k int, ident bigint)",
                "INSERT INTO gen SELECT g, 1000 + g FROM generate_series(1, 100) AS g");
        harness.targetSql("CREATE TABLE gen (ident bigint GENERATED ALWAYS AS IDENTITY, extra text DEFAULT 'd', "
                + "k int, twice int GENERATED ALWAYS AS (k * 2) STORED)");
        harness.copy(sourceTable("gen"), "gen", distribution(DistributionMethod.RANGE, "k"), 2);
        assertEquals("100", harness.query(harness.targetDb, "SELECT count(*) FROM gen WHERE twice = k * 2 "
                + "AND extra = 'd' AND ident = 1000 + k"));
    }

    @Test
    void snapshotHidesRowsInsertedDuringTheCopy() throws Exception {
        harness.bothSql("CREATE TABLE growing (id int, pad text)");
        harness.sourceSql("INSERT INTO growing SELECT g, md5(g::text) FROM generate_series(1, 10000) AS g",
                "ANALYZE growing");
        CopyHarness.SqlAction insertMore = () -> harness.sourceSql(
                "INSERT INTO growing SELECT g, 'late' FROM generate_series(10001, 11000) AS g");
        CopyHarness.Result snapshot = harness.copy(sourceTable("growing"), "growing",
                distribution(DistributionMethod.CTID, null), 4, 1000, Consistency.SNAPSHOT, insertMore);
        assertTrue(snapshot.snapshotMode().startsWith("snapshot "), snapshot.snapshotMode());
        assertEquals(10000, snapshot.rowsRead());
        assertEquals("10000", harness.query(harness.targetDb, "SELECT count(*) FROM growing"));

        // Without a snapshot the open-ended last range still reads what was appended after planning.
        harness.sourceSql("DELETE FROM growing WHERE id > 10000", "VACUUM growing");
        CopyHarness.Result none = harness.copy(sourceTable("growing"), "growing",
                distribution(DistributionMethod.CTID, null), 4, 1000, Consistency.NONE, insertMore);
        assertEquals("none", none.snapshotMode());
        assertEquals(11000, none.rowsRead());
    }
}

package io.sluice.connector.postgres;

import io.sluice.connector.postgres.copy.CopyDataFrames;
import io.sluice.connector.postgres.copy.CopyOutReader;

import io.sluice.spi.read.DistributionMethod;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceQuery;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reader takes CopyData messages off PgJDBC's stream itself and leaves every other message to PgJDBC: rows
 * around notices the server sends mid-COPY, and rows larger than the packing buffer, must arrive whole and in order.
 */
class CopyDataFramesTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("frames");
        harness.sourceSql("CREATE TABLE rows_src (id int, pad text)",
                "INSERT INTO rows_src SELECT g, repeat(md5(g::text), 1 + g % 5) FROM generate_series(1, 20000) AS g",
                "CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF i % 97 = 0 THEN RAISE NOTICE 'row %', i; END IF; RETURN i; END $$",
                "CREATE TABLE wide_src (id int, blob bytea)",
                // every third row is larger than the 64 KiB buffer, the others small
                "INSERT INTO wide_src SELECT g, CASE WHEN g % 3 = 0 "
                        + "THEN decode(repeat(md5(g::text), 5000), 'hex') ELSE decode(md5(g::text), 'hex') END "
                        + "FROM generate_series(1, 60) AS g");
        harness.targetSql("CREATE TABLE rows_dst (id int, pad text)", "CREATE TABLE wide_dst (id int, blob bytea)");
    }

    @Test
    void theFastPathReachesThePinnedPgJdbcsStream() throws Exception {
        // Without it every row goes through readFromCopy() again: still correct, but a PgJDBC upgrade must not
        // silently turn it off.
        try (java.sql.Connection connection = harness.server.connect(harness.sourceDb)) {
            assertTrue(CopyDataFrames.of(connection, CopyOutReader.BUFFER_BYTES).isPresent());
        }
    }

    @Test
    void rowsAroundNoticesSentMidCopyArriveWhole() throws Exception {
        CopyHarness.Result result = harness.copy(sourceQuery("SELECT noisy(id) AS id, pad FROM rows_src"),
                "rows_dst", distribution(DistributionMethod.NONE, null), 1);
        assertEquals(20000, result.rowsWritten());
        harness.assertSameRows("rows_src", "rows_dst", "id, pad");
    }

    @Test
    void rowsLargerThanTheBufferArriveWhole() throws Exception {
        CopyHarness.Result result = harness.copy(sourceTable("wide_src"), "wide_dst",
                distribution(DistributionMethod.NONE, null), 1);
        assertEquals(60, result.rowsWritten());
        assertEquals("20", harness.query(harness.targetDb, "SELECT count(*) FROM wide_dst WHERE length(blob) > 65536"));
        harness.assertSameRows("wide_src", "wide_dst", "id, md5(blob)");
    }
}

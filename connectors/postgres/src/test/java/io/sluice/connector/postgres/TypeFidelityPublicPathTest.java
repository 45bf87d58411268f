package io.sluice.connector.postgres;

import io.sluice.connector.postgres.copy.CopyDataFrames;

import io.sluice.spi.read.DistributionMethod;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole type suite with {@code -Dsluice.fastpath.pgjdbc-copy-frames=false}: readFromCopy() moves every row. */
class TypeFidelityPublicPathTest extends TypeFidelityTest {
    @BeforeAll
    static void takeThePublicPath() {
        System.setProperty(CopyDataFrames.FAST_PATH.switchProperty(), "false");
    }

    @AfterAll
    static void restoreTheFastPath() {
        System.clearProperty(CopyDataFrames.FAST_PATH.switchProperty());
    }

    @Test
    void theSuiteRanOnThePublicPath() throws Exception {
        CopyHarness.Result result = harness.copy(sourceTable("all_types"), "all_types",
                distribution(DistributionMethod.NONE, null), 1);
        String note = result.projection().notes().getLast();
        assertTrue(note.startsWith("fast path pgjdbc-copy-frames: off, rows read with PgJDBC's "
                + "CopyOut.readFromCopy()"), note);
        assertEquals(6, result.rowsRead());
    }
}

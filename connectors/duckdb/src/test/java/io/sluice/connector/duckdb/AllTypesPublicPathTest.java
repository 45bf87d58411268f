package io.sluice.connector.duckdb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole type suite with {@code -Dsluice.fastpath.duckdb-string-cells=false} and
 * {@code -Dsluice.fastpath.duckdb-vector-cells=false}: text comes from getString(), other values and NULLs from the
 * vectors' checked getters.
 */
class AllTypesPublicPathTest extends AllTypesTest {
    @BeforeAll
    static void takeThePublicPath() {
        System.setProperty(StringCells.FAST_PATH.switchProperty(), "false");
        System.setProperty(VectorCells.FAST_PATH.switchProperty(), "false");
    }

    @AfterAll
    static void restoreTheFastPath() {
        System.clearProperty(StringCells.FAST_PATH.switchProperty());
        System.clearProperty(VectorCells.FAST_PATH.switchProperty());
    }

    @Test
    void theSuiteRunsOnThePublicPath() {
        assertTrue(StringCells.forReader().isEmpty(), StringCells.selection().describe());
        assertFalse(VectorCells.selection().fast(), VectorCells.selection().describe());
    }
}

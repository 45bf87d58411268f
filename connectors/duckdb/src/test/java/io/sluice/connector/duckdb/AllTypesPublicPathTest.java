package io.sluice.connector.duckdb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole type suite with {@code -Dsluice.fastpath.duckdb-string-cells=false}: text comes from getString(). */
class AllTypesPublicPathTest extends AllTypesTest {
    @BeforeAll
    static void takeThePublicPath() {
        System.setProperty(StringCells.FAST_PATH.switchProperty(), "false");
    }

    @AfterAll
    static void restoreTheFastPath() {
        System.clearProperty(StringCells.FAST_PATH.switchProperty());
    }

    @Test
    void theSuiteRunsOnThePublicPath() {
        assertTrue(StringCells.forReader().isEmpty(), StringCells.selection().describe());
    }
}

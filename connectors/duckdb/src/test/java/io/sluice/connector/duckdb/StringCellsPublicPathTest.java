package io.sluice.connector.duckdb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The string suite with {@code -Dsluice.fastpath.duckdb-string-cells=false}: every value, length limit and constant
 * vector comes out the same through getString().
 */
class StringCellsPublicPathTest extends StringCellsTest {
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

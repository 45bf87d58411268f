package io.sluice.connector.postgres;

import io.sluice.spi.data.Column;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.Source;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Generated columns as the server reports them (pg_attribute.attgenerated: 's' STORED, and 'v' VIRTUAL from
 * PostgreSQL 18, where a bare GENERATED ALWAYS AS (...) is virtual), on 18 and on 17: both sides name the kind, and
 * the source reads the values (its COPY (SELECT ...) computes virtual ones too), so they materialise in a plain
 * target column.
 */
@EnabledOnOs(value = OS.LINUX, architectures = "amd64")
class GeneratedColumnsTest {
    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {18, 17})
    void bothSidesNameTheKindAndValuesMaterialiseInPlainColumns(int majorVersion) throws Exception {
        if (majorVersion == TestingPostgres.shared().majorVersion()) {
            check(new CopyHarness(TestingPostgres.shared(), TestingPostgres.shared(), "gen_v" + majorVersion), true);
            return;
        }
        try (TestingPostgres other = TestingPostgres.start(majorVersion)) {
            check(new CopyHarness(other, other, "gen_v" + majorVersion), false);
        }
    }

    private static void check(CopyHarness harness, boolean hasVirtual) throws Exception {
        String virtual = hasVirtual ? ", length_virtual numeric GENERATED ALWAYS AS (length / 60.0)" : "";
        String film = "CREATE TABLE film (film_id int, length int, "
                + "length_stored numeric GENERATED ALWAYS AS (length / 60.0) STORED" + virtual + ")";
        String flat = "CREATE TABLE film_flat (film_id int, length int, length_stored numeric"
                + (hasVirtual ? ", length_virtual numeric" : "") + ")";
        harness.sourceSql(film, "INSERT INTO film (film_id, length) SELECT g, 40 + g % 150 "
                + "FROM generate_series(1, 2000) AS g", "INSERT INTO film (film_id) VALUES (0)");
        harness.targetSql(film, flat);
        List<Column.Generation> expected = hasVirtual
                ? List.of(Column.Generation.NONE, Column.Generation.NONE, Column.Generation.STORED,
                Column.Generation.VIRTUAL)
                : List.of(Column.Generation.NONE, Column.Generation.NONE, Column.Generation.STORED);

        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("film"));
        assertEquals(expected, source.columns().stream().map(Column::generation).toList(), "source columns");
        assertEquals(expected, harness.targetConnector.targets().orElseThrow()
                .open(targetTable("film")).table().columns().stream()
                .map(Column::generation).toList(), "target columns");

        String all = "film_id, length, length_stored" + (hasVirtual ? ", length_virtual" : "");
        CopyHarness.Result materialised = harness.copy(sourceTable("film"), "film_flat",
                distribution(DistributionMethod.RANGE, "film_id"), 2);
        assertEquals(2001, materialised.rowsWritten());
        harness.assertSameRows("film", "film_flat", all);
        assertEquals("1", harness.query(harness.targetDb, "SELECT count(*) FROM film_flat WHERE length_stored "
                + "IS NULL"), "the row without a length computes NULL");

        // Identical tables: the target computes its own generated values from the copied columns.
        harness.copy(sourceTable("film"), "film", distribution(DistributionMethod.CTID, null), 2);
        harness.assertSameRows("film", "film", all);
        assertEquals("2000", harness.query(harness.targetDb, "SELECT count(*) FROM film WHERE length_stored "
                + "= length / 60.0"));
    }
}

package io.sluice.connector.postgres;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.SourcePartition;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceQuery;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every method at degree 1 and 4 copies the source exactly, whatever the key holds. */
class DistributionMethodsTest {
    private static final String COLUMNS = "id, k, grp, n, f, ts, d, note";
    private static CopyHarness harness;

    @BeforeAll
    static void createTables() throws Exception {
        harness = new CopyHarness("methods");
        String ddl = "CREATE TABLE t (id bigint, k int, grp text, n numeric, f float8, ts timestamp, d date, "
                + "note text)";
        harness.bothSql(ddl);
        harness.sourceSql(
                // NULL, negative, duplicate and skewed keys; NaN and infinities in the numeric and time keys
                "INSERT INTO t SELECT g, CASE WHEN g % 10 = 0 THEN NULL WHEN g % 3 = 0 THEN -g ELSE g % 50 END, "
                        + "CASE WHEN g % 7 = 0 THEN NULL WHEN g % 2 = 0 THEN 'big' ELSE 'g' || (g % 13) END, "
                        + "CASE WHEN g % 11 = 0 THEN 'NaN' WHEN g % 17 = 0 THEN NULL ELSE g * 1.5 END, "
                        + "CASE WHEN g % 19 = 0 THEN 'Infinity' WHEN g % 23 = 0 THEN '-Infinity' "
                        + "WHEN g % 29 = 0 THEN 'NaN' ELSE g / 7.0 END, "
                        + "CASE WHEN g % 31 = 0 THEN 'infinity' WHEN g % 37 = 0 THEN NULL "
                        + "ELSE timestamp '2020-01-01' + g * interval '1 hour' END, "
                        + "CASE WHEN g % 41 = 0 THEN '-infinity' ELSE date '2020-01-01' + g END, "
                        + "md5(g::text) FROM generate_series(1, 5000) AS g",
                "INSERT INTO t SELECT * FROM t WHERE id <= 200",
                "ANALYZE t");
    }

    static Stream<Arguments> cases() {
        List<Object[]> methods = List.of(
                new Object[] {DistributionMethod.NONE, null},
                new Object[] {DistributionMethod.CTID, null},
                new Object[] {DistributionMethod.RANGE, "k"},
                new Object[] {DistributionMethod.RANGE, "id"},
                new Object[] {DistributionMethod.RANGE, "n"},
                new Object[] {DistributionMethod.RANGE, "f"},
                new Object[] {DistributionMethod.RANGE, "ts"},
                new Object[] {DistributionMethod.RANGE, "d"},
                new Object[] {DistributionMethod.RANGE, "k * 2 + 1"},
                new Object[] {DistributionMethod.NTILE, "grp"},
                new Object[] {DistributionMethod.NTILE, "k"},
                new Object[] {DistributionMethod.NTILE, "f"},
                new Object[] {DistributionMethod.MODULO, "k"},
                new Object[] {DistributionMethod.MODULO, "grp"},
                new Object[] {DistributionMethod.MODULO, "n"},
                new Object[] {DistributionMethod.DATA_DRIVEN, "grp"},
                new Object[] {DistributionMethod.DATA_DRIVEN, "K"},
                new Object[] {DistributionMethod.DATA_DRIVEN, "k % 4"});
        return Stream.of(1, 4).flatMap(degree -> methods.stream().map(m -> Arguments.of(m[0], m[1], degree)));
    }

    @ParameterizedTest(name = "{0} key={1} degree={2}")
    @MethodSource("cases")
    void copiesExactly(DistributionMethod method, String key, int degree) throws Exception {
        CopyHarness.Result result = harness.copy(sourceTable("t"), "t", distribution(method, key), degree);
        harness.assertSameRows("t", "t", COLUMNS);
        assertEquals(5200, result.rowsRead());
        if (method != DistributionMethod.NONE) {
            assertTrue(result.partitions().size() >= degree, result.partitions().toString());
        }
        Set<String> ids = new HashSet<>();
        result.partitions().forEach(p -> assertTrue(ids.add(p.id()), "duplicate id " + p.id()));
    }

    @ParameterizedTest(name = "values-query degree={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 4})
    void valuesQueryKeepsUnlistedKeysInARemainder(int degree) throws Exception {
        Distribution d = new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("grp"),
                Optional.of("SELECT 'big' UNION ALL SELECT 'g1' UNION ALL SELECT 'big' UNION ALL SELECT NULL"));
        CopyHarness.Result result = harness.copy(sourceTable("t"), "t", d, degree);
        harness.assertSameRows("t", "t", COLUMNS);
        assertEquals(List.of("value='big'", "value='g1'", "value-others", "value-null"),
                result.partitions().stream().map(SourcePartition::id).sorted((a, b) -> order(a) - order(b))
                        .toList());
    }

    private static int order(String id) {
        return switch (id) {
            case "value='big'" -> 0;
            case "value='g1'" -> 1;
            case "value-others" -> 2;
            default -> 3;
        };
    }

    @Test
    void querySourceWithRangeAndModulo() throws Exception {
        harness.copy(sourceQuery("SELECT * FROM t WHERE id % 2 = 0;"), "t",
                distribution(DistributionMethod.RANGE, "id"), 4);
        harness.assertSameRows("(SELECT * FROM t WHERE id % 2 = 0) AS s", "t", COLUMNS);
        harness.copy(sourceQuery("SELECT * FROM t"), "t", distribution(DistributionMethod.MODULO, "grp"), 3);
        harness.assertSameRows("t", "t", COLUMNS);
    }

    @Test
    void planIdsAreStable() throws Exception {
        var source = harness.sourceConnector.sources().orElseThrow().open(sourceTable("t"));
        for (DistributionMethod method : DistributionMethod.values()) {
            String key = method.needsKey() ? "k" : null;
            var request = new io.sluice.spi.read.PlanRequest(distribution(method, key), 4, 1000);
            assertEquals(source.plan(request).stream().map(SourcePartition::id).toList(),
                    source.plan(request).stream().map(SourcePartition::id).toList(), method.toString());
        }
    }
}

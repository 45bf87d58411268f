package io.sluice.connector.postgres;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.Digest;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.write.Target;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static io.sluice.connector.postgres.CopyHarness.targetTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Digests computed on each server agree for a faithful copy, per partition and per stream, even when the two
 * databases render values differently by default; and a changed value changes the checksum but not the count.
 */
class DigestTest {
    private static CopyHarness harness;

    @BeforeAll
    static void setUp() throws Exception {
        harness = new CopyHarness("digest");
        TypeFidelityTest.createAllTypes(harness);
        // Many more rows, spread over every type, so range partitions hold real mixes of values.
        harness.sourceSql("INSERT INTO all_types SELECT g, g % 2 = 0, (g % 32000)::int2, g * 7, g * 1000003::int8, "
                + "g / 7.0, g / 3.0, g / 9.0, g / 11.0, 'row ' || g || E' \\t\\\\ ''q''', 'v' || g, "
                + "chr(65 + g % 26), decode(md5(g::text), 'hex'), date '2000-01-01' + g, time '00:00' + g * "
                + "interval '1 second', timetz '12:00+05:30', timestamp '2020-02-29 12:00' + g * interval '1 minute', "
                + "timestamptz '2020-03-29 01:30+01' + g * interval '17 minutes', g * interval '1 day 3 seconds', "
                + "md5(g::text)::uuid, json_build_object('g', g, 'f', g / 3.0), jsonb_build_object('g', g), "
                + "('10.0.' || g % 256 || '.1')::inet, '192.168.0.0/16', '08:00:2b:01:02:03', ARRAY[g, NULL], "
                + "ARRAY['a' || g, 'b,\"c'], '{{x,y}}', int4range(g, g + 10), NULL, NULL, (g % 256)::bit(8)::varbit, "
                + "(ARRAY['sad', 'ok', 'happy'])[g % 3 + 1]::mood, g, ROW(g, 'p' || g, ARRAY[g / 2.0])::pair "
                + "FROM generate_series(10, 2009) AS g");
        // Each database renders values its own way by default; digests must not depend on that.
        harness.execute("postgres", "ALTER DATABASE " + harness.sourceDb + " SET TimeZone = 'America/St_Johns'",
                "ALTER DATABASE " + harness.sourceDb + " SET DateStyle = 'SQL, DMY'",
                "ALTER DATABASE " + harness.targetDb + " SET TimeZone = 'Asia/Kathmandu'",
                "ALTER DATABASE " + harness.targetDb + " SET DateStyle = 'German'",
                "ALTER DATABASE " + harness.targetDb + " SET IntervalStyle = 'iso_8601'",
                "ALTER DATABASE " + harness.targetDb + " SET extra_float_digits = 0",
                "ALTER DATABASE " + harness.targetDb + " SET bytea_output = 'escape'");
    }

    /** Per partition: the source's digest and the target's digest under the partition's portable predicate. */
    private static Map<String, Digest[]> digests(String sourceName, String targetName, Distribution distribution,
                                                Digest.Level level) throws Exception {
        Source source = harness.sourceConnector.sources().orElseThrow().open(sourceTable(sourceName));
        Target target = harness.targetConnector.targets().orElseThrow().open(targetTable(targetName));
        List<ColumnPair> pairs = new ArrayList<>();
        for (Column t : target.table().columns()) {
            source.columns().stream().filter(s -> s.name().equals(t.name())).findFirst()
                    .ifPresent(s -> pairs.add(new ColumnPair(s, t)));
        }
        SourceProjection projection = source.project(pairs);
        List<Column> targetColumns = pairs.stream().map(ColumnPair::target).toList();
        Map<String, Digest[]> out = new LinkedHashMap<>();
        try (SourceSession session = source.openSession(Consistency.SNAPSHOT)) {
            for (SourcePartition partition : source.plan(new PlanRequest(distribution, 4, 300))) {
                out.put(partition.id(), new Digest[] {
                        session.digest(partition, projection, level).orElseThrow(),
                        target.digest(targetColumns, partition.portablePredicate(), level).orElseThrow()});
            }
        }
        Digest sourceTotal = Digest.zero(level);
        for (Digest[] pair : out.values()) {
            sourceTotal = sourceTotal.plus(pair[0]);
        }
        out.put("stream", new Digest[] {sourceTotal,
                target.digest(targetColumns, java.util.Optional.empty(), level).orElseThrow()});
        return out;
    }

    private static void assertAllEqual(Map<String, Digest[]> digests) {
        digests.forEach((id, pair) -> assertEquals(pair[0], pair[1], "digests of " + id));
    }

    @Test
    void aFaithfulCopyOfEveryTypeHasEqualDigestsPerPartitionAndStream() throws Exception {
        CopyHarness.Result copied = harness.copy(sourceTable("all_types"), "all_types",
                distribution(DistributionMethod.RANGE, "id"), 4);
        assertEquals(2006, copied.rowsWritten());
        Map<String, Digest[]> checksums = digests("all_types", "all_types",
                distribution(DistributionMethod.RANGE, "id"), Digest.Level.CHECKSUM);
        assertTrue(checksums.size() >= 5, checksums.keySet().toString());
        assertAllEqual(checksums);
        assertEquals(2006, checksums.get("stream")[1].rows());
        assertAllEqual(digests("all_types", "all_types", distribution(DistributionMethod.RANGE, "id"),
                Digest.Level.COUNT));
        assertAllEqual(digests("all_types", "all_types", distribution(DistributionMethod.NONE, null),
                Digest.Level.CHECKSUM));
        assertTrue(checksums.get("stream")[0].checksum().isPresent());

        // One changed value: same counts, a different checksum in its partition and in the stream only.
        harness.targetSql("UPDATE all_types SET tstz = tstz + interval '1 microsecond' WHERE id = 1500");
        Map<String, Digest[]> changed = digests("all_types", "all_types",
                distribution(DistributionMethod.RANGE, "id"), Digest.Level.CHECKSUM);
        List<String> differing = new ArrayList<>();
        changed.forEach((id, pair) -> {
            assertEquals(pair[0].rows(), pair[1].rows(), "count of " + id);
            if (!pair[0].equals(pair[1])) {
                differing.add(id);
            }
        });
        assertEquals(2, differing.size(), differing.toString());
        assertTrue(differing.contains("stream"), differing.toString());
        assertAllEqual(digests("all_types", "all_types", distribution(DistributionMethod.RANGE, "id"),
                Digest.Level.COUNT));
    }

    @Test
    void valuesAreHashedAsTheTargetStoresThem() throws Exception {
        harness.sourceSql("CREATE TABLE shapes (id int, whole int, txt text, money4 numeric(10,4), "
                        + "ts6 timestamp(6), f8 float8, ch text)",
                "INSERT INTO shapes SELECT g, g, 't' || g, g / 3.0, timestamp '2024-01-01' + g * "
                        + "interval '1.234567 second', g / 7.0, 'c' FROM generate_series(1, 1000) AS g");
        // Wider, narrower and rounded target types: the target applies the modifier on input (numeric(10,2)
        // rounds, timestamp(0) rounds, char(3) pads), so the source must hash the same values.
        harness.targetSql("CREATE TABLE shapes (id bigint, whole numeric(12,2), txt varchar(20), "
                + "money4 numeric(10,2), ts6 timestamp(0), f8 real, ch char(3))");
        harness.copy(sourceTable("shapes"), "shapes", distribution(DistributionMethod.NTILE, "id"), 3);
        assertAllEqual(digests("shapes", "shapes", distribution(DistributionMethod.NTILE, "id"),
                Digest.Level.CHECKSUM));
        assertNotEquals(harness.query(harness.sourceDb, "SELECT money4::text FROM shapes WHERE id = 1"),
                harness.query(harness.targetDb, "SELECT money4::text FROM shapes WHERE id = 1"),
                "the test needs a value the target rounds");
    }
}

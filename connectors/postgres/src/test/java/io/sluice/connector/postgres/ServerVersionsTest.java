package io.sluice.connector.postgres;

import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.sluice.connector.postgres.CopyHarness.distribution;
import static io.sluice.connector.postgres.CopyHarness.sourceTable;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Copies between PostgreSQL 18 (the test kit's server) and each older supported major version, both ways. User
 * types get different OIDs on each server (the other side creates a few types first), which binary arrays and
 * composites embed: a stream with a user type inside an array or composite must choose text COPY and arrive equal;
 * one with only scalar enums, domains and built-in arrays stays binary and arrives equal too. The binaries of
 * 14-17 are copied next to the tests by the pg-version-matrix profile (Linux x86-64).
 */
@EnabledOnOs(value = OS.LINUX, architectures = "amd64")
class ServerVersionsTest {
    private static final String TYPES = String.join(";",
            "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
            "CREATE TYPE pair AS (m mood, n int)",
            "CREATE DOMAIN posint AS int CHECK (VALUE > 0)");
    private static final String NESTED = "CREATE TABLE nested (id int, ms mood[], p pair, ps pair[])";
    private static final String FLAT = "CREATE TABLE flat (id int, m mood, d posint, a int[][], r int4range, "
            + "j jsonb, n numeric, ts timestamptz, u uuid, t text)";

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 15, 16, 17})
    void copiesBothWaysWithForeignTypeOids(int majorVersion) throws Exception {
        try (TestingPostgres other = TestingPostgres.start(majorVersion)) {
            copy(new CopyHarness(TestingPostgres.shared(), other, "to_v" + majorVersion));
            copy(new CopyHarness(other, TestingPostgres.shared(), "from_v" + majorVersion));
        }
    }

    private static void copy(CopyHarness harness) throws Exception {
        // Shift the target's type OIDs away from the source's.
        harness.targetSql("CREATE TYPE shift1 AS ENUM ('x')", "CREATE TYPE shift2 AS (a int)", TYPES, NESTED, FLAT);
        harness.sourceSql(TYPES, NESTED, FLAT,
                "INSERT INTO nested VALUES (1, '{sad,happy}', ROW('ok', 1), ARRAY[ROW('sad', 2)::pair, NULL]), "
                        + "(2, NULL, NULL, NULL), (3, '{}', ROW(NULL, NULL), '{}')",
                "INSERT INTO flat SELECT g, (ARRAY['sad','ok','happy'])[1 + g % 3]::mood, g, "
                        + "ARRAY[[g, g + 1], [NULL, g]], int4range(g, g + 10), jsonb_build_object('g', g), "
                        + "g * 1.5, timestamptz '2024-01-01 00:00+00' + g * interval '1 hour', "
                        + "md5(g::text)::uuid, 'row ' || g FROM generate_series(1, 3000) AS g",
                "INSERT INTO flat (id) VALUES (0)");
        assertEquals(CopyFormat.TEXT, harness.copy(sourceTable("nested"), "nested",
                distribution(DistributionMethod.CTID, null), 2).projection().format(), "a user type in an array");
        harness.assertSameRows("nested", "nested", "id, ms, p, ps");
        assertEquals(CopyFormat.BINARY, harness.copy(sourceTable("flat"), "flat",
                distribution(DistributionMethod.CTID, null), 2).projection().format());
        harness.assertSameRows("flat", "flat", "id, m, d, a, r, j, n, ts, u, t");
    }
}

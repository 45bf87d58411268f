package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestTier;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The proof of {@code objects: all}: after one spec into an empty database, {@code pg_dump --schema-only} of
 * the target's schema prints what the source's prints. PostgreSQL 15 on both sides (the test kit's binaries), as
 * Debian's {@code pg_dump} here is 15 and dumps no newer server; {@code .ci/run} installs it. The full tier runs it.
 */
@Tag(TestTier.FULL_ONLY)
class SchemaDumpTest {
    private static final Path PG_DUMP = Path.of("/usr/lib/postgresql/15/bin/pg_dump");

    @TempDir
    Path dir;

    @Test
    void theTargetsDumpIsTheSourcesDump() throws Exception {
        assertTrue(Files.isExecutable(PG_DUMP), PG_DUMP + " is missing: install Debian's postgresql-client-15 "
                + "(.ci/run does)");
        try (TestingPostgres pg = TestingPostgres.start(15)) {
            String role = "shop_clerk";
            String source = pg.createDatabase("dump_src");
            String target = pg.createDatabase("dump_dst");
            sql(pg, "postgres", "CREATE ROLE " + role);
            sql(pg, source, SchemaObjectsTest.schema(role).toArray(String[]::new));
            // What else the issue names: an UNLOGGED table, a column with a collation of its own, an extension an
            // index uses, grants to a role, a table default drawn from a sequence no column owns.
            sql(pg, source, "CREATE EXTENSION pg_trgm WITH SCHEMA public",
                    "CREATE INDEX items_name_trgm ON shop.items USING gin (name public.gin_trgm_ops)",
                    "CREATE COLLATION shop.plain (provider = libc, locale = 'C')",
                    "CREATE UNLOGGED TABLE shop.notes (id int PRIMARY KEY, body text COLLATE shop.plain, "
                            + "item_id int REFERENCES shop.items)",
                    "INSERT INTO shop.notes SELECT g, 'note ' || g, g FROM generate_series(1, 20) g",
                    "GRANT SELECT ON shop.items TO " + role, "GRANT USAGE ON SCHEMA shop TO " + role,
                    "REVOKE ALL ON FUNCTION shop.total(int) FROM PUBLIC",
                    "GRANT EXECUTE ON FUNCTION shop.total(int) TO " + role,
                    "COMMENT ON SCHEMA shop IS 'the shop'",
                    // A partition's own index, foreign key and check (as Pagila's payment partitions have)
                    "CREATE INDEX sales_2024_qty ON shop.sales_2024 (qty)",
                    "ALTER TABLE shop.sales_2025 ADD CONSTRAINT sales_2025_note FOREIGN KEY (item_id) "
                            + "REFERENCES shop.items", "ALTER TABLE shop.sales_2025 ADD CONSTRAINT sales_2025_qty "
                            + "CHECK (qty >= 0)");
            Path spec = SchemaObjectsTest.spec(dir, "dump.yaml", pg, source, pg, target, "shop.{table}",
                    ", privileges: copy");
            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(0, run.exitCode(), run.all());
            List<String> expected = SchemaDumps.of(PG_DUMP, pg, source, "shop");
            List<String> actual = SchemaDumps.of(PG_DUMP, pg, target, "shop");
            for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
                assertEquals(expected.get(i), actual.get(i), "pg_dump --schema-only -n shop, line " + (i + 1)
                        + " of the source's and the target's");
            }
            assertEquals(expected.size(), actual.size(), "the dumps' lengths, source " + expected + "\ntarget "
                    + actual);
            for (String compared : List.of("CREATE UNLOGGED TABLE shop.notes", "CREATE INDEX sales_2024_qty",
                    "ADD CONSTRAINT sales_2025_note FOREIGN KEY", "COLLATE shop.plain", "CREATE POLICY calm_only")) {
                assertTrue(String.join("\n", actual).contains(compared), "what it compared: " + compared);
            }
        }
    }
}

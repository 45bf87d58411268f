package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A schema copied with {@code create: if-missing} into an empty database ends with the source's definition: every
 * column, default, identity, generated column, constraint, index, partition bound, comment and type the catalog gives
 * for the source is the same for the copy, and the sequences continue past the copied values.
 */
public class TableDefinitionTest {
    /** Every definition kind the issue names, in schema {@code app}; {@code app.regions} is left out of the run. */
    public static final String[] SCHEMA = {
            "CREATE SCHEMA app",
            "CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy')",
            "CREATE DOMAIN app.positive_int AS integer CONSTRAINT positive CHECK (VALUE > 0)",
            "CREATE TYPE app.address AS (street text, city text, zip app.positive_int)",
            "CREATE TYPE app.floatrange AS RANGE (subtype = float8, subtype_diff = float8mi)",
            "CREATE TABLE app.regions (id integer PRIMARY KEY, name text)",
            "CREATE TABLE app.customers (id serial PRIMARY KEY, email text NOT NULL UNIQUE, "
                    + "name text COLLATE \"C\", mood app.mood DEFAULT 'ok', age app.positive_int, addr app.address, "
                    + "referrer_id integer REFERENCES app.customers (id), created_at timestamptz NOT NULL DEFAULT "
                    + "now(), CONSTRAINT email_shape CHECK (position('@' in email) > 1))",
            "COMMENT ON TABLE app.customers IS 'who buys'",
            "COMMENT ON COLUMN app.customers.email IS 'where to write'",
            "CREATE INDEX customers_lower_email ON app.customers (lower(email))",
            "CREATE INDEX customers_happy ON app.customers (created_at) WHERE mood = 'happy'",
            "CREATE TABLE app.orders (id bigint GENERATED ALWAYS AS IDENTITY (START WITH 1000) PRIMARY KEY, "
                    + "customer_id integer NOT NULL REFERENCES app.customers (id) ON DELETE CASCADE, "
                    + "region_id integer REFERENCES app.regions (id), total numeric(10,2) NOT NULL, "
                    + "total_with_tax numeric GENERATED ALWAYS AS (total * 1.2) STORED, span app.floatrange, "
                    + "tags text[], EXCLUDE USING gist (span WITH &&))",
            "CREATE TABLE app.events (id bigint NOT NULL, at date NOT NULL, payload jsonb, "
                    + "PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
            "CREATE TABLE app.events_2024 PARTITION OF app.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
            "CREATE TABLE app.events_2025 PARTITION OF app.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01') "
                    + "PARTITION BY LIST (id)",
            "CREATE TABLE app.events_2025_odd PARTITION OF app.events_2025 FOR VALUES IN (1, 3, 5)",
            "CREATE TABLE app.events_2025_rest PARTITION OF app.events_2025 DEFAULT",
            "CREATE TABLE app.events_later PARTITION OF app.events DEFAULT",
            "CREATE INDEX events_payload ON app.events USING gin (payload)",
            "INSERT INTO app.regions VALUES (1, 'north')",
            "INSERT INTO app.customers (email, name, mood, age, addr, referrer_id) SELECT 'c' || g || '@x.org', "
                    + "'name ' || g, (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::app.mood, 20 + g % 50, "
                    + "ROW('street ' || g, 'city', g)::app.address, CASE WHEN g > 1 THEN g - 1 END "
                    + "FROM generate_series(1, 2000) g",
            "INSERT INTO app.orders (customer_id, region_id, total, span, tags) SELECT 1 + g % 2000, "
                    + "CASE WHEN g % 2 = 0 THEN 1 END, g / 4.0, app.floatrange(g, g + 0.5), ARRAY['t' || g] "
                    + "FROM generate_series(1, 5000) g",
            "INSERT INTO app.events SELECT g, date '2024-06-01' + (g % 700), jsonb_build_object('n', g) "
                    + "FROM generate_series(1, 3000) g",
            "ANALYZE"};

    @TempDir
    Path dir;

    @Test
    void aSchemaCopiedIntoAnEmptyDatabaseHasTheSourcesDefinition() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("definition_src");
        String target = pg.createDatabase("definition_dst");
        sql(pg, source, SCHEMA);
        sql(pg, target, "CREATE SCHEMA app");
        Path spec = spec(dir, "definition.yaml", pg, source, target, "", 2);

        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy')"), plan.out());
        assertTrue(plan.out().contains("PARTITION BY RANGE (at)"), plan.out());
        assertTrue(plan.out().contains("once every stream is done: ALTER TABLE \"app\".\"orders\" ADD CONSTRAINT "
                + "\"orders_customer_id_fkey\" FOREIGN KEY (customer_id) REFERENCES \"app\".\"customers\"(id) ON "
                + "DELETE CASCADE NOT VALID"), plan.out());
        assertTrue(plan.out().contains("foreign key orders_region_id_fkey of \"app\".\"orders\" references "
                + "app.regions, which no stream of this run copies"), plan.out());

        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertSameDefinition(pg, source, target);
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_constraint WHERE conname = "
                + "'orders_region_id_fkey'"), "the key to a table outside the run is left out");
        assertEquals(List.of(), rows(pg, target, "SELECT conname FROM pg_constraint WHERE NOT convalidated"),
                "every foreign key validated");
        assertRowsAndSequences(pg, source, target);

        // The nightly run again: the tables exist, their keys to one another are held off while each is emptied and
        // loaded, then put back, validated.
        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertSameDefinition(pg, source, target);
        assertEquals(List.of(), rows(pg, target, "SELECT conname FROM pg_constraint WHERE NOT convalidated"));
        assertEquals(scalar(pg, source, "SELECT count(*) FROM app.orders"), scalar(pg, target,
                "SELECT count(*) FROM app.orders"), "the rows again, and the one the test inserted is gone");
    }

    @Test
    void bareTablesAreStillThereToAskFor() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("definition_bare_src");
        String target = pg.createDatabase("definition_bare_dst");
        sql(pg, source, SCHEMA);
        sql(pg, target, "CREATE SCHEMA app", "CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE DOMAIN app.positive_int AS integer",
                "CREATE TYPE app.address AS (street text, city text, zip app.positive_int)",
                "CREATE TYPE app.floatrange AS RANGE (subtype = float8)");
        Path spec = spec(dir, "bare.yaml", pg, source, target, ", definition: bare", 1);
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_constraint c JOIN pg_namespace n ON n.oid = "
                + "c.connamespace WHERE n.nspname = 'app' AND c.contype IN ('p', 'u', 'f', 'c', 'x')"));
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'app'"));
        assertEquals(5000, scalar(pg, target, "SELECT count(*) FROM app.orders"));
    }

    /**
     * Pagila's way: sequences created on their own and used by {@code DEFAULT nextval(...)}, one of them by two tables,
     * one in another schema. A created table's defaults need them: they are created where the source has them, with
     * its options and value, and set past the copied rows after the load. A function a default calls, which the copy
     * does not carry, is refused at plan by name (PG237), and nothing is created.
     */
    @Test
    void sequencesThatDefaultsDrawFromComeWithTheTables() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("standalone_seq_src");
        String target = pg.createDatabase("standalone_seq_dst");
        sql(pg, source, "CREATE SCHEMA app", "CREATE SCHEMA ids",
                "CREATE SEQUENCE app.actor_actor_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1",
                "CREATE TABLE app.actor (actor_id integer DEFAULT nextval('app.actor_actor_id_seq'::regclass) "
                        + "NOT NULL PRIMARY KEY, name text)",
                "CREATE SEQUENCE ids.shared_seq AS bigint INCREMENT BY 5 START WITH 100",
                "CREATE TABLE app.film (id bigint DEFAULT nextval('ids.shared_seq') PRIMARY KEY, title text)",
                "CREATE TABLE app.store (id bigint DEFAULT nextval('ids.shared_seq') PRIMARY KEY, city text)",
                "INSERT INTO app.actor (name) SELECT 'actor ' || g FROM generate_series(1, 200) g",
                "INSERT INTO app.film (title) SELECT 'film ' || g FROM generate_series(1, 30) g",
                "INSERT INTO app.store (city) SELECT 'city ' || g FROM generate_series(1, 3) g",
                "SELECT nextval('app.actor_actor_id_seq') FROM generate_series(1, 50)", // handed out, rows gone
                "CREATE SEQUENCE app.unused_seq", // never called: no value to carry (Pagila's empty tables)
                "CREATE TABLE app.unused (id int DEFAULT nextval('app.unused_seq') PRIMARY KEY)");
        sql(pg, target, "CREATE SCHEMA app");
        Path spec = Files.writeString(dir.resolve("standalone.yaml"), """
                version: 1
                name: standalone
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: app
                    source: { connection: src, table: "app.*" }
                    target: { connection: dst, table: "app.{table}", create: if-missing }
                    load-mode: truncate
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user()));
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        String sequences = "SELECT string_agg(schemaname || '.' || sequencename || ' ' || data_type || ' ' "
                + "|| start_value || ' ' || increment_by || ' ' || max_value || ' ' || cache_size, ', ' "
                + "ORDER BY 1) FROM pg_sequences WHERE schemaname IN ('app', 'ids')";
        assertEquals(TableDefinitionTest.rows(pg, source, sequences), TableDefinitionTest.rows(pg, target, sequences),
                "each sequence where the source has it, with its options");
        assertEquals(List.of("nextval('app.actor_actor_id_seq'::regclass)"), rows(pg, target,
                "SELECT column_default FROM information_schema.columns WHERE table_name = 'actor' "
                        + "AND column_name = 'actor_id'"), "the default as written");
        assertEquals(251, scalar(pg, target, "SELECT nextval('app.actor_actor_id_seq')"),
                "the source's value: what it handed out stays handed out");
        assertEquals(1, scalar(pg, target, "SELECT nextval('app.unused_seq')"), "a sequence never called starts");
        sql(pg, target, "INSERT INTO app.film (title) VALUES ('new')", "INSERT INTO app.store (city) VALUES ('new')");
        assertEquals(35, scalar(pg, target, "SELECT count(DISTINCT id) FROM (SELECT id FROM app.film UNION ALL "
                + "SELECT id FROM app.store) x"), "the shared sequence made once, past both tables' rows");
        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertEquals(200, scalar(pg, target, "SELECT count(*) FROM app.actor"));

        // A default that calls a function the copy does not carry: named as the definition's, nothing created.
        String other = pg.createDatabase("standalone_fn_src");
        String empty = pg.createDatabase("standalone_fn_dst");
        sql(pg, other, "CREATE SCHEMA app", "CREATE FUNCTION app.next_code() RETURNS text LANGUAGE sql AS "
                + "'SELECT md5(random()::text)'", "CREATE TABLE app.coded (id int PRIMARY KEY, code text DEFAULT "
                + "app.next_code())", "INSERT INTO app.coded (id) VALUES (1)");
        sql(pg, empty, "CREATE SCHEMA app");
        Path calling = Files.writeString(dir.resolve("function.yaml"), Files.readString(spec)
                .replace(pg.jdbcUrl(source), pg.jdbcUrl(other)).replace(pg.jdbcUrl(target), pg.jdbcUrl(empty)));
        for (String command : List.of("plan", "run")) {
            CliRun refused = CliRun.of(command, calling.toString());
            assertEquals(4, refused.exitCode(), refused.all());
            assertTrue(refused.all().contains("PG237") && refused.all().contains("app.next_code()")
                    && !refused.all().contains("check the spelling"), refused.all());
        }
        assertEquals(0, scalar(pg, empty, "SELECT count(*) FROM pg_class WHERE relname = 'coded'"));
    }

    public static Path spec(Path dir, String file, TestingPostgres pg, String source, String target, String targetExtra,
                     int parallel) throws Exception {
        return Files.writeString(dir.resolve(file), """
                version: 1
                name: definition
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: app
                    source: { connection: src, table: "app.*", exclude: ["app.regions"] }
                    target: { connection: dst, table: "app.{table}", create: if-missing%s }
                    distribution: { method: ctid }
                    degree: 2
                    load-mode: truncate
                max-parallel-streams: %d
                """.formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), targetExtra, parallel));
    }

    /** The definition of schema app as the catalog gives it, one line per fact, without OIDs or owners. */
    static final String[] DEFINITION = {
            // columns: type, NOT NULL, default, identity, generated, collation, comment
            "SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' notnull='"
                    + " || a.attnotnull || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') "
                    + "|| ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text || ' collation=' "
                    + "|| coalesce(co.collname, '') || ' comment=' || coalesce(col_description(c.oid, a.attnum), '') "
                    + "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON "
                    + "n.oid = c.relnamespace LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = "
                    + "a.attnum LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100 "
                    + "WHERE n.nspname = 'app' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped "
                    + "AND c.relname <> 'regions' ORDER BY 1",
            // constraints, with what they are on
            "SELECT conrelid::regclass::text || ' ' || conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) "
                    + "|| ' validated=' || convalidated FROM pg_constraint WHERE connamespace = 'app'::regnamespace "
                    + "AND conrelid <> 0 AND conrelid::regclass::text <> 'app.regions' "
                    + "AND conname <> 'orders_region_id_fkey' ORDER BY 1", // the key to a table outside the run
            // indexes (those of the partitions too: a partitioned table's index has one per partition)
            "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
                    + "WHERE c.relnamespace = 'app'::regnamespace AND c.relname <> 'regions' ORDER BY 1",
            // partitioning and bounds, tables' comments
            "SELECT c.relname || ' ' || c.relkind::text || ' ' || coalesce(pg_get_partkeydef(c.oid), '') || ' ' "
                    + "|| coalesce(pg_get_expr(c.relpartbound, c.oid), '') || ' parent=' || coalesce((SELECT "
                    + "inhparent::regclass::text FROM pg_inherits WHERE inhrelid = c.oid), '') || ' comment=' "
                    + "|| coalesce(obj_description(c.oid, 'pg_class'), '') FROM pg_class c WHERE c.relnamespace = "
                    + "'app'::regnamespace AND c.relkind IN ('r', 'p', 'S') AND c.relname <> 'regions' ORDER BY 1",
            // types: enum labels, domains' base and checks, composites' attributes, ranges' subtype
            "SELECT t.typname || ' ' || t.typtype::text || ' ' || coalesce((SELECT string_agg(enumlabel, ',' ORDER BY "
                    + "enumsortorder) FROM pg_enum WHERE enumtypid = t.oid), '') || coalesce(format_type("
                    + "nullif(t.typbasetype, 0), NULL), '') || coalesce((SELECT string_agg(pg_get_constraintdef(k.oid),"
                    + " ',') FROM pg_constraint k WHERE k.contypid = t.oid), '') || coalesce((SELECT string_agg("
                    + "a.attname || ':' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY a.attnum) FROM "
                    + "pg_attribute a WHERE a.attrelid = t.typrelid AND (SELECT relkind FROM pg_class WHERE oid = "
                    + "t.typrelid) = 'c'), '') || coalesce((SELECT format_type(rngsubtype, NULL) || rngsubdiff::text "
                    + "FROM pg_range WHERE rngtypid = t.oid), '') FROM pg_type t WHERE t.typnamespace = "
                    + "'app'::regnamespace AND t.typtype IN ('e', 'd', 'c', 'r') AND (t.typtype <> 'c' OR (SELECT "
                    + "relkind FROM pg_class WHERE oid = t.typrelid) = 'c') ORDER BY 1",
            // sequences' settings
            "SELECT c.relname || ' ' || format_type(s.seqtypid, NULL) || ' ' || s.seqstart || ' ' || s.seqincrement "
                    + "|| ' ' || s.seqmin || ' ' || s.seqmax || ' ' || s.seqcache || ' ' || s.seqcycle "
                    + "FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relnamespace = "
                    + "'app'::regnamespace AND c.relname NOT LIKE 'regions%' ORDER BY 1"};

    public static void assertSameDefinition(TestingPostgres pg, String source, String target) throws SQLException {
        for (String query : DEFINITION) {
            List<String> expected = rows(pg, source, query);
            assertFalse(expected.isEmpty(), query);
            assertEquals(expected, rows(pg, target, query), query);
        }
    }

    /** Every row arrived, and each sequence hands out a value past the copied ones. */
    public static void assertRowsAndSequences(TestingPostgres pg, String source, String target) throws SQLException {
        for (String table : List.of("app.customers", "app.orders", "app.events", "app.events_2025_odd")) {
            assertEquals(scalar(pg, source, "SELECT count(*) FROM " + table), scalar(pg, target,
                    "SELECT count(*) FROM " + table), table);
        }
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM (SELECT * FROM app.orders EXCEPT SELECT * FROM "
                + "app.orders WHERE total_with_tax = total * 1.2) x"), "generated values computed by the target");
        assertTrue(scalar(pg, target, "SELECT nextval('app.customers_id_seq')") > 2000, "serial past the copy");
        sql(pg, target, "INSERT INTO app.orders (customer_id, total) VALUES (1, 1)");
        assertTrue(scalar(pg, target, "SELECT max(id) FROM app.orders") > scalar(pg, source,
                "SELECT max(id) FROM app.orders"), "identity past the copy");
    }

    static List<String> rows(TestingPostgres pg, String database, String query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }
}

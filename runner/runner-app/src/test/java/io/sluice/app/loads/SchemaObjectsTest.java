package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code objects: all}: one pattern spec carries a schema's functions, procedure, aggregate, views (one on another),
 * materialized view (with its index, filled after the load), triggers (present, not fired by the copy), a rule,
 * row-level security and a policy, and their comments, into an empty database; the target's catalog then prints
 * every object as the source's does. A policy's role the target server lacks is refused at plan; copies under other
 * names are refused too. A run SIGKILLed while it creates the objects leaves none of them, and both {@code --resume}
 * and a fresh run end with all of them.
 */
class SchemaObjectsTest {
    /** The advisory lock the materialized view's gate takes while it is filled: the test holds it to stop the run. */
    private static final int GATE = 4242;

    static List<String> schema(String role) {
        return List.of("CREATE SCHEMA shop",
                "CREATE TYPE shop.mood AS ENUM ('calm', 'busy')",
                "CREATE SEQUENCE shop.item_id_seq",
                "CREATE TABLE shop.items (id int PRIMARY KEY DEFAULT nextval('shop.item_id_seq'), name text NOT NULL, "
                        + "price numeric(10,2), mood shop.mood, stamp text DEFAULT 'copied')",
                "CREATE TABLE shop.sales (id int, item_id int REFERENCES shop.items, qty int, sold_on date NOT NULL, "
                        + "PRIMARY KEY (id, sold_on)) PARTITION BY RANGE (sold_on)",
                "CREATE TABLE shop.sales_2024 PARTITION OF shop.sales FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "CREATE TABLE shop.sales_2025 PARTITION OF shop.sales FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                // Types no table uses: a function's result, and a domain over a range over nothing of the schema.
                "CREATE TYPE shop.pair AS (n int, label text)",
                "CREATE TYPE shop.qty_range AS RANGE (SUBTYPE = int)",
                "CREATE DOMAIN shop.small_range AS shop.qty_range CHECK (upper(VALUE) < 1000)",
                "CREATE FUNCTION shop.make_pair(n int) RETURNS shop.pair LANGUAGE sql IMMUTABLE AS "
                        + "$$SELECT ROW(n, 'n' || n)::shop.pair$$",
                "CREATE FUNCTION shop.stamp() RETURNS trigger LANGUAGE plpgsql AS "
                        + "$$BEGIN NEW.stamp := 'fired'; RETURN NEW; END$$",
                "CREATE FUNCTION shop.total(p_item int) RETURNS bigint LANGUAGE sql STABLE AS "
                        + "'SELECT sum(qty) FROM shop.sales WHERE item_id = p_item'",
                "CREATE FUNCTION shop.cat(acc text, x text) RETURNS text LANGUAGE sql IMMUTABLE AS "
                        + "$$SELECT CASE WHEN acc IS NULL THEN x ELSE acc || ', ' || x END$$",
                "CREATE AGGREGATE shop.list(text) (SFUNC = shop.cat, STYPE = text)",
                "CREATE PROCEDURE shop.bump(p int) LANGUAGE sql AS $$UPDATE shop.items SET price = price + p$$",
                "CREATE FUNCTION shop.gate() RETURNS boolean LANGUAGE plpgsql VOLATILE AS "
                        + "$$BEGIN PERFORM pg_advisory_xact_lock_shared(" + GATE + "); RETURN true; END$$",
                "ALTER TABLE shop.items DISABLE TRIGGER ALL",
                "INSERT INTO shop.items (name, price, mood) SELECT 'item ' || g, g, CASE WHEN g % 3 = 0 THEN 'busy' "
                        + "ELSE 'calm' END::shop.mood FROM generate_series(1, 60) g",
                "ALTER TABLE shop.items ENABLE TRIGGER ALL",
                "INSERT INTO shop.sales SELECT g, 1 + g % 60, g % 7, DATE '2024-03-01' + g FROM generate_series(1, 500) g",
                "CREATE TRIGGER items_stamp BEFORE INSERT OR UPDATE ON shop.items FOR EACH ROW "
                        + "EXECUTE FUNCTION shop.stamp()",
                "CREATE TRIGGER sales_stamp AFTER INSERT ON shop.sales FOR EACH STATEMENT EXECUTE FUNCTION shop.stamp()",
                "ALTER TABLE shop.sales DISABLE TRIGGER sales_stamp",
                "CREATE VIEW shop.item_sales AS SELECT i.id, i.name, shop.total(i.id) AS total FROM shop.items i",
                "CREATE VIEW shop.busy_items AS SELECT name FROM shop.item_sales WHERE total > 40",
                "CREATE MATERIALIZED VIEW shop.sales_by_item AS SELECT item_id, sum(qty) AS qty, shop.list(id::text) "
                        + "AS ids FROM shop.sales WHERE shop.gate() GROUP BY item_id",
                "CREATE UNIQUE INDEX sales_by_item_key ON shop.sales_by_item (item_id)",
                "CREATE RULE item_sales_insert AS ON INSERT TO shop.item_sales DO INSTEAD "
                        + "INSERT INTO shop.items (name) VALUES (NEW.name)",
                "ALTER TABLE shop.items ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY calm_only ON shop.items FOR SELECT TO \"" + role + "\" USING (mood = 'calm')",
                "COMMENT ON VIEW shop.item_sales IS 'what sold'",
                "COMMENT ON FUNCTION shop.total(int) IS 'the quantity sold'",
                "COMMENT ON TRIGGER items_stamp ON shop.items IS 'stamps new rows'",
                "COMMENT ON POLICY calm_only ON shop.items IS 'calm rows only'",
                "COMMENT ON MATERIALIZED VIEW shop.sales_by_item IS 'filled after the load'",
                // An operator, which a view and a check use: the check needs it before the copy.
                "CREATE FUNCTION shop.near(a int, b int) RETURNS boolean LANGUAGE sql IMMUTABLE "
                        + "AS $$SELECT abs(a - b) <= 1$$",
                "CREATE OPERATOR shop.~~~ (FUNCTION = shop.near, LEFTARG = int, RIGHTARG = int, "
                        + "COMMUTATOR = OPERATOR(shop.~~~))",
                "CREATE VIEW shop.near_three AS SELECT id FROM shop.sales WHERE qty OPERATOR(shop.~~~) 3",
                "ALTER TABLE shop.items ADD CONSTRAINT not_near_zero CHECK (NOT (id OPERATOR(shop.~~~) -5))",
                // Carried when asked (publications: copy): a column list and a row filter.
                "CREATE PUBLICATION shop_feed FOR TABLE shop.items (id, name) WHERE (price > 10), shop.sales "
                        + "WITH (publish = 'insert, truncate')",
                "COMMENT ON PUBLICATION shop_feed IS 'for the warehouse'");
    }

    /** Every object of schema shop but the tables, as the server prints it, one per line in a fixed order. */
    static final String OBJECTS = "SELECT string_agg(x, E'\\n' ORDER BY x) FROM ("
            + "SELECT 'relation ' || c.relname || ' ' || c.relkind::text || pg_get_viewdef(c.oid) "
            + "|| coalesce(' -- ' || obj_description(c.oid, 'pg_class'), '') FROM pg_class c "
            + "WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind IN ('v', 'm') "
            + "UNION ALL SELECT 'routine ' || p.oid::regprocedure::text || ' ' || p.prokind::text || ' ' "
            + "|| coalesce(CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END, '') "
            + "|| coalesce(' -- ' || obj_description(p.oid, 'pg_proc'), '') FROM pg_proc p "
            + "WHERE p.pronamespace = 'shop'::regnamespace "
            + "UNION ALL SELECT 'aggregate ' || a.aggfnoid::regprocedure::text || ' ' || a.aggtransfn::regproc::text "
            + "|| ' ' || format_type(a.aggtranstype, NULL) FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid "
            + "WHERE p.pronamespace = 'shop'::regnamespace "
            + "UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text "
            + "|| coalesce(' -- ' || obj_description(t.oid, 'pg_trigger'), '') FROM pg_trigger t "
            + "JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'shop'::regnamespace AND NOT t.tgisinternal "
            + "UNION ALL SELECT 'rule ' || pg_get_ruledef(r.oid) FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class "
            + "WHERE c.relnamespace = 'shop'::regnamespace AND r.rulename <> '_RETURN' "
            + "UNION ALL SELECT 'policy ' || p.polname || ' ' || p.polcmd::text || ' ' || p.polpermissive || ' ' "
            + "|| coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' || array_to_string(ARRAY(SELECT "
            + "pg_get_userbyid(r) FROM unnest(p.polroles) r), ',') "
            + "|| coalesce(' -- ' || obj_description(p.oid, 'pg_policy'), '') FROM pg_policy p "
            + "UNION ALL SELECT 'row security ' || relname || ' ' || relrowsecurity || ' ' || relforcerowsecurity "
            + "FROM pg_class WHERE relnamespace = 'shop'::regnamespace AND relkind IN ('r', 'p') "
            + "UNION ALL SELECT 'type ' || format_type(t.oid, NULL) || ' ' || t.typtype::text FROM pg_type t "
            + "LEFT JOIN pg_class r ON r.oid = t.typrelid WHERE t.typnamespace = 'shop'::regnamespace "
            + "AND (t.typtype IN ('e', 'd', 'r', 'm') OR r.relkind = 'c') "
            + "UNION ALL SELECT 'operator ' || o.oid::regoperator::text || ' ' || o.oprcode::regproc::text || ' ' "
            + "|| o.oprcom::regoper::text FROM pg_operator o WHERE o.oprnamespace = 'shop'::regnamespace "
            + "UNION ALL SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i "
            + "JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind = 'm'"
            + ") d(x)";
    /** Who else may call shop.total and read shop.item_sales: grantee, privilege, grant option. */
    private static final String GRANTED = "SELECT (SELECT string_agg(CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE "
            + "pg_get_userbyid(x.grantee)::text END || ' ' || x.privilege_type || ' ' || x.is_grantable, ',' "
            + "ORDER BY 1) FROM pg_proc p, aclexplode(p.proacl) x WHERE p.oid = 'shop.total(int)'::regprocedure "
            + "AND x.grantee <> p.proowner) || ' / ' || (SELECT string_agg(CASE WHEN x.grantee = 0 THEN 'PUBLIC' "
            + "ELSE pg_get_userbyid(x.grantee)::text END || ' ' || x.privilege_type || ' ' || x.is_grantable, ',' "
            + "ORDER BY 1) FROM pg_class c, aclexplode(c.relacl) x WHERE c.oid = 'shop.item_sales'::regclass "
            + "AND x.grantee <> c.relowner)";
    /** The publications, their tables with columns and row filters, and their options. */
    private static final String PUBLISHED = "SELECT string_agg(p.pubname || ' ' || p.pubinsert || p.pubupdate "
            + "|| p.pubdelete || p.pubtruncate || p.pubviaroot || ' ' || coalesce(obj_description(p.oid, "
            + "'pg_publication'), '') || ' ' || (SELECT string_agg(t.tablename || '(' || array_to_string(t.attnames, "
            + "',') || ')' || coalesce(t.rowfilter, ''), ';' ORDER BY t.tablename) FROM pg_publication_tables t "
            + "WHERE t.pubname = p.pubname), E'\\n' ORDER BY p.pubname) FROM pg_publication p";
    private static final String VIEW_ROWS = "SELECT string_agg(name || '=' || coalesce(total, 0), ',' ORDER BY id) "
            + "FROM shop.item_sales";
    private static final String FILLED = "SELECT string_agg(item_id || ':' || qty || ':' || ids, ',' ORDER BY item_id) "
            + "FROM shop.sales_by_item";

    @TempDir
    Path dir;

    @Test
    void aSchemasObjectsComeWithItsTablesInOneSpec() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String role = "shop_clerk_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String source = pg.createDatabase("objects_src");
        sql(pg, "postgres", "CREATE ROLE \"" + role + "\"");
        sql(pg, source, schema(role).toArray(String[]::new));
        // An extension the schema uses: an index's operator class and a function a view calls are its.
        sql(pg, source, "CREATE EXTENSION pg_trgm WITH SCHEMA public",
                "CREATE INDEX items_name_trgm ON shop.items USING gin (name public.gin_trgm_ops)",
                "CREATE VIEW shop.like_items AS SELECT name, public.similarity(name, 'item 1') AS score FROM shop.items",
                // A column of an extension's type, and a default that calls an extension's function: the table is
                // created after the extension.
                "CREATE EXTENSION citext WITH SCHEMA public",
                "ALTER TABLE shop.sales ADD COLUMN note public.citext DEFAULT 'Noted'",
                "ALTER TABLE shop.sales ADD COLUMN likeness real DEFAULT public.similarity('item', 'items')",
                // A check the copy runs calls a schema function, which calls another (inside its body, which no
                // catalog records): both come before the table, as pg_dump orders them; one that returns the
                // table's rows comes after it.
                "CREATE FUNCTION shop.pad(n bigint) RETURNS text LANGUAGE sql IMMUTABLE "
                        + "AS $$SELECT lpad(n::text, 6, '0')$$",
                "CREATE FUNCTION shop.valid_qty(q int) RETURNS boolean LANGUAGE sql IMMUTABLE "
                        + "AS $$SELECT length(shop.pad(q)) = 6$$",
                "ALTER TABLE shop.sales ADD CONSTRAINT qty_ok CHECK (shop.valid_qty(qty))",
                "CREATE FUNCTION shop.calm_items() RETURNS SETOF shop.items LANGUAGE sql STABLE "
                        + "AS $$SELECT * FROM shop.items WHERE mood = 'calm'$$",
                // Privileges set on objects (privileges: copy carries them): a function PUBLIC may not call.
                "REVOKE ALL ON FUNCTION shop.total(int) FROM PUBLIC",
                "GRANT EXECUTE ON FUNCTION shop.total(int) TO \"" + role + "\"",
                "GRANT SELECT ON shop.item_sales TO \"" + role + "\" WITH GRANT OPTION",
                // The schema itself: created with its comment, owner (owners:) and grants (privileges: copy).
                "COMMENT ON SCHEMA shop IS 'the shop'", "GRANT USAGE ON SCHEMA shop TO \"" + role + "\"");
        String expected = text(pg, source, OBJECTS);
        String granted = text(pg, source, GRANTED);
        assertEquals(role + " EXECUTE false / " + role + " SELECT true", granted);
        assertTrue(expected.contains("items_stamp") && expected.contains("calm_only") && expected.contains("list(text)"),
                expected);

        try (TestingPostgres other = TestingPostgres.start()) {
            String target = other.createDatabase("objects_dst"); // no schema shop: objects: all creates it
            Path spec = spec("objects.yaml", pg, source, other, target, "shop.{table}");
            // The policy's role is the source server's: the target lacks it, which plan and lint --connect refuse.
            for (CliRun refused : List.of(CliRun.of("plan", spec.toString()),
                    CliRun.of("lint", "--connect", spec.toString()))) {
                assertTrue(refused.exitCode() != 0 && refused.all().contains("PG240")
                        && refused.all().contains(role), refused.all());
            }
            assertEquals(0, scalar(other, target, "SELECT count(*) FROM pg_namespace WHERE nspname = 'shop'"),
                    "nothing created before the refusal");

            sql(other, "postgres", "CREATE ROLE \"" + role + "\"");
            // The target database lacks the extension, and a user that may not create it (neither superuser nor
            // holding CREATE on the database, for a trusted one) is refused with the statement to run; nothing made.
            String loader = "shop_loader_" + role.substring("shop_clerk_".length());
            sql(other, "postgres", "CREATE ROLE " + loader + " LOGIN");
            Path asLoader = Files.writeString(dir.resolve("loader.yaml"), Files.readString(spec)
                    .replace("user: \"" + other.user() + "\" }\nstreams", "user: \"" + loader + "\" }\nstreams"));
            CliRun noExtension = CliRun.of("plan", asLoader.toString());
            assertTrue(noExtension.exitCode() != 0 && noExtension.all().contains("PG241")
                    && noExtension.all().contains("CREATE EXTENSION \"pg_trgm\" WITH SCHEMA \"public\" CASCADE"),
                    noExtension.all());
            assertEquals(0, scalar(other, target, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'"));

            CliRun plan = CliRun.of("plan", spec.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            for (String extension : List.of("citext", "pg_trgm")) {
                assertTrue(plan.out().contains("CREATE EXTENSION IF NOT EXISTS \"" + extension + "\" WITH SCHEMA "
                        + "\"public\" CASCADE"), "the extension, created before the tables\n" + plan.out());
            }
            for (String statement : List.of("CREATE OR REPLACE FUNCTION shop.total(p_item integer)",
                    "CREATE AGGREGATE shop.list(text) (SFUNC = shop.cat, STYPE = text)",
                    "CREATE MATERIALIZED VIEW shop.sales_by_item AS", "WITH NO DATA",
                    "CREATE TRIGGER items_stamp BEFORE INSERT OR UPDATE ON shop.items",
                    "ALTER TABLE shop.sales DISABLE TRIGGER \"sales_stamp\"",
                    "CREATE POLICY \"calm_only\" ON shop.items AS PERMISSIVE FOR SELECT",
                    "REFRESH MATERIALIZED VIEW shop.sales_by_item", "do not fire on the copied rows",
                    "pg_dump --schema-only", "schema \"shop\" does not exist: created with the table",
                    "not carried: publication \"shop_feed\" (publications: copy carries it)",
                    "are created before its first table")) {
                assertTrue(plan.out().contains(statement), statement + "\n" + plan.out());
            }
            int view = plan.out().indexOf("CREATE VIEW shop.item_sales AS");
            assertTrue(view > 0 && view < plan.out().indexOf("CREATE VIEW shop.busy_items AS"),
                    "a view after the view it reads\n" + plan.out());

            CliRun run = CliRun.of("run", spec.toString());
            assertEquals(0, run.exitCode(), run.all());
            assertSameObjects(pg, source, other, target);
            assertEquals("the shop", text(other, target, "SELECT obj_description('shop'::regnamespace, "
                    + "'pg_namespace')"), "the created schema's comment");
            assertEquals("500 Noted", text(other, target, "SELECT count(*) || ' ' || string_agg(DISTINCT "
                    + "note::text, ',') FROM shop.sales WHERE note = 'NOTED' AND likeness > 0"),
                    "the extension's type and function, in the created table's columns and defaults");
            assertEquals("copied", text(other, target, "SELECT string_agg(DISTINCT stamp, ',') FROM shop.items"),
                    "the trigger did not fire on the copied rows");
            sql(other, target, "INSERT INTO shop.item_sales (name) VALUES ('through the rule')");
            assertEquals("fired", text(other, target, "SELECT stamp FROM shop.items WHERE name = 'through the rule'"),
                    "the rule and the trigger work on the target");

            // Again, fresh: every object is there already; the run keeps them and fills the materialized view again.
            sql(other, target, "DELETE FROM shop.items WHERE name = 'through the rule'");
            assertEquals(0, scalar(other, target, "SELECT count(*) FROM pg_publication"));
            // With publications: copy, the one the first run left out is created (the others are there already).
            CliRun again = CliRun.of("run", spec("publications.yaml", pg, source, other, target, "shop.{table}",
                    ", publications: copy").toString());
            assertEquals(0, again.exitCode(), again.all());
            assertSameObjects(pg, source, other, target);
            assertEquals(text(pg, source, PUBLISHED), text(other, target, PUBLISHED),
                    "the publication, its tables, columns, row filter, options and comment as the source's");
            // publications: copy without objects: all is refused at plan.
            Path alone = Files.writeString(dir.resolve("alone.yaml"), Files.readString(dir.resolve(
                    "publications.yaml")).replace("objects: all, ", ""));
            CliRun refusedAlone = CliRun.of("plan", alone.toString());
            assertTrue(refusedAlone.exitCode() != 0 && refusedAlone.all().contains("PG243"), refusedAlone.all());

            // owners: the functions and views go to the mapped role, as the tables do; privileges: copy grants what
            // the source's grant (PUBLIC's default EXECUTE revoked, as there).
            String owned = other.createDatabase("objects_owned");
            String owner = "shop_owner_" + role.substring("shop_clerk_".length());
            sql(other, owned, "CREATE EXTENSION pg_trgm WITH SCHEMA public", "CREATE ROLE " + owner);
            CliRun mapped = CliRun.of("run", spec("owned.yaml", pg, source, other, owned, "shop.{table}",
                    ", privileges: copy, owners: { " + pg.user() + ": " + owner + " }").toString());
            assertEquals(0, mapped.exitCode(), mapped.all());
            assertEquals(granted, text(other, owned, GRANTED), "the objects' grants, as the source's");
            assertEquals(owner + " " + role, text(other, owned, "SELECT nspowner::regrole::text || ' ' || (SELECT "
                    + "string_agg(pg_get_userbyid(x.grantee), ',') FROM aclexplode(nspacl) x WHERE x.grantee <> "
                    + "nspowner) FROM pg_namespace WHERE nspname = 'shop'"), "the created schema: mapped owner, grants");
            assertEquals(owner + "," + owner + "," + owner + "," + owner, text(other, owned, "SELECT "
                    + "(SELECT proowner::regrole::text FROM pg_proc WHERE oid = 'shop.total(int)'::regprocedure) || ',' "
                    + "|| (SELECT proowner::regrole::text FROM pg_proc WHERE oid = 'shop.list(text)'::regprocedure) "
                    + "|| ',' || (SELECT relowner::regrole::text FROM pg_class WHERE oid = 'shop.item_sales'::regclass) "
                    + "|| ',' || (SELECT relowner::regrole::text FROM pg_class WHERE oid = 'shop.sales_by_item'::regclass)"),
                    "the mapped owner owns the functions, aggregate, views and materialized view");

            // The objects name the source's tables: copies under another schema are refused, nothing created.
            String renamed = other.createDatabase("objects_renamed");
            sql(other, renamed, "CREATE SCHEMA copy");
            CliRun elsewhere = CliRun.of("plan", spec("renamed.yaml", pg, source, other, renamed, "copy.{table}")
                    .toString());
            assertTrue(elsewhere.exitCode() != 0 && elsewhere.all().contains("PG238"), elsewhere.all());
        }
    }

    /**
     * {@code --schema-only} creates the tables and the objects and copies no rows (the materialized view stays empty);
     * {@code --data-only} then copies the rows into them and fills the view, creating nothing, and refuses a target
     * that lacks a table. A stream that reads incrementally is refused with --schema-only (it would record a mark).
     */
    @Test
    void aSchemaOnlyRunMakesTheObjectsWithoutRowsAndADataOnlyRunFillsThem() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("objects_split_src");
        String target = pg.createDatabase("objects_split_dst");
        String role = "shop_split";
        sql(pg, "postgres", "DO $$BEGIN CREATE ROLE " + role + "; EXCEPTION WHEN duplicate_object THEN NULL; END$$");
        sql(pg, source, schema(role).toArray(String[]::new));
        sql(pg, target, "CREATE SCHEMA shop");
        Path spec = spec("split.yaml", pg, source, pg, target, "shop.{table}");

        CliRun nothingYet = CliRun.of("plan", spec.toString(), "--data-only");
        assertTrue(nothingYet.exitCode() != 0 && nothingYet.all().contains("--data-only creates nothing"),
                nothingYet.all());
        CliRun both = CliRun.of("plan", spec.toString(), "--data-only", "--schema-only");
        assertEquals(2, both.exitCode(), both.all());

        CliRun plan = CliRun.of("plan", spec.toString(), "--schema-only");
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("0 partition(s)") && !plan.out().contains("REFRESH MATERIALIZED VIEW")
                && plan.out().contains("--schema-only: the materialized views are created empty"), plan.out());
        CliRun schemaOnly = CliRun.of("run", spec.toString(), "--schema-only");
        assertEquals(0, schemaOnly.exitCode(), schemaOnly.all());
        assertEquals(text(pg, source, OBJECTS), text(pg, target, OBJECTS), "every object, as the source has it");
        assertEquals(0, scalar(pg, target, "SELECT (SELECT count(*) FROM shop.items) + (SELECT count(*) FROM "
                + "shop.sales)"), "no rows");
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_class WHERE oid = 'shop.sales_by_item'::regclass "
                + "AND relispopulated"), "the materialized view created empty");

        CliRun dataOnly = CliRun.of("run", spec.toString(), "--data-only");
        assertEquals(0, dataOnly.exitCode(), dataOnly.all());
        assertSameObjects(pg, source, pg, target);
        assertEquals(500, scalar(pg, target, "SELECT count(*) FROM shop.sales"));

        Path incremental = Files.writeString(dir.resolve("incremental.yaml"), Files.readString(spec)
                .replace("    load-mode: truncate", "    load-mode: append\n    incremental: { cursor: id }"));
        CliRun refused = CliRun.of("plan", incremental.toString(), "--schema-only");
        assertTrue(refused.exitCode() != 0 && refused.all().contains("PLAN011"), refused.all());
    }

    @ParameterizedTest(name = "SIGKILL while creating the objects, then {0}")
    @ValueSource(strings = {"resume", "fresh"})
    void aRunKilledWhileItCreatesTheObjectsLeavesNoneAndEndsWithAll(String recovery) throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String source = pg.createDatabase("objects_crash_src_" + recovery);
        String target = pg.createDatabase("objects_crash_dst_" + recovery);
        String role = "shop_crash_" + recovery;
        sql(pg, "postgres", "DO $$BEGIN CREATE ROLE " + role + "; EXCEPTION WHEN duplicate_object THEN NULL; END$$");
        sql(pg, source, schema(role).toArray(String[]::new));
        sql(pg, target, "CREATE SCHEMA shop");
        Path spec = spec("crash.yaml", pg, source, pg, target, "shop.{table}");
        Path log = dir.resolve("killed.log");
        Process run;
        // The materialized view's gate waits for the lock the test holds: the run stops inside the objects'
        // transaction, after the functions, views and triggers were created in it.
        try (Connection gate = pg.connect(target); Statement s = gate.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + GATE + ")");
            run = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "killed");
            LedgerFixture.waitUntil(run, log, () -> scalar(pg, target, "SELECT count(*) FROM pg_locks "
                    + "WHERE locktype = 'advisory' AND objid = " + GATE + " AND NOT granted AND database = "
                    + "(SELECT oid FROM pg_database WHERE datname = current_database())") > 0);
            run.destroyForcibly();
            assertTrue(run.waitFor(60, TimeUnit.SECONDS));
        }
        // The gate open, the killed run's session fills the view, finds its client gone and rolls everything back.
        assertEquals(60, scalar(pg, target, "SELECT count(*) FROM shop.items"));
        assertEquals(0, scalar(pg, target, "SELECT count(*) FROM pg_class WHERE relnamespace = "
                + "'shop'::regnamespace AND relkind IN ('v', 'm')"), "the killed transaction created nothing");
        CliRun recovered = recovery.equals("resume") ? CliRun.of("run", spec.toString(), "--resume", "killed")
                : CliRun.of("run", spec.toString(), "--run-id", "fresh");
        assertEquals(0, recovered.exitCode(), Files.readString(log) + "\n---\n" + recovered.all());
        assertSameObjects(pg, source, pg, target);
    }

    private static void assertSameObjects(TestingPostgres from, String source, TestingPostgres to, String target)
            throws Exception {
        String copied = text(to, target, OBJECTS);
        assertNotNull(copied);
        assertEquals(text(from, source, OBJECTS), copied, "every object as the source's catalog prints it");
        assertEquals(text(from, source, VIEW_ROWS), text(to, target, VIEW_ROWS), "the views read the copied rows");
        assertEquals(text(from, source, FILLED), text(to, target, FILLED), "the materialized view is filled");
        assertEquals(text(from, source, "SELECT shop.list(name) FROM (SELECT name FROM shop.items ORDER BY id) x"),
                text(to, target, "SELECT shop.list(name) FROM (SELECT name FROM shop.items ORDER BY id) x"),
                "the aggregate works");
    }

    private Path spec(String file, TestingPostgres from, String source, TestingPostgres to, String target,
                      String table) throws Exception {
        return spec(file, from, source, to, target, table, "");
    }

    private Path spec(String file, TestingPostgres from, String source, TestingPostgres to, String target,
                      String table, String targetExtra) throws Exception {
        return spec(dir, file, from, source, to, target, table, targetExtra);
    }

    /** One pattern stream of schema shop into {@code table}, objects: all, truncate, written into {@code dir}. */
    static Path spec(Path dir, String file, TestingPostgres from, String source, TestingPostgres to, String target,
                     String table, String targetExtra) throws Exception {
        return Files.writeString(dir.resolve(file), """
                version: 1
                name: objects
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: src, table: "shop.*" }
                    target: { connection: dst, table: "%s", create: if-missing, objects: all%s }
                    load-mode: truncate
                """.formatted(from.jdbcUrl(source), from.user(), to.jdbcUrl(target), to.user(), table, targetExtra));
    }

    private static String text(TestingPostgres pg, String database, String query) throws Exception {
        try (var c = pg.connect(database); var s = c.createStatement(); var rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

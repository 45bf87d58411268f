package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The load modes on real PostgreSQL: create if-missing, replace by shadow table and swap (readers never see it empty;
 * a crash before the swap resumes into the same shadow; a run not resumed is cleaned up by the next), merge by key
 * (exactly once per partition, duplicates, delete-missing), and index rebuilds that survive a SIGKILL.
 */
class LoadModesTest {
    @TempDir
    Path dir;

    @Test
    void createIfMissingMakesTheTableFromTheSourceTypesAndAddsThePrimaryKeyAfterTheLoad() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "create", 1);
        f.sql(f.source, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE TABLE wide (id bigint GENERATED ALWAYS AS IDENTITY, code varchar(10) NOT NULL, "
                        + "amount numeric(12,2), tags integer[], feeling mood, during tstzrange, at timestamptz)",
                "INSERT INTO wide (code, amount, tags, feeling, during, at) SELECT 'c' || g, g / 3.0, "
                        + "ARRAY[g, g + 1], (ARRAY['sad','ok','happy']::mood[])[1 + g % 3], tstzrange(now(), NULL), "
                        + "timestamptz '2026-01-01' + g * interval '1 minute' FROM generate_series(1, 5000) g");
        // definition: bare (columns only): TableDefinitionTest covers the definition, and the types it creates.
        Path spec = spec("create.yaml", "wide", "{ connection: dst, table: public.wide, create: if-missing, "
                + "definition: bare, primary-key: [id] }", f, "load-mode: append", "distribution: { method: ctid }", "degree: 2",
                "batch-size: 1000");

        // The target lacks the enum: refused before anything is written, with the DDL to create it as the fix.
        CliRun refused = CliRun.of("run", spec.toString(), "--run-id", "create-0");
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("no type for column(s) feeling mood")
                && refused.all().contains("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')"), refused.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname = 'wide'"));

        f.sql(f.target, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("CREATE TABLE \"public\".\"wide\" (\"id\" bigint NOT NULL, \"code\" "
                + "character varying(10) NOT NULL, \"amount\" numeric(12,2), \"tags\" integer[], \"feeling\" mood"),
                plan.out());
        assertTrue(plan.out().contains("ALTER TABLE \"public\".\"wide\" ADD CONSTRAINT \"wide_pkey\" PRIMARY KEY "
                + "(\"id\")"), plan.out());

        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "create-1");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(columns(f, f.source, "wide"), columns(f, f.target, "wide"), "the source's own column types");
        assertEquals(5000, f.scalar(f.target, "SELECT count(*) FROM wide"));
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'wide'::regclass "
                + "AND contype = 'p'"), "the primary key was added after the load");

        CliRun again = CliRun.of("run", spec.toString(), "--run-id", "create-2");
        assertEquals(1, again.exitCode(), "the table exists now: appending the same ids breaks the key\n"
                + again.all());
    }

    @Test
    void aMissingTableWithoutCreateIsRefusedWithTheFix() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "nocreate", 10);
        Path spec = spec("nocreate.yaml", "items", "{ connection: dst, table: missing_items }", f);
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.all().contains("does not exist") && run.all().contains("create: if-missing"), run.all());
        CliRun lint = CliRun.of("lint", spec.toString(), "--connect");
        assertEquals(3, lint.exitCode(), lint.all());
        assertTrue(lint.all().contains("nocreate.yaml:9:") && lint.all().contains("error[PG203]"), lint.all());
    }

    @Test
    void replaceSwapsTheNewTableInAndReadersNeverSeeItEmptyOrPartial() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replace", 150_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'old ' || g, 1 FROM generate_series(1, 1000) g",
                "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)",
                "CREATE INDEX items_cheap ON items (price) WHERE price < 10", "COMMENT ON TABLE items IS 'the items'",
                "CREATE ROLE replace_reader", "GRANT SELECT ON items TO replace_reader",
                "ALTER TABLE items ADD CONSTRAINT positive CHECK (id > 0)",
                "CREATE SEQUENCE items_id_seq OWNED BY items.id",
                "ALTER TABLE items ALTER id SET DEFAULT nextval('items_id_seq')");
        List<String> indexesBefore = indexDefinitions(f, "items");
        Path spec = spec("replace.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "distribution: { method: ctid }", "degree: 2", "batch-size: 10000", "verify: count");

        AtomicBoolean stop = new AtomicBoolean();
        List<Long> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> readerErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread reader = Thread.ofPlatform().start(() -> {
            try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement()) {
                while (!stop.get()) {
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
                        rs.next();
                        seen.add(rs.getLong(1));
                    }
                }
            } catch (Throwable e) {
                readerErrors.add(e);
            }
        });
        CliRun run;
        try {
            run = CliRun.of("run", spec.toString(), "--run-id", "replace-1");
        } finally {
            stop.set(true);
            reader.join();
        }
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(readerErrors.isEmpty(), "the reader failed: " + readerErrors);
        assertTrue(seen.stream().allMatch(n -> n == 1000 || n == 150_000), "a reader saw only the old or the new "
                + "table, never an empty or partial one: " + seen.stream().distinct().toList());
        assertTrue(seen.contains(150_000L) && seen.size() > 10, "the reader ran across the swap: " + seen.size());
        assertEquals(0, f.differences());
        assertEquals(indexesBefore, indexDefinitions(f, "items"), "every index back under its name, identical");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'items'::regclass "
                + "AND conname = 'positive'"));
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_description WHERE objoid = 'items'::regclass "
                + "AND objsubid = 0 AND description = 'the items'"), "the table's comment carried over");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname = 'items' AND "
                + "has_table_privilege('replace_reader', oid, 'SELECT')"), "grants carried over");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname LIKE '%sluice%' "
                    + "AND relpersistence <> 't'"),
                "nothing left behind");
        f.sql(f.target, "INSERT INTO items (name) VALUES ('next')");
        assertEquals(150_001, f.scalar(f.target, "SELECT id FROM items WHERE name = 'next'"), "the serial sequence "
                + "went to the new table, set past its largest value");
        f.sql(f.target, "DELETE FROM items WHERE name = 'next'");

        // keep-previous keeps the swapped-out table as items_old, and a second such run replaces that one.
        Path keep = spec("keep.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "keep-previous: true");
        for (String id : List.of("keep-1", "keep-2")) {
            CliRun kept = CliRun.of("run", keep.toString(), "--run-id", id);
            assertEquals(0, kept.exitCode(), kept.all());
        }
        assertEquals(150_000, f.scalar(f.target, "SELECT count(*) FROM items_old"));
        assertEquals(0, f.differences());
    }

    @Test
    void replaceIsRefusedWhenAViewDependsOnTheTable() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replview", 10);
        f.sql(f.target, "CREATE VIEW cheap_items AS SELECT * FROM items WHERE price < 1");
        Path spec = spec("view.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(4, run.exitCode(), run.all());
        assertTrue(run.all().contains("view or rule cheap_items depends on it")
                && run.all().contains("use load-mode truncate"), run.all());
    }

    @Test
    void aReplaceKilledMidCopyResumesIntoTheSameShadowOrIsCleanedUpByTheNextRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replres", 200_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'old', 1 FROM generate_series(1, 100) g");
        Path spec = spec("resume.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "distribution: { method: ctid }", "degree: 2", "batch-size: 5000");
        f.killAfterDone(spec, "rep-1", 3);
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"), "the old table is untouched");
        long inShadow = f.scalar(f.target, "SELECT count(*) FROM items_sluice_shadow");
        assertTrue(inShadow > 0 && inShadow < 200_000, inShadow + " rows in the shadow");
        CliRun status = CliRun.of("status", spec.toString(), "rep-1");
        assertTrue(status.out().contains("left behind: shadow table \"public\".\"items_sluice_shadow\""),
                status.out());

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "rep-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.all().contains("partitions done before"), resumed.all());
        assertEquals(0, f.differences(), "the resume finished the same shadow and swapped it in");

        // A killed run that is not resumed: the next run of the spec drops its shadow and starts afresh.
        f.killAfterDone(spec, "rep-2", 2);
        assertTrue(f.scalar(f.target, "SELECT count(*) FROM items_sluice_shadow") < 200_000);
        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "rep-3");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(0, f.differences());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname LIKE '%sluice_shadow%'"));
    }

    @Test
    void aReplaceKilledWhileWaitingToSwapLeavesTheOldTableAndResumesToTheNew() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replkill", 20_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'old', 1 FROM generate_series(1, 100) g");
        Path spec = spec("kill.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "distribution: { method: ctid }", "degree: 2", "batch-size: 5000", "lock-timeout: 5m");
        try (Connection holder = f.pg.connect(f.target); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("LOCK TABLE items IN ACCESS SHARE MODE"); // a long reader: the swap waits for it
            Process child = LedgerFixture.startSluice(dir.resolve("kill.log"), "run", spec.toString(), "--run-id",
                    "kill-1");
            LedgerFixture.waitUntil(child, dir.resolve("kill.log"), () -> f.scalar(f.target, "SELECT count(*) FROM pg_locks l "
                    + "JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'items' AND l.mode = "
                    + "'AccessExclusiveLock' AND NOT l.granted") > 0);
            child.destroyForcibly(); // SIGKILL while the swap waits
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            holder.rollback();
        }
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"), "the old table stayed");
        assertEquals(20_000, f.scalar(f.target, "SELECT count(*) FROM items_sluice_shadow"));
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "kill-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences());
    }

    @Test
    void aSwapThatCannotGetItsLockFailsClearlyAndLeavesTheOldTable() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replock", 5_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'old', 1 FROM generate_series(1, 10) g");
        Path spec = spec("lock.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "lock-timeout: 1s");
        try (Connection holder = f.pg.connect(f.target); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("SELECT count(*) FROM items"); // a reader's transaction holds its lock until it ends
            CliRun blocked = CliRun.of("run", spec.toString(), "--run-id", "lock-1");
            assertEquals(1, blocked.exitCode(), blocked.all());
            assertTrue(blocked.all().contains("error[PG420]") && blocked.all().contains("to swap in the new table")
                    && blocked.all().contains("held by"), blocked.all());
            holder.rollback();
        }
        assertEquals(10, f.scalar(f.target, "SELECT count(*) FROM items"), "the old table stayed");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "lock-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences());
    }

    @Test
    void aMergeIntoATableItCreatedKilledMidCopyResumesExactlyOnce() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "mergekill", 200_000);
        Path spec = spec("mergekill.yaml", "items", "{ connection: dst, table: merged_items, create: if-missing, "
                + "primary-key: [id] }", f, "load-mode: merge", "distribution: { method: ctid }", "degree: 2",
                "batch-size: 5000");
        CliRun lint = CliRun.of("lint", spec.toString(), "--connect");
        assertEquals(0, lint.exitCode(), lint.all());
        assertTrue(lint.all().contains("note[CONNECT002]") && lint.all().contains("does not exist: the load creates "
                + "it"), lint.all());
        f.killAfterDone(spec, "mk-1", 3);
        long merged = f.scalar(f.target, "SELECT count(*) FROM merged_items");
        assertTrue(merged > 0 && merged < 200_000, merged + " rows merged before the kill");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "mk-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        f.sql(f.target, "DROP TABLE items", "ALTER TABLE merged_items RENAME TO items");
        assertEquals(0, f.differences(), "every row once");
    }

    @Test
    void mergeUpsertsByKeyAndDeleteMissingLeavesExactlyTheSource() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "merge", 20_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                "INSERT INTO items SELECT g, 'stale ' || g, 0 FROM generate_series(10001, 30000) g");
        Path spec = spec("merge.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "distribution: { method: range, key: id }", "degree: 2", "batch-size: 4000");
        CliRun merged = CliRun.of("run", spec.toString(), "--run-id", "merge-1");
        assertEquals(0, merged.exitCode(), merged.all());
        assertEquals(30_000, f.scalar(f.target, "SELECT count(*) FROM items"), "10000 inserted, 10000 updated, "
                + "10000 kept");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items WHERE id <= 20000 AND name LIKE 'stale%'"));
        assertEquals(10_000, f.scalar(f.target, "SELECT count(*) FROM items WHERE name LIKE 'stale%'"));

        Path full = spec("merge-full.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "delete-missing: true", "distribution: { method: range, key: id }", "degree: 2", "batch-size: 4000",
                "verify: count");
        CliRun synced = CliRun.of("run", full.toString(), "--run-id", "merge-2");
        assertEquals(0, synced.exitCode(), synced.all());
        assertEquals(0, f.differences(), "the rows the source lacks were deleted");
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname LIKE '%sluice_keys%'"));
    }

    @Test
    void mergeRefusesDuplicateKeysNamingOneOrLetsTheLastRowWin() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "mergedup", 100);
        f.sql(f.source, "INSERT INTO items VALUES (7, 'second seven', 2)");
        f.sql(f.target, "ALTER TABLE items ADD CONSTRAINT items_key UNIQUE (id)");
        Path spec = spec("dup.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "merge-key: [id]");
        CliRun refused = CliRun.of("run", spec.toString(), "--run-id", "dup-1");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("(id) = (7) appears 2 times") && refused.all().contains("on-duplicate: last"),
                refused.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "the partition was rolled back");

        Path last = spec("last.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "merge-key: [id]", "on-duplicate: last");
        CliRun won = CliRun.of("run", last.toString(), "--run-id", "dup-2");
        assertEquals(0, won.exitCode(), won.all());
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items WHERE id = 7 AND name = 'second seven'"),
                "the row read last won");
    }

    @Test
    void mergeWithoutAUniqueIndexOnTheKeyIsRefusedAtPlanTime() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "mergekey", 10);
        Path spec = spec("nokey.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge");
        CliRun noKey = CliRun.of("run", spec.toString());
        assertEquals(4, noKey.exitCode(), noKey.all());
        assertTrue(noKey.all().contains("has no primary key") && noKey.all().contains("merge-key"), noKey.all());
        Path named = spec("named.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "merge-key: [id, name]");
        CliRun noIndex = CliRun.of("run", named.toString());
        assertEquals(4, noIndex.exitCode(), noIndex.all());
        assertTrue(noIndex.all().contains("CREATE UNIQUE INDEX ON \"public\".\"items\" (\"id\", \"name\")"),
                noIndex.all());
    }

    @Test
    void indexesRebuiltAfterASigkillAreIdentical() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rebuild", 100_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)",
                "CREATE INDEX items_price ON items (price DESC) INCLUDE (name)",
                "CREATE UNIQUE INDEX items_lower ON items (lower(name)) WHERE price > 0");
        List<String> before = indexDefinitions(f, "items");
        Path spec = spec("rebuild.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: truncate",
                "indexes: rebuild", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000",
                "lock-timeout: 5m");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("DROP INDEX \"public\".\"items_name\"")
                && plan.out().contains("ALTER TABLE \"public\".\"items\" DROP CONSTRAINT \"items_pkey\""), plan.out());

        Process child = LedgerFixture.startSluice(dir.resolve("rebuild.log"), "run", spec.toString(), "--run-id",
                "rebuild-1");
        LedgerFixture.waitUntil(child, dir.resolve("rebuild.log"), () -> f.scalar(f.target, "SELECT count(*) FROM sluice.run_marks "
                + "WHERE run_id = 'rebuild-1' AND name = 'target.indexes.dropped'") > 0);
        child.destroyForcibly(); // SIGKILL after the drop, before the rebuild
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertTrue(indexDefinitions(f, "items").size() < before.size(), "the kill came after the drop");
        CliRun status = CliRun.of("status", spec.toString(), "rebuild-1");
        assertTrue(status.out().contains("index(es) of \"public\".\"items\" to build again"), status.out());

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "rebuild-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(before, indexDefinitions(f, "items"), "every index back, identical");
        assertEquals(0, f.differences());
    }

    @Test
    void hostileNamesGetShadowNamesWithinSixtyThreeBytes() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "hostile", 1000);
        String name = "Ödd \"quoted\" name; DROP TABLE items; -- a tail to the limit!!!";
        String quoted = "\"" + name.replace("\"", "\"\"") + "\"";
        assertEquals(63, name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, "PostgreSQL's longest name");
        f.sql(f.target, "CREATE TABLE " + quoted + " (id bigint PRIMARY KEY, name text, price numeric(10,2))",
                "INSERT INTO " + quoted + " VALUES (1, 'old', 1)");
        Path spec = spec("hostile.yaml", "items", "{ connection: dst, table: '" + quoted.replace("'", "''")
                + "' }", f, "load-mode: replace");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "hostile-1");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM " + quoted));
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "the other (empty) table is untouched");
        assertFalse(run.all().contains("NAMEDATALEN"), run.all());
    }

    @Test
    void lintPlacesLoadModeMistakes() throws Exception {
        Path spec = dir.resolve("bad.yaml");
        Files.writeString(spec, """
                version: 1
                name: load-bad
                ledger: off
                connections:
                  src: { type: postgres, url: "jdbc:postgresql://localhost/x" }
                streams:
                  - name: items
                    source: { connection: src, table: items }
                    target: { connection: src, table: items_copy, create: sometimes }
                    load-mode: append
                    merge-kye: [id]
                    keep-previous: true
                  - name: other
                    source: { connection: src, table: other }
                    target: { connection: src, table: other_copy }
                    load-mode: replace
                """);
        CliRun lint = CliRun.of("lint", spec.toString());
        assertEquals(3, lint.exitCode(), lint.all());
        String out = lint.all();
        assertTrue(out.contains("bad.yaml:11:5") && out.contains("unknown key 'merge-kye'")
                && out.contains("did you mean 'merge-key'?"), out);
        assertTrue(out.contains("bad.yaml:12:") && out.contains("'keep-previous'") && out.contains("error[SPEC028]"),
                out);
        assertTrue(out.contains("bad.yaml:9:") && out.contains("'sometimes'") && out.contains("if-missing"), out);
        assertTrue(out.contains("bad.yaml:16:") && out.contains("'ledger: off'"), out);
    }

    // ---- helpers

    private Path spec(String file, String table, String target, LedgerFixture f, String... extra) throws Exception {
        return spec(dir, file, table, target, f, extra);
    }

    /** A spec copying {@code table} from src into {@code target}; {@code extra} lines go into the stream. */
    static Path spec(Path dir, String file, String table, String target, LedgerFixture f, String... extra) throws Exception {
        Path spec = dir.resolve(file);
        Files.writeString(spec, """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: src, table: %s }
                    target: %s
                """.formatted(file.replace(".yaml", ""), f.pg.jdbcUrl(f.source), f.pg.user(), f.pg.jdbcUrl(f.target),
                f.pg.user(), table, table, target)
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    private static List<String> columns(LedgerFixture f, String database, String table) throws SQLException {
        return f.columns(database, table);
    }

    static List<String> indexDefinitions(LedgerFixture f, String table) throws SQLException {
        return strings(f, f.target, "SELECT pg_get_indexdef(indexrelid) || COALESCE(' ' || (SELECT "
                + "pg_get_constraintdef(c.oid) FROM pg_constraint c WHERE c.conindid = x.indexrelid "
                + "AND c.conrelid = x.indrelid), '') FROM pg_index x WHERE indrelid = '" + table + "'::regclass "
                + "ORDER BY 1");
    }

    private static List<String> strings(LedgerFixture f, String database, String query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = f.pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }
}

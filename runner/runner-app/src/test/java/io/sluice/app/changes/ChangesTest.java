package io.sluice.app.changes;

import io.sluice.app.CliRun;
import io.sluice.app.SluiceProcess;
import io.sluice.testkit.TestingPostgres;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code changes:} on a real server with {@code wal_level = logical}: the copy reads in the slot's snapshot and the
 * changes after it apply exactly once, whatever a writer does meanwhile (inserts, updates that move keys or leave a
 * large TOASTed value alone, deletes, a truncate), across a SIGKILL, a dropped slot, and a followed run stopped by
 * SIGTERM. Equality is an ordered md5 of every table on both sides.
 */
class ChangesTest {
    private static TestingPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        // A slot per test, each left in place (as a user's would be).
        pg = TestingPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "30",
                "max_wal_senders", "30"));
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    private record Databases(String source, String target) {
    }

    private Databases databases(String prefix, int rows) throws SQLException {
        String source = pg.createDatabase(prefix + "_src");
        String target = pg.createDatabase(prefix + "_dst");
        sql(source, "CREATE TABLE orders (id bigint PRIMARY KEY, customer text NOT NULL, amount numeric(12,2), "
                        + "note text, placed timestamptz DEFAULT now())",
                // Out of line and uncompressed: an UPDATE that leaves it alone sends it as unchanged ('u').
                "ALTER TABLE orders ALTER note SET STORAGE EXTERNAL",
                "CREATE TABLE lines (order_id bigint, line int, qty int, PRIMARY KEY (order_id, line))",
                "INSERT INTO orders SELECT g, 'c' || (g % 97), g / 3.0, CASE WHEN g % 50 = 0 THEN repeat(md5(g::text), "
                        + "400) END FROM generate_series(1, " + rows + ") g",
                "INSERT INTO lines SELECT g, l, l * 2 FROM generate_series(1, " + rows + ") g, generate_series(1, 2) l",
                "ANALYZE");
        return new Databases(source, target);
    }

    private Path spec(Databases db, String slot, String... extra) throws Exception {
        Path spec = dir.resolve(slot + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: changes-%s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: shop
                    source: { connection: src, table: "public.*", changes: { slot: %s } }
                    target: { connection: dst, table: "public.{table}", create: if-missing }
                    distribution: { method: ctid }
                    degree: 2
                    batch-size: 2000
                    load-mode: truncate
                """.formatted(slot, pg.jdbcUrl(db.source()), pg.user(), pg.jdbcUrl(db.target()), pg.user(), slot)
                + String.join("", java.util.Arrays.stream(extra).map(l -> l + "\n").toList()));
        return spec;
    }

    /** One writer transaction of every kind of change, over ids near {@code n}. */
    private static void writeSome(Statement s, long n) throws SQLException {
        s.execute("INSERT INTO orders (id, customer, amount) VALUES (" + (1_000_000 + n) + ", 'new', 1.5)");
        s.execute("INSERT INTO lines VALUES (" + (1_000_000 + n) + ", 1, 7)");
        long id = 1 + (n * 7) % 900;
        // Leaves the large note alone: pgoutput sends it as unchanged, the target must keep its own.
        s.execute("UPDATE orders SET amount = amount + 1 WHERE id = " + (id - id % 50 + 50));
        s.execute("UPDATE orders SET customer = customer || '!' WHERE id = " + id);
        s.execute("UPDATE lines SET line = line + 10 WHERE order_id = " + (id + 1) + " AND line < 10"); // key moves
        s.execute("DELETE FROM lines WHERE order_id = " + (id + 2));
        s.execute("DELETE FROM orders WHERE id = " + (id + 3) + " AND id % 50 <> 0");
    }

    private Thread writer(Databases db, AtomicBoolean writing, AtomicReference<Throwable> failed) {
        return Thread.ofVirtual().start(() -> {
            try (Connection c = pg.connect(db.source()); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                long n = 0;
                while (writing.get()) {
                    writeSome(s, n++);
                    c.commit();
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
    }

    /** {@code sluice compare} of a stream that follows changes says how far the applied changes are behind. */
    @Test
    void compareSaysHowFarTheTargetsAppliedChangesAreBehindTheSource() throws Exception {
        Databases db = databases("chg_compare", 300);
        Path spec = spec(db, "sluice_compare");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("changes sluice_compare (shop): applied up to "), equal.out());

        // A change the target has not applied yet: a difference, and the feed says the source is ahead.
        sql(db.source(), "UPDATE orders SET customer = 'moved' WHERE id = 7");
        CliRun behind = CliRun.of("compare", spec.toString(), "--format", "json");
        assertEquals(5, behind.exitCode(), behind.all());
        tools.jackson.databind.JsonNode root = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(behind.out());
        tools.jackson.databind.JsonNode feed = root.get("changeFeeds").get(0);
        assertEquals("sluice_compare", feed.get("feed").asString(), root.toString());
        assertTrue(feed.get("behindBytes").asLong() > 0, root.toString());
        assertTrue(behind.out().contains("\"id\" : \"7\""), behind.out());

        CliRun applied = CliRun.of("run", spec.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertEquals(0, CliRun.of("compare", spec.toString()).exitCode(), "equal once applied");
    }

    @Test
    void theCopyAndTheChangesMeetExactlyWhileAWriterWrites() throws Exception {
        Databases db = databases("chg_exact", 60_000);
        Path spec = spec(db, "sluice_exact");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = writer(db, writing, failed);
        CliRun first = CliRun.of("run", spec.toString());
        assertEquals(0, first.exitCode(), first.all());
        assertTrue(first.err().contains("changes sluice_exact: applying after the copy"), first.err());
        CliRun second = CliRun.of("run", spec.toString());
        assertEquals(0, second.exitCode(), second.all());
        assertTrue(second.err().contains("changes sluice_exact: applying changes only"), second.err());
        writing.set(false);
        writer.join();
        assertEquals(null, failed.get());
        sql(db.source(), "TRUNCATE lines", "INSERT INTO lines SELECT g, 1, 1 FROM generate_series(1, 500) g",
                "UPDATE orders SET note = 'short' WHERE id = 100");
        CliRun third = CliRun.of("run", spec.toString());
        assertEquals(0, third.exitCode(), third.all());
        assertTrue(third.err().contains("1 truncates"), third.err());
        assertEqual(db, "orders", "lines");
        // The slot is confirmed at least up to what the ledger holds (past it only over WAL holding nothing for the
        // feed): the source keeps no WAL for changes already applied.
        String applied = text(db.target(), "SELECT position FROM sluice.change_feeds");
        assertEquals("t", text(db.source(), "SELECT confirmed_flush_lsn >= '" + applied + "'::pg_lsn FROM "
                + "pg_replication_slots WHERE slot_name = 'sluice_exact'"));
    }

    @Test
    void aRunKilledWhileApplyingGoesOnFromTheLedgerAndAppliesNothingTwice() throws Exception {
        Databases db = databases("chg_kill", 15_000);
        // Two table groups: the writer's transactions touch both (applied together), its big one only lines.
        Path spec = spec(db, "sluice_kill", "max-parallel-streams: 2");
        CliRun copy = CliRun.of("run", spec.toString());
        assertEquals(0, copy.exitCode(), copy.all());
        try (Connection c = pg.connect(db.source()); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            // One transaction bigger than a batch (30,000 changes): applied in parts, committed with its last.
            s.execute("UPDATE lines SET qty = qty + 1");
            c.commit();
            for (int n = 0; n < 4_000; n++) {
                writeSome(s, n);
                c.commit();
            }
        }
        String start = text(db.target(), "SELECT position FROM sluice.change_feeds");
        Path log = dir.resolve("kill.log");
        Process child = SluiceProcess.start(log, "run", spec.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (text(db.target(), "SELECT position FROM sluice.change_feeds").equals(start)) {
            assertTrue(child.isAlive(), () -> SluiceProcess.read(log));
            assertTrue(System.nanoTime() < deadline, () -> SluiceProcess.read(log));
            Thread.sleep(5);
        }
        child.destroyForcibly(); // after its first batch committed, likely inside the next
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        String kept = text(db.target(), "SELECT position FROM sluice.change_feeds");
        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.err().contains("from " + kept + " up to"), again.err()); // on from the ledger, not before
        assertEqual(db, "orders", "lines");
    }

    @Test
    void tablesApplyApartEachOnceWhenOneGroupFailsAndTheRunGoesOn() throws Exception {
        // Three tables, two groups: parent and child are tied by a foreign key (one connection, the source's
        // order), other is apart. Each source transaction touches one group, so the groups apply at once.
        String source = pg.createDatabase("chg_apart_src");
        String target = pg.createDatabase("chg_apart_dst");
        sql(source, "CREATE TABLE parent (id bigint PRIMARY KEY, v int NOT NULL)",
                "CREATE TABLE child (id bigint PRIMARY KEY, parent_id bigint NOT NULL REFERENCES parent, v int)",
                "CREATE TABLE other (id bigint PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO parent SELECT g, g FROM generate_series(1, 1000) g",
                "INSERT INTO child SELECT g, g, g FROM generate_series(1, 1000) g",
                "INSERT INTO other SELECT g, g FROM generate_series(1, 1000) g");
        Databases db = new Databases(source, target);
        Path spec = spec(db, "sluice_apart", "max-parallel-streams: 3");
        CliRun copy = CliRun.of("run", spec.toString());
        assertEquals(0, copy.exitCode(), copy.all());
        assertTrue(copy.err().contains("2 table groups at once"), copy.err());
        // Counts each row the apply writes to parent: a change applied twice counts twice.
        sql(target, "CREATE TABLE applied (n bigint NOT NULL)", "INSERT INTO applied VALUES (0)",
                "CREATE FUNCTION count_applied() RETURNS trigger LANGUAGE plpgsql AS "
                        + "$$BEGIN UPDATE applied SET n = n + 1; RETURN NULL; END$$",
                "CREATE TRIGGER counted AFTER INSERT OR UPDATE OR DELETE ON parent FOR EACH ROW "
                        + "EXECUTE FUNCTION count_applied()",
                // The apply runs as a replica (as a subscription does): only ALWAYS triggers fire.
                "ALTER TABLE parent ENABLE ALWAYS TRIGGER counted",
                // The target refuses one value of other's: that group fails, the parent's group commits.
                "ALTER TABLE other ADD CONSTRAINT no_666 CHECK (v <> 666) NOT VALID");
        sql(source, "INSERT INTO parent SELECT g, g FROM generate_series(1001, 1300) g",
                "INSERT INTO child SELECT g, g, g FROM generate_series(1001, 1300) g",
                "INSERT INTO other VALUES (5000, 666)",
                "UPDATE parent SET v = v + 1 WHERE id <= 200",
                "DELETE FROM child WHERE id > 1250");
        CliRun failing = CliRun.of("run", spec.toString());
        assertTrue(failing.exitCode() != 0, failing.all());
        assertTrue(failing.err().contains("no_666") && failing.err().contains("to \"public\".\"other\"")
                && failing.err().contains("the changes apply from where they stopped"), failing.err());
        assertEquals("500", text(target, "SELECT n FROM applied"), "parent's group committed apart: 300 inserts, "
                + "200 updates");
        assertEquals("\"public\".\"child\",\"public\".\"parent\"", text(target, "SELECT string_agg(table_name, "
                + "',' ORDER BY table_name) FROM sluice.change_feed_tables"), "with its tables' positions");
        assertEquals("1000", text(target, "SELECT count(*) FROM other"), "other's group committed nothing");

        sql(target, "ALTER TABLE other DROP CONSTRAINT no_666");
        // The batch sees parent first, then children deleted before their parents: applied per table, parent's
        // deletes would come before child's, which the target's foreign key refuses unless applied as a replica.
        sql(source, "UPDATE parent SET v = 0 WHERE id = 1", "UPDATE other SET v = 1 WHERE id = 1",
                "DELETE FROM child WHERE id > 1200", "DELETE FROM parent WHERE id > 1200");
        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertEquals("601", text(target, "SELECT n FROM applied"), "parent's changes applied once: the last ones "
                + "only (1 update, 100 deletes)");
        assertEquals("1", text(target, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"),
                "the target's foreign key is there");
        assertEquals("0", text(target, "SELECT count(*) FROM sluice.change_feed_tables"), "forgotten once passed");
        assertEqual(db, "parent", "child", "other");
    }

    @Test
    @Tag(TestTier.FULL_ONLY) // quick: aRunKilledWhileApplyingGoesOnFromTheLedgerAndAppliesNothingTwice
    void aRunKilledDuringTheCopyIsResumedOrRunAfreshToTheSameEnd() throws Exception {
        Databases db = databases("chg_copykill", 200_000);
        Path spec = spec(db, "sluice_copykill");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = writer(db, writing, failed);
        Path log = dir.resolve("copykill.log");
        Process child = SluiceProcess.start(log, "run", spec.toString(), "--run-id", "copykill-1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (donePartitions(db, "copykill-1") < 3) {
            assertTrue(child.isAlive(), () -> SluiceProcess.read(log));
            assertTrue(System.nanoTime() < deadline, () -> SluiceProcess.read(log));
            Thread.sleep(5);
        }
        child.destroyForcibly();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "copykill-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.err().contains("applying after the resumed copy"), resumed.err());
        writing.set(false);
        writer.join();
        assertEquals(null, failed.get());
        CliRun caughtUp = CliRun.of("run", spec.toString());
        assertEquals(0, caughtUp.exitCode(), caughtUp.all());
        assertEqual(db, "orders", "lines");

        // A fresh run after a copy killed half-way: a new slot, a full copy in its snapshot, the same end.
        sql(db.target(), "DELETE FROM sluice.change_feeds");
        Process again = SluiceProcess.start(dir.resolve("copykill2.log"), "run", spec.toString(), "--run-id", "copykill-2");
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (donePartitions(db, "copykill-2") < 3) {
            assertTrue(again.isAlive(), () -> SluiceProcess.read(dir.resolve("copykill2.log")));
            assertTrue(System.nanoTime() < deadline);
            Thread.sleep(5);
        }
        again.destroyForcibly();
        assertTrue(again.waitFor(30, TimeUnit.SECONDS));
        try (Connection c = pg.connect(db.source()); Statement s = c.createStatement()) {
            for (int n = 0; n < 200; n++) {
                writeSome(s, 50_000 + n);
            }
        }
        CliRun fresh = CliRun.of("run", spec.toString(), "--discard-unfinished");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertTrue(fresh.err().contains("applying after the copy"), fresh.err());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aKeyMovedWhereAResumedCopyLeftTwoMomentsConverges() throws Exception {
        // A resumed copy reads its partitions at two moments: the row may sit at its old key (a partition copied
        // before the move) and at its new one (copied after). The replayed move must not fail on the new key, nor
        // lose a row that is at neither.
        Databases db = databases("chg_twomoments", 100);
        Path spec = spec(db, "sluice_twomoments");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "UPDATE lines SET line = 11 WHERE order_id = 5 AND line = 1",
                "UPDATE lines SET line = 12 WHERE order_id = 6 AND line = 1",
                "UPDATE lines SET qty = 99 WHERE order_id = 5 AND line = 11");
        sql(db.target(), "INSERT INTO lines VALUES (5, 11, 2)", // both keys of order 5's row
                "DELETE FROM lines WHERE order_id = 6 AND line = 1"); // neither key of order 6's row
        CliRun applied = CliRun.of("run", spec.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aTableAPatternPicksUpAfterTheFeedStartedIsCopiedIntoTheFeed() throws Exception {
        // The feed's publication lists the tables it started with: a new one is added to it, copied in a snapshot
        // taken after that, and the changes since the feed's position are replayed over the copy.
        Databases db = databases("chg_newtable", 1_000);
        Path spec = spec(db, "sluice_newtable");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "CREATE TABLE extra (id int PRIMARY KEY, v text)",
                "INSERT INTO extra SELECT g, 'v' || g FROM generate_series(1, 500) g",
                "UPDATE orders SET amount = 5 WHERE id = 1");
        CliRun joined = CliRun.of("run", spec.toString());
        assertEquals(0, joined.exitCode(), joined.all());
        assertTrue(joined.err().contains("1 table(s) new to the feed (shop.public.extra)"), joined.err());
        assertEqual(db, "orders", "lines", "extra");
        sql(db.source(), "UPDATE extra SET v = 'changed' WHERE id <= 10", "DELETE FROM extra WHERE id > 490",
                "INSERT INTO extra VALUES (1000, 'late')");
        CliRun applied = CliRun.of("run", spec.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertTrue(applied.err().contains("applying changes only") && !applied.err().contains("new to the feed"),
                applied.err());
        assertEqual(db, "orders", "lines", "extra");
    }

    @Test
    void aTableWithAUserTypeIsFedAsTextAndEndsEqual() throws Exception {
        // An array of an enum: its binary form carries the source's oid for the enum, which the target's differs
        // from, so binary values would fail; the feed goes in text form.
        Databases db = databases("chg_usertype", 1_000);
        sql(db.source(), "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "ALTER TABLE orders ADD moods mood[]",
                "UPDATE orders SET moods = ARRAY['ok', 'happy']::mood[] WHERE id % 3 = 0");
        sql(db.target(), "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        Path spec = spec(db, "sluice_usertype");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        try (Connection c = pg.connect(db.source()); Statement s = c.createStatement()) {
            for (long n = 0; n < 20; n++) {
                writeSome(s, n);
            }
            s.execute("UPDATE orders SET moods = ARRAY['sad']::mood[] WHERE id % 7 = 0");
        }
        CliRun applied = CliRun.of("run", spec.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertTrue(applied.err().contains("changes sluice_usertype: applying changes only"), applied.err());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aDroppedSlotIsAClearErrorAndRestartChangesCopiesAgain() throws Exception {
        Databases db = databases("chg_dropped", 2_000);
        Path spec = spec(db, "sluice_dropped");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "SELECT pg_drop_replication_slot('sluice_dropped')", "DELETE FROM orders WHERE id < 10");
        CliRun lost = CliRun.of("run", spec.toString());
        assertEquals(4, lost.exitCode(), lost.all());
        assertTrue(lost.err().contains("PG603") && lost.err().contains("no longer exists")
                && lost.err().contains("--restart-changes"), lost.err());
        CliRun restarted = CliRun.of("run", spec.toString(), "--restart-changes");
        assertEquals(0, restarted.exitCode(), restarted.all());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aColumnAddedAtTheSourceIsRefusedByDefaultAndAddedWithAddColumns() throws Exception {
        Databases db = databases("chg_added", 1_000);
        Path spec = spec(db, "sluice_added");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "ALTER TABLE orders ADD COLUMN tag varchar(12) DEFAULT 'x'",
                "UPDATE orders SET tag = 'vip' WHERE id < 20", "INSERT INTO orders (id, customer, tag) VALUES "
                        + "(5000, 'late', 'new')",
                // No row of lines changes: the column must come all the same, with the value its rows hold.
                "ALTER TABLE lines ADD COLUMN flag text NOT NULL DEFAULT 'Y'");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all()); // found when planning: nothing applied
        assertTrue(refused.err().contains("MAP001") && refused.err().contains("schema-changes: add-columns"),
                refused.err());
        assertTrue(refused.err().contains("ADD COLUMN \"flag\" text NOT NULL DEFAULT 'Y'"), refused.err());
        Path adding = spec(db, "sluice_added", "    schema-changes: add-columns");
        CliRun added = CliRun.of("run", adding.toString());
        assertEquals(0, added.exitCode(), added.all());
        assertEquals("character varying(12)", text(db.target(), "SELECT format_type(atttypid, atttypmod) FROM "
                + "pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'tag'"));
        assertEquals("vip", text(db.target(), "SELECT tag FROM orders WHERE id = 5"));
        assertEquals("new", text(db.target(), "SELECT tag FROM orders WHERE id = 5000"));
        assertEquals(scalar(db.source(), "SELECT count(*) FROM orders"), scalar(db.target(),
                "SELECT count(*) FROM orders"));
        assertEqual(db, "orders", "lines"); // the rows copied before hold the default their source rows hold
    }

    @Test
    void aColumnAddedWhileARunFollowsFailsItUnlessTheStreamAddsColumns() throws Exception {
        Databases db = databases("chg_addfollow", 1_000);
        Path spec = spec(db, "sluice_addfollow");
        Path log = dir.resolve("addfollow.log");
        Process child = SluiceProcess.following(spec, log);
        sql(db.source(), "ALTER TABLE lines ADD COLUMN note text", "INSERT INTO lines VALUES (1, 99, 1, 'new')");
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        assertEquals(1, child.exitValue(), SluiceProcess.read(log));
        assertTrue(SluiceProcess.read(log).contains("PG609") && SluiceProcess.read(log).contains("(note)")
                && SluiceProcess.read(log).contains("ADD COLUMN IF NOT EXISTS \"note\" text"), SluiceProcess.read(log));
        assertEquals(0, scalar(db.target(), "SELECT count(*) FROM lines WHERE line = 99"), "nothing of the batch");
        CliRun added = CliRun.of("run", spec(db, "sluice_addfollow", "    schema-changes: add-columns").toString());
        assertEquals(0, added.exitCode(), added.all());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aColumnOfAUserTypeAddedWhileValuesTravelInBinaryStopsTheRunAndTheNextReadsText() throws Exception {
        Databases db = databases("chg_binarytext", 1_000);
        Path spec = spec(db, "sluice_binarytext", "    schema-changes: add-columns");
        sql(db.target(), "CREATE TYPE mood AS ENUM ('sad', 'ok')");
        Path log = dir.resolve("binarytext.log");
        Process child = SluiceProcess.following(spec, log);
        // Every column built-in when the stream started: values in binary form, which the enum's cannot take.
        sql(db.source(), "CREATE TYPE mood AS ENUM ('sad', 'ok')", "ALTER TABLE lines ADD COLUMN mood mood",
                "INSERT INTO lines VALUES (1, 99, 1, 'ok')");
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        assertEquals(1, child.exitValue(), SluiceProcess.read(log));
        assertTrue(SluiceProcess.read(log).contains("PG610") && SluiceProcess.read(log).contains("run again"), SluiceProcess.read(log));
        assertEquals(0, scalar(db.target(), "SELECT count(*) FROM lines WHERE line = 99"), "nothing of the batch");
        CliRun again = CliRun.of("run", spec.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertEqual(db, "orders", "lines");
    }

    @Test
    void aValueTooLongForTheTargetColumnFailsTheBatchAndIsNeverCut() throws Exception {
        Databases db = databases("chg_toolong", 200);
        sql(db.target(), "CREATE TABLE orders (id bigint PRIMARY KEY, customer varchar(3) NOT NULL, "
                        + "amount numeric(12,2), note text, placed timestamptz)",
                "CREATE TABLE lines (order_id bigint, line int, qty int, PRIMARY KEY (order_id, line))");
        Path spec = spec(db, "sluice_toolong");
        CliRun copied = CliRun.of("run", spec.toString());
        assertEquals(0, copied.exitCode(), copied.all());
        sql(db.source(), "UPDATE orders SET customer = 'much too long' WHERE id = 7");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("too long"), refused.err());
        assertEquals("c7", text(db.target(), "SELECT customer FROM orders WHERE id = 7"), "nothing cut, nothing "
                + "applied");
    }

    @Test
    void planAndStatusShowTheFeedItsSlotAndALeftOverOne() throws Exception {
        Databases db = databases("chg_status", 2_000);
        Path spec = spec(db, "sluice_status");
        CliRun before = CliRun.of("plan", spec.toString());
        assertEquals(0, before.exitCode(), before.all());
        assertTrue(before.out().contains("changes: slot sluice_status follows the 2 stream(s) reading connection "
                + "'src'") && before.out().contains("the run creates the slot"), before.out());
        assertEquals(0, scalar(db.target(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'sluice'"),
                "plan wrote nothing: no ledger");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "INSERT INTO orders (id, customer, note) SELECT g, 'bulk', repeat('x', 2000) FROM "
                + "generate_series(100000, 102000) g");
        Path warned = dir.resolve("warned.yaml");
        Files.writeString(warned, Files.readString(spec).replace("changes: { slot: sluice_status }",
                "changes: { slot: sluice_status, retained-warning-mb: 1 }"));
        CliRun plan = CliRun.of("plan", warned.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("copied; the run applies the changes since ")
                && plan.out().contains("warning: slot sluice_status keeps"), plan.out());
        CliRun status = CliRun.of("status", warned.toString());
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("changes sluice_status (shop): applied up to ")
                && status.out().contains("slot: idle, ") && status.out().contains("of WAL retained on it")
                && status.out().contains("warning: more WAL retained"), status.out());
        // The spec renamed its slot: the old one is left on the source, and status says how to drop it.
        Path renamed = dir.resolve("renamed.yaml");
        Files.writeString(renamed, Files.readString(spec).replace("changes: { slot: sluice_status }",
                "changes: { slot: sluice_status_2 }"));
        CliRun left = CliRun.of("status", renamed.toString());
        assertTrue(left.out().contains("changes sluice_status: applied up to")
                && left.out().contains("no stream of the spec follows it any more")
                && left.out().contains("SELECT pg_drop_replication_slot('sluice_status')"), left.out());
        assertTrue(left.out().contains("changes sluice_status_2 (shop): not started"), left.out());
        CliRun planned = CliRun.of("plan", renamed.toString());
        assertEquals(0, planned.exitCode(), planned.all());
        assertTrue(planned.out().contains("warning: change feed sluice_status of the ledger is followed by no stream")
                && planned.out().contains("SELECT pg_drop_replication_slot('sluice_status')"), planned.out());
    }

    @Test
    void aTableWithoutAKeyIsRefusedBeforeAnythingIsCopied() throws Exception {
        Databases db = databases("chg_nokey", 100);
        sql(db.source(), "CREATE TABLE notes (body text)");
        Path spec = spec(db, "sluice_nokey");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("PG602") && refused.err().contains("\"public\".\"notes\"")
                && refused.err().contains("REPLICA IDENTITY"), refused.err());
        assertEquals(0, scalar(db.source(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = "
                + "'sluice_nokey'"));
    }

    @Test
    void aFollowedRunAppliesUntilSigtermThenEndsCleanly() throws Exception {
        Databases db = databases("chg_follow", 3_000);
        Path spec = spec(db, "sluice_follow");
        Path log = dir.resolve("follow.log");
        Process child = SluiceProcess.following(spec, log);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Connection c = pg.connect(db.source()); Statement s = c.createStatement()) {
            for (int n = 0; n < 300; n++) {
                writeSome(s, n);
            }
        }
        long wanted = scalar(db.source(), "SELECT count(*) FROM orders");
        while (scalarOrZero(db.target(), "SELECT count(*) FROM orders") != wanted) {
            assertTrue(child.isAlive(), () -> SluiceProcess.read(log));
            assertTrue(System.nanoTime() < deadline, () -> SluiceProcess.read(log));
            Thread.sleep(5);
        }
        child.destroy(); // SIGTERM
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), SluiceProcess.read(log));
        assertEqual(db, "orders", "lines");
        CliRun after = CliRun.of("run", spec.toString());
        assertEquals(0, after.exitCode(), after.all());
        assertTrue(after.err().contains("0 source transactions"), after.err());
    }

    @Test
    void aCutOverCatchesUpThenSetsTheTargetSequencesPastTheSources() throws Exception {
        Databases db = databases("chg_cutover", 100);
        sql(db.source(), "CREATE TABLE tickets (id serial PRIMARY KEY, v text)",
                "INSERT INTO tickets (v) SELECT 'old' FROM generate_series(1, 10)");
        Path spec = spec(db, "sluice_cutover");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "INSERT INTO tickets (v) SELECT 'new' FROM generate_series(1, 5)",
                "SELECT setval('tickets_id_seq', 100)");
        CliRun cutOver = CliRun.of("run", spec.toString(), "--follow", "--until-lag", "0");
        assertEquals(0, cutOver.exitCode(), cutOver.all());
        assertTrue(cutOver.err().contains("cut-over: ") && cutOver.err().contains("caught up"), cutOver.err());
        assertEqual(db, "orders", "lines", "tickets");
        sql(db.target(), "INSERT INTO tickets (v) VALUES ('after the switch')");
        assertEquals(101, scalar(db.target(), "SELECT max(id) FROM tickets"));
    }

    @Test
    void theMigrationExampleCopiesFollowsAndCutsOver() throws Exception {
        String source = pg.createDatabase("chg_example_src");
        String target = pg.createDatabase("chg_example_dst");
        sql(source, "CREATE SCHEMA shop", "CREATE TABLE shop.customers (id serial PRIMARY KEY, name text)",
                "CREATE TABLE shop.orders (id bigserial PRIMARY KEY, customer int REFERENCES shop.customers, "
                        + "total numeric(10,2))",
                "INSERT INTO shop.customers (name) SELECT 'c' || g FROM generate_series(1, 200) g",
                "INSERT INTO shop.orders (customer, total) SELECT 1 + g % 200, g FROM generate_series(1, 5000) g");
        sql(target, "CREATE SCHEMA shop");
        Path spec = dir.resolve("migrate-with-changes.yaml");
        Files.writeString(spec, Files.readString(Path.of("../../examples/migrate-with-changes.yaml"))
                .replace("${SRC_URL}", pg.jdbcUrl(source)).replace("${DST_URL}", pg.jdbcUrl(target))
                .replace("${SRC_USER:-postgres}", pg.user()).replace("${DST_USER:-postgres}", pg.user())
                .replace("${SRC_PASSWORD:-}", pg.password()).replace("${DST_PASSWORD:-}", pg.password()));
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(source, "INSERT INTO shop.orders (customer, total) VALUES (7, 1.5)", "DELETE FROM shop.orders WHERE id = 3",
                "ALTER TABLE shop.customers ADD COLUMN email text", "UPDATE shop.customers SET email = 'a@b' WHERE id = 1");
        CliRun cutOver = CliRun.of("run", spec.toString(), "--follow", "--until-lag", "0");
        assertEquals(0, cutOver.exitCode(), cutOver.all());
        assertEqual(new Databases(source, target), "shop.customers", "shop.orders");
    }

    private long donePartitions(Databases db, String runId) throws SQLException {
        try {
            return scalar(db.target(), "SELECT count(*) FROM sluice.run_partitions WHERE run_id = '" + runId
                    + "' AND state = 'done'");
        } catch (SQLException e) {
            return 0;
        }
    }

    private void assertEqual(Databases db, String... tables) throws SQLException {
        for (String table : tables) {
            String md5 = "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) || ':' || count(*) "
                    + "FROM " + table + " t";
            assertEquals(text(db.source(), md5), text(db.target(), md5), table);
        }
    }

    private static long scalarOrZero(String database, String query) {
        try {
            return scalar(database, query);
        } catch (SQLException e) {
            return 0;
        }
    }

    private static void sql(String database, String... statements) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static long scalar(String database, String query) throws SQLException {
        return Long.parseLong(text(database, query));
    }

    private static String text(String database, String query) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import io.sluice.testkit.TestTier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.sluice.app.loads.LoadModesTest.indexDefinitions;
import static io.sluice.app.loads.LoadModesTest.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The load modes under crashes and misuse, through the CLI on real PostgreSQL: a run that ends done (exit 0) leaves
 * the target as the spec promised, and what cannot be made so is refused with the reason, nothing lost or doubled.
 */
class LoadModeTrustTest {
    @TempDir
    Path dir;

    @Test
    @Tag(TestTier.FULL_ONLY) // quick: the crash matrix's sample of MERGE_DELETE_MISSING
    void mergeDeleteMissingKeysSurviveATargetCrashAndTheResumeDeletesExactlyTheRest() throws Exception {
        try (TestingPostgres pg = TestingPostgres.start()) {
            LedgerFixture f = new LedgerFixture(pg, dir, "keyscrash", 120_000);
            f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                    "INSERT INTO items SELECT g, 'stale', 0 FROM generate_series(200001, 230000) g");
            Path spec = spec(dir, "keys.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                    "delete-missing: true", "distribution: { method: range, key: id }", "degree: 2",
                    "batch-size: 10000", "retry: { max-attempts: 1 }");
            Path log = dir.resolve("crash.log");
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "crash-1");
            LedgerFixture.waitUntil(child, log, () -> f.donePartitions("crash-1") >= 4);
            pg.crash(); // the target (and here the source) stop as a power cut stops them
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the run ends when its server is gone");
            assertTrue(child.exitValue() != 0, Files.readString(log));
            pg.restart();
            assertTrue(f.donePartitions("crash-1") >= 4, "the done partitions survived the crash");
            assertEquals(f.scalar(f.target, "SELECT sum(row_count) FROM sluice.run_partitions WHERE run_id = "
                    + "'crash-1' AND state = 'done'"), f.scalar(f.target, "SELECT count(*) FROM items_sluice_keys"),
                    "the keys of every done partition survived with it");

            CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "crash-1");
            assertEquals(0, resumed.exitCode(), resumed.all());
            assertEquals(0, f.differences(), "exactly the source: the stale rows deleted, no merged row lost");
            assertTrue(resumed.all().contains("30,000 rows the source lacks deleted (delete-missing)"),
                    resumed.all());
            assertEquals(120_000, f.scalar(f.target, "SELECT row_count FROM sluice.run_streams WHERE run_id = "
                    + "'crash-1'"), "the stream's rows count every invocation's partitions, not the last one's");

            CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "crash-2");
            assertEquals(0, fresh.exitCode(), fresh.all());
            assertEquals(0, f.differences());
        }
    }

    @Test
    void deleteMissingRefusesKeysItCannotProveCompleteAndAnEmptySource() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "keysproof", 50_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                "INSERT INTO items SELECT g, 'stale', 0 FROM generate_series(100001, 100500) g");
        Path spec = spec(dir, "proof.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "delete-missing: true", "distribution: { method: range, key: id }", "degree: 2", "batch-size: 5000");
        f.killAfterDone(spec, "proof-1", 3);
        long before = f.scalar(f.target, "SELECT count(*) FROM items");
        f.sql(f.target, "DELETE FROM items_sluice_keys WHERE id % 2 = 0"); // keys lost, however it happened

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "proof-1");
        assertEquals(1, resumed.exitCode(), resumed.all());
        assertTrue(resumed.all().contains("error[PG220]") && resumed.all().contains("so its keys are not complete")
                && resumed.all().contains("without --resume"), resumed.all());
        assertTrue(f.scalar(f.target, "SELECT count(*) FROM items") >= before, "nothing was deleted");

        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "proof-2");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(0, f.differences(), "a fresh merge collects every key anew");

        // An empty source would empty the target: refused, nothing deleted.
        f.sql(f.source, "TRUNCATE items");
        CliRun empty = CliRun.of("run", spec.toString(), "--run-id", "proof-3");
        assertEquals(1, empty.exitCode(), empty.all());
        assertTrue(empty.all().contains("the source had no rows, so the DELETE would remove all 50000 row(s)")
                && empty.all().contains("load-mode truncate"), empty.all());
        assertEquals(50_000, f.scalar(f.target, "SELECT count(*) FROM items"));
    }

    @Test
    void deletesShowInTheSummaryJsonAndJunit() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "deletecount", 1_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)",
                "INSERT INTO items SELECT g, 'stale', 0 FROM generate_series(2001, 2007) g");
        Path spec = spec(dir, "count.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "delete-missing: true");
        Path summary = dir.resolve("summary.json");
        Path junit = dir.resolve("junit.xml");
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", summary.toString(), "--junit-xml",
                junit.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(run.all().contains("7 rows the source lacks deleted"), run.all());
        assertTrue(Files.readString(summary).contains("\"deleted-rows\" : 7")
                || Files.readString(summary).contains("\"deleted-rows\":7"), Files.readString(summary));
        assertTrue(Files.readString(junit).contains("7 rows deleted"), Files.readString(junit));
    }

    @Test
    void reportPathsThatCannotBeWrittenAreRefusedBeforeTheRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "badpath", 100);
        Path spec = f.spec("badpath.yaml", "ctid", 1, 1000);
        Path notAFolder = Files.writeString(dir.resolve("plain-file"), "x");
        for (String option : List.of("--summary-json", "--junit-xml", "--report")) {
            CliRun run = CliRun.of("run", spec.toString(), option, notAFolder.resolve("out").toString());
            assertEquals(2, run.exitCode(), run.all());
            assertTrue(run.all().contains(option + " " + notAFolder.resolve("out") + " cannot be written")
                    && run.all().contains("nothing was run"), run.all());
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing was run");
        }
        CliRun directory = CliRun.of("run", spec.toString(), "--summary-json", dir.toString());
        assertEquals(2, directory.exitCode(), directory.all());
        assertTrue(directory.all().contains("it is a directory"), directory.all());
    }

    @Test
    void replaceCarriesRowSecurityReplicaIdentityStatisticsCommentsAndClustering() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replprops", 3_000);
        f.sql(f.target, "DROP TABLE items", "CREATE TABLE items (id bigint GENERATED BY DEFAULT AS IDENTITY "
                        + "PRIMARY KEY, name text NOT NULL, price numeric(10,2))",
                "CREATE UNIQUE INDEX items_name ON items (name)", "COMMENT ON INDEX items_name IS 'by name'",
                "COMMENT ON CONSTRAINT items_pkey ON items IS 'the key'",
                "ALTER TABLE items REPLICA IDENTITY USING INDEX items_name", "ALTER TABLE items CLUSTER ON items_pkey",
                "ALTER TABLE items ALTER COLUMN price SET STATISTICS 500",
                "ALTER TABLE items ALTER COLUMN name SET (n_distinct = -1)",
                "ALTER TABLE items ENABLE ROW LEVEL SECURITY", "ALTER TABLE items FORCE ROW LEVEL SECURITY",
                "INSERT INTO items (name) VALUES ('old')");
        String properties = "SELECT concat_ws(' | ', c.relrowsecurity, c.relforcerowsecurity, c.relreplident, "
                + "(SELECT string_agg(i.relname || ':' || x.indisreplident || ':' || x.indisclustered || ':' "
                + "|| coalesce(obj_description(i.oid, 'pg_class'), '-'), ', ' ORDER BY i.relname) FROM pg_index x "
                + "JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = c.oid), (SELECT "
                + "obj_description(oid, 'pg_constraint') FROM pg_constraint WHERE conname = 'items_pkey'), "
                + "(SELECT string_agg(attname || ':' || coalesce(attstattarget::text, '-') || ':' || "
                + "coalesce(array_to_string(attoptions, ','), '-'), ', ' ORDER BY attnum) FROM pg_attribute WHERE "
                + "attrelid = c.oid AND attnum > 0), pg_get_serial_sequence('items', 'id')) FROM pg_class c "
                + "WHERE c.oid = 'items'::regclass";
        String before = strings(f, properties);
        Path spec = spec(dir, "props.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(3_000, f.scalar(f.target, "SELECT count(*) FROM items"));
        assertEquals(before, strings(f, properties), "every property of the table came through the swap");
        assertTrue(f.scalar(f.target, "SELECT count(*) FROM pg_stats WHERE tablename = 'items'") > 0,
                "the new table was analyzed before it was swapped in");

        // keep-previous into a name another table has: refused before the load, not after it.
        f.sql(f.target, "CREATE TABLE items_old (x int)");
        Path keep = spec(dir, "props.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "keep-previous: true");
        CliRun taken = CliRun.of("run", keep.toString());
        assertEquals(4, taken.exitCode(), taken.all());
        assertTrue(taken.all().contains("\"items_old\", a name a table that is not Sluice's has"), taken.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname LIKE '%sluice_shadow%'"));
    }

    @Test
    void aReplaceOwnsTheTableForItsRunWritersWaitAndAChangedDefinitionFailsTheSwap() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "replown", 200_000);
        f.sql(f.target, "INSERT INTO items SELECT g, 'old', 1 FROM generate_series(1, 100) g",
                "CREATE ROLE replace_owner_reader");
        Path spec = spec(dir, "own.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: replace",
                "distribution: { method: ctid }", "degree: 2", "batch-size: 10000");
        Path log = dir.resolve("own.log");
        Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "own-1");
        LedgerFixture.waitUntil(child, log, () -> f.donePartitions("own-1") >= 1);
        signal(child, "STOP"); // mid-load, its hold on the old table held still while the test writes
        try {
            // A writer meanwhile waits for the replace instead of writing rows the swap would throw away.
            java.sql.SQLException refused = org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                    () -> f.sql(f.target, "SET lock_timeout = '300ms'", "INSERT INTO items VALUES (0, 'lost?', 0)"));
            assertEquals("55P03", refused.getSQLState(), refused.getMessage());
            f.sql(f.target, "GRANT SELECT ON items TO replace_owner_reader"); // a grant takes no table lock
        } finally {
            signal(child, "CONT");
        }
        assertTrue(child.waitFor(120, TimeUnit.SECONDS));
        String out = Files.readString(log);
        assertEquals(1, child.exitValue(), out);
        assertTrue(out.contains("error[PG222]") && out.contains("replace_owner_reader"), out);
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"), "the old table stayed, with its grant");

        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "own-2");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(0, f.differences());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname = 'items' AND "
                + "has_table_privilege('replace_owner_reader', oid, 'SELECT')"), "the grant came along");
    }

    private static void signal(Process process, String signal) throws Exception {
        io.sluice.app.Signals.send(process, signal);
    }

    private static String strings(LedgerFixture f, String query) throws Exception {
        try (java.sql.Connection c = f.pg.connect(f.target); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void whatACreatedTableCannotHoldIsRefusedBeforeAnyRowIsWritten() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "createchecks", 100);
        Path noSchema = spec(dir, "noschema.yaml", "items", "{ connection: dst, table: nowhere.items, create: "
                + "if-missing }", f);
        CliRun schema = CliRun.of("run", noSchema.toString());
        assertEquals(4, schema.exitCode(), schema.all());
        assertTrue(schema.all().contains("has no schema \"nowhere\"") && schema.all().contains("CREATE SCHEMA"),
                schema.all());

        Path record = dir.resolve("record.yaml");
        Files.writeString(record, Files.readString(spec(dir, "record.yaml", "items", "{ connection: dst, table: "
                + "paired, create: if-missing }", f)).replace("source: { connection: src, table: items }",
                "source: { connection: src, query: \"SELECT id, (id, name) AS pair FROM items\" }"));
        CliRun pseudo = CliRun.of("run", record.toString());
        assertEquals(4, pseudo.exitCode(), pseudo.all());
        assertTrue(pseudo.all().contains("pair record") && pseudo.all().contains("pseudo-type"), pseudo.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_class WHERE relname = 'paired'"));
    }

    @Test
    void nullableMergeKeysAreRefusedWithDeleteMissingAndNullKeyRowsAlways() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "nullkey", 100);
        f.sql(f.source, "INSERT INTO items VALUES (NULL, 'no key', 1)");
        f.sql(f.target, "CREATE UNIQUE INDEX items_id ON items (id)");
        Path deleting = spec(dir, "nulldel.yaml", "items", "{ connection: dst, table: items }", f,
                "load-mode: merge", "merge-key: [id]", "delete-missing: true");
        CliRun refused = CliRun.of("run", deleting.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("error[PG221]") && refused.all().contains("ALTER COLUMN \"id\" SET NOT NULL"),
                refused.all());

        Path merging = spec(dir, "nullmerge.yaml", "items", "{ connection: dst, table: items }", f,
                "load-mode: merge", "merge-key: [id]");
        CliRun failed = CliRun.of("run", merging.toString());
        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.all().contains("1 source row(s) of the partition have NULL in merge key"), failed.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"), "rolled back");
    }

    @Test
    void resumeForceCannotTurnDeleteMissingOn() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "forcedel", 60_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)");
        Path plain = spec(dir, "plain.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "distribution: { method: range, key: id }", "degree: 2", "batch-size: 5000");
        f.killAfterDone(plain, "force-1", 3);
        long merged = f.scalar(f.target, "SELECT count(*) FROM items");
        Path deleting = spec(dir, "plain.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: merge",
                "delete-missing: true", "distribution: { method: range, key: id }", "degree: 2", "batch-size: 5000");
        CliRun forced = CliRun.of("run", deleting.toString(), "--resume", "force-1", "--force");
        assertEquals(3, forced.exitCode(), forced.all());
        assertTrue(forced.all().contains("error[RESUME007]") && forced.all().contains("+ delete-missing: true"),
                forced.all());
        assertEquals(merged, f.scalar(f.target, "SELECT count(*) FROM items"), "nothing deleted");
    }

    @Test
    void aFreshRunAfterAKilledRebuildPutsEveryIndexBackFirst() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rebuildfresh", 100_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)",
                "ALTER TABLE items ADD CONSTRAINT items_name_price UNIQUE (name, price)",
                "CREATE INDEX items_price ON items (price DESC) INCLUDE (name)");
        List<String> before = indexDefinitions(f, "items");
        Path spec = spec(dir, "rebuild.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: truncate",
                "indexes: rebuild", "distribution: { method: ctid }", "degree: 2", "batch-size: 10000");
        f.killAfterDone(spec, "rb-1", 2);
        assertTrue(indexDefinitions(f, "items").size() < before.size(), "the kill came after the drop");
        // As a rebuild killed between a primary key's index and its constraint leaves it: the index alone.
        f.sql(f.target, "CREATE UNIQUE INDEX items_pkey ON items (id)");

        CliRun fresh = CliRun.of("run", spec.toString(), "--run-id", "rb-2");
        assertEquals(0, fresh.exitCode(), fresh.all());
        assertEquals(before, indexDefinitions(f, "items"), "every index back, the unique constraint a constraint");
        assertEquals(0, f.differences());

        // And with indexes: keep the next time, the same holds.
        f.killAfterDone(spec, "rb-3", 2);
        Path keep = spec(dir, "rebuild.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: truncate");
        CliRun kept = CliRun.of("run", keep.toString(), "--run-id", "rb-4");
        assertEquals(0, kept.exitCode(), kept.all());
        assertEquals(before, indexDefinitions(f, "items"));
    }

    @Test
    void whatAKilledRebuildLeftRunningOnTheServerIsEndedBeforeTheNextRunBuilds() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "leftover", 60_000);
        f.sql(f.target, "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)");
        List<String> before = indexDefinitions(f, "items");
        Path spec = spec(dir, "leftover.yaml", "items", "{ connection: dst, table: items }", f,
                "load-mode: truncate", "indexes: rebuild", "distribution: { method: ctid }", "degree: 2",
                "batch-size: 10000");
        Path log = dir.resolve("leftover-1.log");
        Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "left-1");
        LedgerFixture.waitUntil(child, log, () -> f.scalar(f.target, "SELECT count(*) FROM sluice.run_marks m "
                + "JOIN sluice.run_streams s USING (run_id, stream) WHERE m.run_id = 'left-1' AND "
                + "m.name = 'target.indexes.dropped' AND s.truncated_at IS NOT NULL") > 0);
        java.sql.Connection hold = f.pg.connect(f.target);
        try {
            signal(child, "STOP"); // truncated: the hold goes in before the builds, which then wait for it
            hold.setAutoCommit(false);
            try (java.sql.Statement s = hold.createStatement()) {
                s.execute("LOCK TABLE items IN ACCESS SHARE MODE");
            } finally {
                signal(child, "CONT");
            }
            LedgerFixture.waitUntil(child, log, () -> waiting(f, "left-1") > 0);
            child.destroyForcibly(); // SIGKILL: its session waiting for the lock does not notice
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertTrue(waiting(f, "left-1") > 0, "the killed run's statement still waits on the server");

            // Its wait queues every later reader of the table behind it, the next run's planning too: a process of
            // this host that is gone is ended first.
            Path freshLog = dir.resolve("leftover-2.log");
            Process fresh = LedgerFixture.startSluice(freshLog, "run", spec.toString(), "--run-id", "left-2");
            LedgerFixture.waitUntil(fresh, freshLog, () -> waiting(f, "left-2") > 0);
            // The fresh run's own builds wait for the hold; the killed run's would race them once it goes.
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_stat_activity WHERE application_name "
                    + "LIKE '%run=left-1 %'"), "the killed run's session was ended first");
            hold.close();
            assertTrue(fresh.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, fresh.exitValue(), Files.readString(freshLog));
        } finally {
            hold.close();
        }
        assertEquals(before, indexDefinitions(f, "items"));
        assertEquals(0, f.differences());
    }

    @Test
    void aStatementAKilledRunOfAnotherHostLeftIsEndedOnceTheNextRunHoldsTheTable() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "leftaway", 100_000);
        f.sql(f.target, "CREATE INDEX items_name ON items (name)", "CREATE INDEX items_price ON items (price)");
        List<String> before = indexDefinitions(f, "items");
        Path spec = spec(dir, "leftaway.yaml", "items", "{ connection: dst, table: items }", f,
                "load-mode: truncate", "indexes: rebuild", "distribution: { method: ctid }", "degree: 2",
                "batch-size: 10000");
        f.killAfterDone(spec, "away-1", 2);
        // A writer holds the table (ROW EXCLUSIVE), and the killed run's build of items_name, sent from another
        // machine before the kill, still waits for it: the session's name is all the next run knows of it.
        java.sql.Connection writer = f.pg.connect(f.target);
        java.sql.Connection leftover = f.pg.connect(f.target);
        Thread build = null;
        try {
            writer.setAutoCommit(false);
            try (java.sql.Statement s = writer.createStatement()) {
                s.execute("LOCK TABLE items IN ROW EXCLUSIVE MODE");
            }
            try (java.sql.Statement s = leftover.createStatement()) {
                s.execute("SET application_name = 'sluice r=" + java.util.HexFormat.of().toHexDigits("away-1"
                        .hashCode()) + " run=away-1 pid=1 host=elsewhere.example'");
            }
            build = Thread.ofVirtual().start(() -> {
                try (java.sql.Statement s = leftover.createStatement()) {
                    s.execute("CREATE INDEX items_name ON items (name)");
                } catch (java.sql.SQLException ended) {
                    // ended by the next run, as it should be
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (waiting(f, "away-1") == 0) { // polling for a state
                assertTrue(System.nanoTime() < deadline && build.isAlive(), "the build waits for the writer");
                Thread.sleep(10);
            }

            Path freshLog = dir.resolve("leftaway-2.log");
            Process fresh = LedgerFixture.startSluice(freshLog, "run", spec.toString(), "--run-id", "away-2");
            LedgerFixture.waitUntil(fresh, freshLog, () -> waiting(f, "away-2") > 0);
            assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_stat_activity WHERE application_name "
                    + "LIKE '%run=away-1 %'"), "the killed run's statement was ended before the builds began");
            writer.close();
            assertTrue(fresh.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, fresh.exitValue(), Files.readString(freshLog));
        } finally {
            writer.close();
            leftover.close();
            if (build != null) {
                build.join();
            }
        }
        assertEquals(before, indexDefinitions(f, "items"));
        assertEquals(0, f.differences());
    }

    /** Sessions of run {@code runId} waiting for a lock on the target. */
    private static long waiting(LedgerFixture f, String runId) throws Exception {
        return f.scalar(f.target, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE '%run="
                + runId + " %' AND wait_event_type = 'Lock' AND wait_event = 'relation'");
    }

    @Test
    void aFailedRebuildLoadPutsTheIndexesBackAndAnAppendKeepsItsUniqueIndex() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "rebuildfail", 5_000);
        f.sql(f.source, "UPDATE items SET name = 'a name far too long for the target' WHERE id = 4000");
        f.sql(f.target, "ALTER TABLE items ALTER name TYPE varchar(12)",
                "INSERT INTO items SELECT g, 'old ' || g, 1 FROM generate_series(1, 100) g",
                "ALTER TABLE items ADD PRIMARY KEY (id)", "CREATE INDEX items_name ON items (name)");
        List<String> before = indexDefinitions(f, "items");
        Path spec = spec(dir, "fail.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: truncate",
                "indexes: rebuild", "degree: 1");
        for (String[] args : List.of(new String[]{"--run-id", "fail-1"}, new String[]{"--resume", "fail-1"})) {
            CliRun failed = CliRun.of("run", spec.toString(), args[0], args[1]);
            assertEquals(1, failed.exitCode(), failed.all());
            assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items"), "the old rows stayed");
            assertEquals(before, indexDefinitions(f, "items"), "the failed run put its indexes back");
        }

        // An append relies on a unique index to refuse duplicates: rebuild leaves it alone and says so.
        f.sql(f.source, "UPDATE items SET name = 'short' WHERE id = 4000");
        f.sql(f.target, "DROP TABLE items", "CREATE TABLE items (id bigint, name text, price numeric(10,2))",
                "INSERT INTO items VALUES (7, 'already here', 1)", "CREATE UNIQUE INDEX items_id ON items (id)",
                "CREATE INDEX items_name ON items (name)");
        Path append = spec(dir, "append.yaml", "items", "{ connection: dst, table: items }", f, "load-mode: append",
                "indexes: rebuild");
        CliRun plan = CliRun.of("plan", append.toString());
        assertTrue(plan.all().contains("keeps unique index items_id"), plan.all());
        CliRun duplicate = CliRun.of("run", append.toString());
        assertEquals(1, duplicate.exitCode(), duplicate.all());
        assertTrue(duplicate.all().contains("break a unique index or constraint")
                && !duplicate.all().contains("widen"), "the fix names the refusal: " + duplicate.all());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items"), "no duplicate committed");
        assertEquals(2, indexDefinitions(f, "items").size(), "both indexes there");
    }
}

package io.sluice.app.loads;

import io.sluice.app.CliRun;
import io.sluice.app.ledger.LedgerFixture;
import io.sluice.testkit.DuckDbExtensions;
import io.sluice.testkit.TestingPostgres;
import io.sluice.testkit.TestingS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code iceberg:} and {@code delta:} sources, on tables written by pyiceberg and delta-rs
 * (src/test/resources/lake/make-tables.py): deletes applied, renamed and added columns read, one partition per data
 * file, an older version by {@code version:}, and a version pinned at plan that a SIGKILLed run's {@code --resume}
 * reads again although a snapshot was committed in between (a fresh run loads the newest).
 */
class LakeTablesTest {
    private static final Path FIXTURES = Path.of("src/test/resources/lake");
    /** Snapshot 2 (ids 1-5, columns as first written) and the newest, 6 (id 6 deleted after 7 was appended). */
    private static final String SNAPSHOT_2 = "2933348450221909189";
    private static final String SNAPSHOT_6 = "1429723415127586893";
    /** The metadata files of snapshots 5 and 6, which the resume test commits while its run is down. */
    private static final List<String> LATER_METADATA = List.of("00006-", "00007-");

    @TempDir
    Path dir;

    @BeforeAll
    static void extensions() {
        DuckDbExtensions.require("iceberg");
        DuckDbExtensions.require("avro");
        DuckDbExtensions.require("delta");
    }

    @Test
    void icebergLoadsTheNewestSnapshotWithItsDeletesAndEvolvedColumnsOnePartitionPerDataFile() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_ice");
        Path table = copy("iceberg/orders");
        Path spec = spec(pg, db, "orders", "iceberg: \"" + table + "\"", "create: if-missing", "truncate", 2);

        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("iceberg table " + table + " at snapshot " + SNAPSHOT_6), plan.out());
        assertTrue(plan.out().contains("metadata lists 3 data file(s); 3 with rows to load, 5 rows after deletes"),
                plan.out());
        assertTrue(plan.out().contains("snapshot:    version (every partition, and a resumed run, reads iceberg table"),
                plan.out());
        assertTrue(plan.out().contains("rows per file agree with the metadata's for 3 of 3 data file(s)"), plan.out());

        run(spec, "ice-1");
        assertEquals(List.of(
                "1|order 1|10.25|2026-01-01 12:30:00+00|\\x00000000000000000000000000000001|null",
                "3|order 3|30.75|2026-01-03 12:30:00+00|\\x00000000000000000000000000000003|null",
                "4|order 4|41.00|2026-01-04 12:30:00+00|\\x00000000000000000000000000000004|null",
                "5|order 5|51.25|2026-01-05 12:30:00+00|\\x00000000000000000000000000000005|null",
                "7|order 7|71.75|2026-01-07 12:30:00+00|\\x00000000000000000000000000000007|late"),
                rows(pg, db, "SELECT id, label, amount, placed, ref, note FROM orders ORDER BY id"));
        assertEquals("bigint,text,numeric(12,2),timestamp with time zone,bytea,text",
                String.join(",", columnTypes(pg, db, "orders")), "create: if-missing maps the table's types");
        assertEquals(3, LedgerFixture.scalar(pg, db, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = 'ice-1' "
                + "AND state = 'done'"), "one partition per data file");
    }

    @Test
    void versionLoadsAnOlderSnapshotWithTheColumnsItHad() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_ice_old");
        Path spec = spec(pg, db, "orders", "iceberg: \"" + copy("iceberg/orders") + "\", version: " + SNAPSHOT_2,
                "create: if-missing", "truncate", 1);
        run(spec, "ice-old");
        assertEquals(List.of("1|order 1", "2|order 2", "3|order 3", "4|order 4", "5|order 5"),
                rows(pg, db, "SELECT id, name FROM orders ORDER BY id"), "snapshot 2: before the delete and rename");

        Path missing = spec(pg, db, "orders", "iceberg: \"" + dir.resolve("iceberg/orders") + "\", version: 42",
                "create: if-missing", "truncate", 1);
        CliRun refused = CliRun.of("plan", missing.toString());
        assertTrue(refused.exitCode() != 0 && refused.all().contains("DUCK017")
                && refused.all().contains("has no snapshot 42"), refused.all());
    }

    @Test
    void deltaPartitionedTableLoadsItsNewestAndAnOlderVersion() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_delta");
        Path table = copy("delta/events");
        Path spec = spec(pg, db, "events", "delta: \"" + table + "\"", "create: if-missing", "truncate", 2);
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("delta table " + table + " at version 4")
                && plan.out().contains("5 with rows to load, 6 rows after deletes")
                && plan.out().contains("rows per file agree with the metadata's for 5 of 5 data file(s)"), plan.all());
        run(spec, "delta-1");
        assertEquals(List.of("1|eu|event 1|null", "3|eu|event 3|null", "4|us|event 4|null", "5|eu|event 5|null",
                "6|us|event 6|1.5", "7|eu|event 7|2.5"),
                rows(pg, db, "SELECT id, region, name, score FROM events ORDER BY id"),
                "the partition column comes from the folder, the added column is NULL in older files");

        String olderDb = pg.createDatabase("lake_delta_old");
        run(spec(pg, olderDb, "events", "delta: \"" + table + "\", version: 1", "create: if-missing", "truncate", 1),
                "delta-old");
        assertEquals(List.of("1|eu", "2|us", "3|eu", "4|us", "5|eu"),
                rows(pg, olderDb, "SELECT id, region FROM events ORDER BY id"));
    }

    /**
     * A data file swapped after its commit (here: another file of the table copied over it, so it still reads) holds
     * other rows than the version's metadata (Iceberg's manifest record_count, Delta's numRecords) says: the plan
     * refuses with DUCK124 (exit 4) naming the file, and a run writes nothing.
     */
    @ParameterizedTest
    @CsvSource({
            "iceberg, iceberg/orders, data/00000-0-047a70cc-76bb-4549-b3f6-82d7ec5cc2b1.parquet, "
                    + "data/00000-0-0658fbce-43f5-4157-b58e-ce9ec48fe594.parquet",
            "delta, delta/events, region=eu/part-00000-4e3bae43-ca7e-423f-90e4-0d3a87c159e7-c000.snappy.parquet, "
                    + "region=eu/part-00000-72b340db-59a9-4489-9113-3a54759006ea-c000.snappy.parquet"})
    void aDataFileThatDisagreesWithTheMetadataFailsThePlan(String format, String fixture, String oneRow,
                                                           String twoRows) throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_swap_" + format);
        Path table = copy(fixture);
        Files.copy(table.resolve(oneRow), table.resolve(twoRows), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path spec = spec(pg, db, "swapped", format + ": \"" + table + "\"", "create: if-missing", "truncate", 1);

        CliRun plan = CliRun.of("plan", spec.toString());
        String file = twoRows.substring(twoRows.lastIndexOf('/') + 1);
        assertEquals(4, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("DUCK124") && plan.all().contains("data file " + file + " reads 1 rows, its "
                + "metadata says 2"), plan.all());
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "swap-" + format);
        assertEquals(4, run.exitCode(), run.all());
        assertEquals(List.of("0"), rows(pg, db, "SELECT count(*) FROM pg_class WHERE relname = 'swapped'"),
                "nothing was created or loaded");
    }

    /**
     * Snapshots 5 (id 7 appended) and 6 (id 6 deleted: its file leaves the table) are committed after the run pinned
     * snapshot 4 and was SIGKILLed while loading id 6's file: the resume rebuilds that partition from its checkpoint at
     * snapshot 4 (a plan of today's table has no such file), so every row of snapshot 4 lands once and id 7 does not
     * leak in; a fresh run then loads snapshot 6.
     */
    @Test
    void aResumeAfterSigkillReadsThePinnedSnapshotThoughANewerOneWasCommitted() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_resume");
        Path table = copy("iceberg/orders");
        Path hidden = Files.createDirectories(dir.resolve("uncommitted"));
        for (String prefix : LATER_METADATA) {
            move(table.resolve("metadata"), hidden, prefix); // snapshots 5 and 6 not committed yet
        }
        LedgerFixture.sql(pg, db, "CREATE TABLE orders (id bigint, label text, amount numeric(12,2), "
                        + "placed timestamptz, ref bytea, note text)",
                // the row of id 6 waits for the test's lock: its partition cannot finish before the kill
                "CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 6 THEN "
                        + "PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$",
                "CREATE TRIGGER hold BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION hold()");
        Path spec = spec(pg, db, "orders", "iceberg: \"" + table + "\"", "", "append", 1);
        try (Connection lock = pg.connect(db); Statement s = lock.createStatement()) {
            s.execute("SELECT pg_advisory_lock(4242)");
            Path log = dir.resolve("killed.log");
            Process child = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "ice-kill");
            LedgerFixture.waitUntil(child, log, () -> LedgerFixture.scalar(pg, db, "SELECT count(*) FROM "
                    + "sluice.run_partitions WHERE run_id = 'ice-kill' AND state = 'done'") == 2);
            child.destroyForcibly();
            assertTrue(child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the killed run ended");
            assertTrue(Files.readString(log).contains("3 partition(s), method none, degree 1, binary copy, version"),
                    Files.readString(log));
        }
        move(hidden, table.resolve("metadata"), ""); // snapshots 5 and 6 commit while the run is down

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "ice-kill");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(List.of("1", "3", "4", "5", "6"), rows(pg, db, "SELECT id FROM orders ORDER BY id"),
                "the resume reads snapshot 4, as pinned: every row once, id 7 not leaked in");

        LedgerFixture.sql(pg, db, "TRUNCATE orders");
        run(spec, "ice-fresh");
        assertEquals(List.of("1", "3", "4", "5", "7"), rows(pg, db, "SELECT id FROM orders ORDER BY id"),
                "a fresh run pins the newest snapshot");
    }

    /**
     * {@code new-snapshots} over a table whose commits appear between runs (their metadata or log files are revealed):
     * each run loads only the data files of the versions since the last done run, every row once; a run with
     * nothing new loads nothing; a delete in between is refused before anything is written.
     */
    @ParameterizedTest
    @CsvSource({"iceberg/appends, metadata, '00002-,00003-,00004-'",
            "delta/appends, _delta_log, '00000000000000000001.,00000000000000000002.,00000000000000000003.'"})
    void newSnapshotsLoadsWhatEachAppendAddedAndRefusesADelete(String fixture, String log, String commits)
            throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_incr");
        Path table = copy(fixture);
        Path held = Files.createDirectories(dir.resolve("held"));
        List<String> later = List.of(commits.split(","));
        for (String prefix : later) {
            move(table.resolve(log), held, prefix);
        }
        String kind = fixture.substring(0, fixture.indexOf('/'));
        Path spec = spec(pg, db, "appends", kind + ": \"" + table + "\"", "create: if-missing", "append", 2,
                "incremental: { new-snapshots: true }");
        run(spec, "incr-1");
        assertEquals(List.of("1", "2"), rows(pg, db, "SELECT id FROM appends ORDER BY id"));

        move(held, table.resolve(log), later.get(0)); // ids 3-4 appended
        run(spec, "incr-2");
        assertEquals(List.of("1", "2", "3", "4"), rows(pg, db, "SELECT id FROM appends ORDER BY id"));
        run(spec, "incr-3");
        assertEquals(4, rows(pg, db, "SELECT id FROM appends").size(), "nothing new: nothing loaded");

        move(held, table.resolve(log), later.get(1)); // id 5 appended
        run(spec, "incr-4");
        assertEquals(List.of("1", "2", "3", "4", "5"), rows(pg, db, "SELECT id FROM appends ORDER BY id"));

        move(held, table.resolve(log), later.get(2)); // id 1 deleted
        CliRun refused = CliRun.of("run", spec.toString(), "--run-id", "incr-5");
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("DUCK020") && refused.all().contains("--full-refresh"), refused.all());
        assertEquals(5, rows(pg, db, "SELECT id FROM appends").size(), "nothing written");
    }

    private static void move(Path from, Path to, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
                Files.move(f, to.resolve(f.getFileName()));
            }
        }
    }

    /**
     * One stream, one meaning: a filter, column rules (rename, mask, exclude, computed) and {@code sluice compare}
     * work on a table as on files: the copy and the compare read the same pinned version, shaped the same way.
     */
    @Test
    void filterColumnRulesAndCompareApplyToATableAsToFiles() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_shaped");
        Path spec = spec(pg, db, "orders", "iceberg: \"" + copy("iceberg/orders") + "\", where: \"id > 3\"",
                "create: if-missing", "truncate", 2, "columns:", "  label: { rename: title }",
                "  ref: { exclude: true }", "  note: { mask: redact }", "  amount: { expression: \"amount * 2\" }");
        run(spec, "shaped");
        assertEquals(List.of("4|order 4|82.00", "5|order 5|102.50", "7|order 7|143.50"),
                rows(pg, db, "SELECT id, title, amount FROM orders ORDER BY id"));
        assertEquals(List.of("id", "title", "amount", "placed", "note"), rows(pg, db, "SELECT attname FROM "
                + "pg_attribute WHERE attrelid = 'orders'::regclass AND attnum > 0 ORDER BY attnum"));
        LedgerFixture.sql(pg, db, "ALTER TABLE orders ADD PRIMARY KEY (id)");
        CliRun equal = CliRun.of("compare", spec.toString());
        assertEquals(0, equal.exitCode(), equal.all());
        assertTrue(equal.out().contains("result:      equal"), equal.out());
        LedgerFixture.sql(pg, db, "UPDATE orders SET title = 'edited' WHERE id = 5");
        CliRun differs = CliRun.of("compare", spec.toString());
        assertTrue(differs.exitCode() != 0 && differs.out().contains("5"), differs.all());
    }

    /** Iceberg's types as DuckDB reads them, each into the PostgreSQL type create: if-missing gives it, values kept. */
    /**
     * Merge-on-read deletes: a position delete file (id 2 of the first data file) and an equality delete (id = 7)
     * committed after two appends, then id 7 appended again. Each data file's partition reads its rows with both
     * deletes applied, and the equality delete does not touch the later id 7 (its sequence number is higher); the
     * plan says the per-file metadata check is skipped for the delete files.
     */
    @Test
    void mergeOnReadPositionAndEqualityDeletesApplyToEachFilesPartition() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_mor");
        Path table = copy("iceberg/deletes");
        Path spec = spec(pg, db, "deletes", "iceberg: \"" + table + "\"", "create: if-missing", "truncate", 2);
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("metadata lists 3 data file(s) and 2 delete file(s); 3 with rows to load, 9 rows "
                + "after deletes; one partition per data file"), plan.out());
        assertTrue(plan.out().contains("rows per file not checked against the metadata: 2 delete file(s)"), plan.out());
        run(spec, "mor-1");
        assertEquals(List.of("1|row 1", "3|row 3", "4|row 4", "5|row 5", "6|row 6", "7|row 7 again", "8|row 8",
                "9|row 9", "10|row 10"), rows(pg, db, "SELECT id, name FROM deletes ORDER BY id"));
        assertEquals(3, LedgerFixture.scalar(pg, db, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = 'mor-1' "
                + "AND state = 'done'"));
    }

    /**
     * A table of 40 one-row files: small files are read together (two a partition: the table's rows over 16), each
     * group exact; a group whose COPY failed (a target CHECK refuses id 7) is rebuilt by --resume from its checkpoint
     * (the group's files at the pinned version) once the target is mended; a new-snapshots stream keeps one partition
     * per file, as it tells loaded files apart.
     */
    @Test
    void smallFilesAreReadTogetherAndAGroupResumes() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_small");
        Path table = copy("iceberg/small");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE small (id bigint CHECK (id <> 7), name text)");
        }
        Path spec = spec(pg, db, "small", "iceberg: \"" + table + "\"", "", "append", 2);
        CliRun plan = CliRun.of("plan", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("metadata lists 40 data file(s); 40 with rows to load, 40 rows after deletes; "
                + "20 partitions (small files read together, up to 2 rows each)"), plan.out());

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "small-1");
        assertTrue(failed.exitCode() != 0 && failed.all().contains("small_id_check"), failed.all());
        // The failure stops the run: groups done before it stay done (how many depends on timing), none in part
        long done = LedgerFixture.scalar(pg, db, "SELECT count(*) FROM sluice.run_partitions WHERE run_id = "
                + "'small-1' AND state = 'done'");
        assertTrue(done < 20, "id 7's group is not done: " + done);
        assertEquals(List.of("0|" + 2 * done), rows(pg, db, "SELECT count(*) FILTER (WHERE id = 7), count(*) FROM "
                + "small"), "each done group holds its two rows, id 7's group none");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE small DROP CONSTRAINT small_id_check");
        }
        CliRun resumed = CliRun.of("run", spec.toString(), "--run-id", "small-1", "--resume");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(List.of("40|40|820"), rows(pg, db, "SELECT count(*), count(DISTINCT id), sum(id) FROM small"));

        String incremental = pg.createDatabase("lake_small_incr");
        run(spec(pg, incremental, "small", "iceberg: \"" + table + "\"", "create: if-missing", "append", 2,
                "incremental: { new-snapshots: true }"), "small-incr");
        assertEquals(40, LedgerFixture.scalar(pg, incremental, "SELECT count(*) FROM sluice.run_partitions WHERE "
                + "run_id = 'small-incr' AND state = 'done'"), "one partition per file");
        assertEquals(List.of("40"), rows(pg, incremental, "SELECT count(*) FROM small"));
    }

    /**
     * merge with delete-missing follows a Delta table from version 1 to version 4: id 2 (deleted in version 2) leaves
     * the target, ids 6 and 7 arrive with the column added in version 3 (schema-changes: add-columns adds it), the rows
     * read per data file.
     */
    @Test
    void mergeWithDeleteMissingFollowsATableToANewerVersion() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_merge");
        Path table = copy("delta/events");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE events (id bigint PRIMARY KEY, region text, name text)");
        }
        run(spec(pg, db, "events", "delta: \"" + table + "\", version: 1", "", "merge", 2, "merge-key: [id]",
                "delete-missing: true"), "merge-1");
        assertEquals(List.of("1|eu", "2|us", "3|eu", "4|us", "5|eu"), rows(pg, db, "SELECT id, region FROM events "
                + "ORDER BY id"));
        run(spec(pg, db, "events", "delta: \"" + table + "\"", "", "merge", 2, "merge-key: [id]",
                "delete-missing: true", "schema-changes: add-columns"), "merge-2");
        assertEquals(List.of("1|null", "3|null", "4|null", "5|null", "6|1.5", "7|2.5"),
                rows(pg, db, "SELECT id, score FROM events ORDER BY id"));
    }

    /**
     * rejects: and schema-changes: on a table source, as on Parquet: a value too long for its target column sets its
     * row aside and the others load; a newer version whose columns changed (name renamed to label, note added) is
     * refused under schema-changes: fail before anything is written, and add-columns adds them.
     */
    @Test
    void rejectsAndSchemaChangesApplyToATable() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_rejects");
        Path table = copy("iceberg/orders");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigint, label text, amount numeric(12,2), placed timestamptz, "
                    + "ref bytea, note varchar(3))");
        }
        run(spec(pg, db, "orders", "iceberg: \"" + table + "\"", "", "truncate", 2,
                "rejects: { table: public.orders_rejects }"), "rej-1");
        assertEquals(List.of("1", "3", "4", "5"), rows(pg, db, "SELECT id FROM orders ORDER BY id"));
        assertEquals(List.of("7|note|late"), rows(pg, db, "SELECT row_data->>'id', column_name, row_data->>'note' "
                + "FROM orders_rejects WHERE run_id = 'rej-1'"), "id 7's note 'late' does not fit varchar(3)");

        String evolving = pg.createDatabase("lake_schema");
        run(spec(pg, evolving, "orders", "iceberg: \"" + table + "\", version: " + SNAPSHOT_2,
                "create: if-missing", "truncate", 1), "schema-1");
        CliRun refused = CliRun.of("run", spec(pg, evolving, "orders", "iceberg: \"" + table + "\"", "",
                "truncate", 1, "schema-changes: fail").toString(), "--run-id", "schema-2");
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("MAP001") && refused.all().contains("source columns \"label\", \"note\" "
                + "have no target column"), refused.all());
        assertEquals(List.of("1|order 1", "2|order 2", "3|order 3", "4|order 4", "5|order 5"),
                rows(pg, evolving, "SELECT id, name FROM orders ORDER BY id"), "nothing written");
        run(spec(pg, evolving, "orders", "iceberg: \"" + table + "\"", "", "truncate", 1,
                "schema-changes: add-columns"), "schema-3");
        assertEquals(List.of("1|null|order 1|null", "3|null|order 3|null", "4|null|order 4|null",
                "5|null|order 5|null", "7|null|order 7|late"),
                rows(pg, evolving, "SELECT id, name, label, note FROM orders ORDER BY id"));
    }

    @Test
    void icebergTypesMapToPostgresTypes() throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_types");
        run(spec(pg, db, "types", "iceberg: \"" + copy("iceberg/types") + "\"", "create: if-missing", "truncate", 1),
                "types");
        assertEquals(List.of("bigint", "uuid", "time without time zone", "date", "timestamp without time zone",
                "numeric(38,10)", "bytea", "jsonb", "bigint[]", "jsonb"), columnTypes(pg, db, "types"));
        assertEquals(List.of("1|00000000-0000-0000-0000-000000000001|12:30:15.123456|2026-12-06|2026-12-06 12:30:15.123456"
                        + "|1234567890123456789012345678.0123456789|\\x00010203|{\"a\": 1, \"b\": \"x\"}|{1,2,3}|{\"k\": 1}",
                "2|null|null|null|null|null|null|null|null|null"),
                rows(pg, db, "SELECT * FROM types ORDER BY id"));
    }

    /** Both formats from an S3 server on loopback, with the connection's s3: settings, as from local disk. */
    @Test
    void icebergAndDeltaTablesLoadFromS3() throws Exception {
        DuckDbExtensions.require("httpfs");
        TestingS3 s3 = TestingS3.shared();
        String bucket = "lake-" + ProcessHandle.current().pid();
        s3.createBucket(bucket);
        for (String fixture : List.of("iceberg/orders", "delta/events")) {
            Path table = copy(fixture);
            try (Stream<Path> files = Files.walk(table)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    s3.putObject(bucket, fixture + "/" + table.relativize(f).toString().replace('\\', '/'), f);
                }
            }
        }
        TestingPostgres pg = TestingPostgres.shared();
        String db = pg.createDatabase("lake_s3");
        Path spec = dir.resolve("s3.yaml");
        Files.writeString(spec, """
                version: 1
                name: lake-s3
                connections:
                  lake:
                    type: duckdb
                    extension-directory: "%s"
                    s3: { endpoint: "%s", region: %s, url-style: path, use-ssl: false, key-id: %s, secret: %s }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: orders
                    source: { connection: lake, iceberg: "s3://%s/iceberg/orders" }
                    target: { connection: dst, table: orders, create: if-missing }
                    degree: 2
                  - name: events
                    source: { connection: lake, delta: "s3://%s/delta/events" }
                    target: { connection: dst, table: events, create: if-missing }
                """.formatted(DuckDbExtensions.directory(), s3.endpoint(), s3.region(), s3.accessKey(),
                s3.secretKey(), pg.jdbcUrl(db), pg.user(), bucket, bucket));
        run(spec, "s3-1");
        assertEquals(List.of("1|order 1", "3|order 3", "4|order 4", "5|order 5", "7|order 7"),
                rows(pg, db, "SELECT id, label FROM orders ORDER BY id"));
        assertEquals(List.of("1|eu|null", "3|eu|null", "4|us|null", "5|eu|null", "6|us|1.5", "7|eu|2.5"),
                rows(pg, db, "SELECT id, region, score FROM events ORDER BY id"));
    }

    @Test
    void lintRefusesASourceOfTwoKindsAndAVersionOfFiles() throws Exception {
        Path spec = dir.resolve("bad.yaml");
        Files.writeString(spec, """
                version: 1
                name: bad-lake
                connections:
                  lake: { type: duckdb }
                  dst: { type: postgres, url: "jdbc:postgresql://localhost:1/x", user: u }
                streams:
                  - name: both
                    source: { connection: lake, iceberg: "t/orders", delta: "t/events" }
                    target: { connection: dst, table: a }
                  - name: versioned-files
                    source: { connection: lake, files: "t/*.parquet", version: 3 }
                    target: { connection: dst, table: b }
                """);
        CliRun lint = CliRun.of("lint", spec.toString());
        assertTrue(lint.exitCode() != 0, lint.all());
        assertTrue(lint.all().contains("DUCK001") && lint.all().contains("it sets iceberg and delta"), lint.all());
        assertTrue(lint.all().contains("DUCK004"), lint.all());
    }

    private Path copy(String fixture) throws IOException {
        Path from = FIXTURES.resolve(fixture);
        Path to = dir.resolve(fixture);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(f, t);
                }
            }
        }
        return to.toAbsolutePath();
    }

    private Path spec(TestingPostgres pg, String db, String tableName, String source, String create, String mode,
                      int degree, String... extra) throws IOException {
        Path spec = Files.createTempFile(dir, "lake", ".yaml");
        Files.writeString(spec, """
                version: 1
                name: lake-%s
                connections:
                  lake: { type: duckdb, extension-directory: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: %s
                    source: { connection: lake, %s }
                    target: { connection: dst, table: %s%s }
                    load-mode: %s
                    degree: %d
                """.formatted(db.replace('_', '-'), DuckDbExtensions.directory(), pg.jdbcUrl(db), pg.user(),
                tableName, source, tableName, create.isEmpty() ? "" : ", " + create, mode, degree)
                + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    private static void run(Path spec, String runId) {
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", runId);
        assertEquals(0, run.exitCode(), run.all());
    }

    private static List<String> rows(TestingPostgres pg, String db, String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = pg.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(String.valueOf(rs.getString(i)));
                }
                rows.add(String.join("|", row));
            }
        }
        return rows;
    }

    private static List<String> columnTypes(TestingPostgres pg, String db, String table) throws Exception {
        return rows(pg, db, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '" + table
                + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
    }
}

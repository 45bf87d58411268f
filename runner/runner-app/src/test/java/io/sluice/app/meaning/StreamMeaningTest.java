package io.sluice.app.meaning;

import io.sluice.app.CliRun;
import io.sluice.app.SluiceProcess;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One stream, one meaning: a spec's options honoured by every path that moves its rows (the copy and the change
 * apply), or refused before anything is written. Each test is one finding of issue 55, on real servers.
 */
class StreamMeaningTest {
    private static TestingPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        pg = TestingPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "10",
                "max_wal_senders", "10"));
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    private record Databases(String source, String target) {
    }

    private Databases databases(String prefix) throws SQLException {
        Databases db = new Databases(pg.createDatabase(prefix + "_src"), pg.createDatabase(prefix + "_dst"));
        sql(db.source(), "CREATE TABLE t (id bigint PRIMARY KEY, amt numeric(12,2), note text)",
                "INSERT INTO t SELECT g, g, 'n' || g FROM generate_series(1, 1000) g");
        return db;
    }

    /** A spec of one stream from src's {@code sourceTable} into dst's {@code targetTable}, then {@code extra} lines. */
    private Path spec(Databases db, String name, String source, String target, String... extra) throws Exception {
        Path spec = dir.resolve(name + ".yaml");
        Files.writeString(spec, """
                version: 1
                name: %s
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: t
                    source: { connection: src, %s }
                    target: { connection: dst, %s }
                """.formatted(name, pg.jdbcUrl(db.source()), pg.user(), pg.jdbcUrl(db.target()), pg.user(), source,
                target) + String.join("", java.util.Arrays.stream(extra).map(l -> "    " + l + "\n").toList()));
        return spec;
    }

    @Test
    void aRenamedColumnGetsItsChangesWhereItsCopyWent() throws Exception {
        Databases db = databases("m_rename");
        Path spec = spec(db, "m_rename", "table: public.t, changes: { slot: m_rename }",
                "table: public.t, create: if-missing, primary-key: [id]", "columns: { amt: { rename: amount } }");
        CliRun copied = CliRun.of("run", spec.toString());
        assertEquals(0, copied.exitCode(), copied.all());
        sql(db.source(), "UPDATE t SET amt = 999 WHERE id = 2", "INSERT INTO t VALUES (1001, 5, 'new')");
        CliRun applied = CliRun.of("run", spec.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertEquals("999.00", text(db.target(), "SELECT amount FROM t WHERE id = 2"));
        assertEquals("5.00", text(db.target(), "SELECT amount FROM t WHERE id = 1001"));
        assertEquals("0", text(db.target(), "SELECT count(*) FROM t WHERE amount IS NULL"));
    }

    @Test
    void aFollowedStreamWhoseTargetWouldHaveNoKeyIsRefusedAtPlan() throws Exception {
        Databases db = databases("m_nokey");
        for (String extra : new String[] {"definition: bare", "columns: { amt: { rename: amount } }"}) {
            Path spec = extra.startsWith("definition") ? spec(db, "m_nokey", "table: public.t, changes: { slot: "
                    + "m_nokey }", "table: public.t, create: if-missing, " + extra) : spec(db, "m_nokey", "table: "
                    + "public.t, changes: { slot: m_nokey }", "table: public.t, create: if-missing", extra);
            for (String command : new String[] {"plan", "run"}) {
                CliRun refused = CliRun.of(command, spec.toString());
                assertEquals(4, refused.exitCode(), command + ": " + refused.all());
                assertTrue(refused.all().contains("error[PG607]") && refused.all().contains("primary-key: [...]"),
                        command + ": " + refused.all());
            }
        }
        assertEquals("0", text(db.target(), "SELECT count(*) FROM pg_class WHERE relname = 't'"), "nothing created");
        assertEquals("0", text(db.source(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = "
                + "'m_nokey'"), "no slot made");
    }

    @Test
    void aRejectsTableInASchemaTheTargetLacksIsRefusedAtPlanUnlessABeforeHookMakesIt() throws Exception {
        Databases db = databases("m_rejschema");
        Path spec = spec(db, "m_rejschema", "table: public.t", "table: public.t, create: if-missing",
                "rejects: { table: bad.t_rejects }");
        for (String command : new String[] {"plan", "run"}) {
            CliRun refused = CliRun.of(command, spec.toString());
            assertEquals(4, refused.exitCode(), command + ": " + refused.all());
            assertTrue(refused.all().contains("error[PG228]") && refused.all().contains("CREATE SCHEMA \"bad\""),
                    command + ": " + refused.all());
        }
        assertEquals("0", text(db.target(), "SELECT count(*) FROM pg_class WHERE relname = 't'"), "nothing created");
        CliRun made = CliRun.of("run", spec(db, "m_rejschema", "table: public.t", "table: public.t, create: "
                + "if-missing", "rejects: { table: bad.t_rejects }", "before: [\"CREATE SCHEMA IF NOT EXISTS bad\"]")
                .toString());
        assertEquals(0, made.exitCode(), made.all());
        assertEquals("1000", text(db.target(), "SELECT count(*) FROM t"));
    }

    @Test
    void aFilteredStreamThatFollowsChangesIsRefusedBeforeAnythingIsWritten() throws Exception {
        Databases db = databases("m_where");
        Path spec = spec(db, "m_where", "table: public.t, where: \"id % 2 = 0\", changes: { slot: m_where }",
                "table: public.t, create: if-missing, primary-key: [id]");
        for (String command : new String[] {"lint", "plan", "run"}) {
            CliRun refused = CliRun.of(command, spec.toString());
            assertEquals(3, refused.exitCode(), command + ": " + refused.all());
            assertTrue(refused.all().contains(spec + ":8:") && refused.all().contains("error[PG111]"),
                    command + ": " + refused.all());
        }
        assertEquals("", text(db.target(), "SELECT coalesce(string_agg(relname, ','), '') FROM pg_class WHERE "
                + "relname = 't'"), "nothing created");
        assertEquals("0", text(db.source(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = "
                + "'m_where'"), "no slot made");
    }

    @Test
    void aFilterThatEscapesItsParenthesesIsRefusedWithWhere() throws Exception {
        Databases db = databases("m_escape");
        Path spec = spec(db, "m_escape", "table: public.t, where: \"id > 500) OR (id < 10\"",
                "table: public.t, create: if-missing", "distribution: { method: range, key: id }", "degree: 4");
        for (String command : new String[] {"lint", "plan", "run"}) {
            CliRun refused = CliRun.of(command, spec.toString());
            assertEquals(3, refused.exitCode(), command + ": " + refused.all());
            assertTrue(refused.all().contains("error[PG110]") && refused.all().contains("closes a parenthesis it did "
                    + "not open, at character 9"), command + ": " + refused.all());
        }
        Path balanced = spec(db, "m_escape", "table: public.t, where: \"(id > 500) OR (id < 10) OR note = ')('\"",
                "table: public.t, create: if-missing", "distribution: { method: range, key: id }", "degree: 4");
        CliRun copied = CliRun.of("run", balanced.toString());
        assertEquals(0, copied.exitCode(), copied.all());
        assertEquals("509:509", text(db.target(), "SELECT count(*) || ':' || count(DISTINCT id) FROM t"));
    }

    @Test
    void aTableNameInsideAQuotedHookIsRefusedAndTheLiteralFormCarriesAnyName() throws Exception {
        Databases db = databases("m_hook");
        String evil = "a'); drop table hooklog; --";
        sql(db.source(), "CREATE TABLE \"" + evil + "\" (id int PRIMARY KEY)", "INSERT INTO \"" + evil + "\" VALUES (1)");
        sql(db.target(), "CREATE TABLE hooklog (what text)");
        Path quoted = spec(db, "m_hook", "table: \"public.a*\"", "table: \"public.{table}\", create: if-missing",
                "after: [\"insert into hooklog(what) values ('loaded {table}')\"]",
                "checks: [ { name: named, sql: \"select count(*) from {table} where '{table}' = ''\" } ]");
        CliRun refused = CliRun.of("lint", quoted.toString());
        assertEquals(3, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("error[SPEC034]") && refused.all().contains(quoted + ":10:"),
                refused.all());
        assertTrue(refused.all().contains(quoted + ":11:"), "the check too: " + refused.all());
        Path literal = spec(db, "m_hook", "table: \"public.a*\"", "table: \"public.{table}\", create: if-missing",
                "after: [\"insert into hooklog(what) values ('loaded ' || {table_literal})\"]",
                "checks: [ { name: named, sql: \"select count(*) - 1 from {table} where {table_literal} <> ''\" } ]");
        CliRun ran = CliRun.of("run", literal.toString());
        assertEquals(0, ran.exitCode(), ran.all());
        assertEquals("loaded \"public\".\"" + evil + "\"", text(db.target(), "SELECT what FROM hooklog"));
    }

    @Test
    void aTargetTypeThatWouldRoundIsRefusedOnEveryPathAndWidenWidensIt() throws Exception {
        Databases db = databases("m_round");
        sql(db.source(), "ALTER TABLE t ALTER amt TYPE numeric(14,4)", "UPDATE t SET amt = amt + 0.2345");
        sql(db.target(), "CREATE TABLE t (id bigint PRIMARY KEY, amt numeric(12,2), note text)");
        Path spec = spec(db, "m_round", "table: public.t", "table: public.t", "load-mode: truncate");
        CliRun refused = CliRun.of("plan", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("error[PG229]") && refused.all().contains("\"amt\" is numeric(14,4) and "
                + "target column \"amt\" is numeric(12,2): values are rounded to 2 decimal place(s)")
                && refused.all().contains("ALTER TABLE \"public\".\"t\" ALTER COLUMN \"amt\" TYPE numeric(14,4)"),
                refused.all());
        assertEquals(4, CliRun.of("run", spec.toString()).exitCode());
        assertEquals("0", text(db.target(), "SELECT count(*) FROM t"), "nothing written");
        CliRun widened = CliRun.of("run", spec(db, "m_round", "table: public.t", "table: public.t",
                "load-mode: truncate", "schema-changes: widen").toString());
        assertEquals(0, widened.exitCode(), widened.all());
        assertEquals("1.2345", text(db.target(), "SELECT amt FROM t WHERE id = 1"));

        // The change apply: the source's type changes while a run follows (the apply refuses it), or before the
        // next run (its plan refuses it).
        Databases cdc = databases("m_round_cdc");
        Path follow = spec(cdc, "m_round_cdc", "table: public.t, changes: { slot: m_round_cdc }",
                "table: public.t, create: if-missing, primary-key: [id]");
        Path log = dir.resolve("m_round_cdc.log");
        Process child = SluiceProcess.following(follow, log);
        sql(cdc.source(), "ALTER TABLE t ALTER amt TYPE numeric(14,4)", "UPDATE t SET amt = 1.2345 WHERE id = 1");
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        assertEquals(1, child.exitValue(), SluiceProcess.read(log));
        assertTrue(SluiceProcess.read(log).contains("PG229") && SluiceProcess.read(log).contains("ALTER COLUMN \"amt\" TYPE numeric(14,4)"),
                SluiceProcess.read(log));
        assertEquals("1.00", text(cdc.target(), "SELECT amt FROM t WHERE id = 1"), "nothing rounded, nothing applied");
        CliRun planned = CliRun.of("run", follow.toString());
        assertEquals(4, planned.exitCode(), planned.all());
        assertTrue(planned.all().contains("error[PG229]"), planned.all());
        sql(cdc.target(), "ALTER TABLE t ALTER amt TYPE numeric(14,4)");
        CliRun applied = CliRun.of("run", follow.toString());
        assertEquals(0, applied.exitCode(), applied.all());
        assertEquals("1.2345", text(cdc.target(), "SELECT amt FROM t WHERE id = 1"));

        // Under widen the change apply widens as a load does, in the batch that first brings the new type.
        Databases wide = databases("m_round_wide");
        Path widening = spec(wide, "m_round_wide", "table: public.t, changes: { slot: m_round_wide }",
                "table: public.t, create: if-missing, primary-key: [id]", "schema-changes: widen");
        Path wideLog = dir.resolve("m_round_wide.log");
        Process follower = SluiceProcess.following(widening, wideLog);
        sql(wide.source(), "ALTER TABLE t ALTER amt TYPE numeric(14,4)", "UPDATE t SET amt = 1.2345 WHERE id = 1");
        awaitValue(pg, wide.target(), "SELECT amt FROM t WHERE id = 1", "1.2345", follower, wideLog);
        assertEquals("numeric(14,4)", text(wide.target(), "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                + "WHERE attrelid = 't'::regclass AND attname = 'amt'"));
        follower.destroy(); // SIGTERM
        assertTrue(follower.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(wideLog));
        assertEquals(0, follower.exitValue(), SluiceProcess.read(wideLog));
    }

    @Test
    void aColumnDroppedAtTheSourceIsRefusedUnderFailAndNotedUnderTheOtherPolicies() throws Exception {
        Databases db = databases("m_dropped");
        Path spec = spec(db, "m_dropped", "table: public.t", "table: public.t, create: if-missing",
                "load-mode: truncate");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "ALTER TABLE t DROP COLUMN note");
        CliRun refused = CliRun.of("run", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("error[PG230]") && refused.all().contains("\"note\"")
                && refused.all().contains("DROP COLUMN \"note\""), refused.all());
        assertEquals("1000", text(db.target(), "SELECT count(note) FROM t"), "the last load stays whole");
        Path adding = spec(db, "m_dropped", "table: public.t", "table: public.t, create: if-missing",
                "load-mode: truncate", "schema-changes: add-columns");
        CliRun plan = CliRun.of("plan", adding.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("target column \"note\" has no source column"), plan.all());
        assertEquals(0, CliRun.of("run", adding.toString()).exitCode());
        assertEquals("0:1000", text(db.target(), "SELECT count(note) || ':' || count(*) FROM t"));

        Databases cdc = databases("m_dropped_cdc");
        Path follow = spec(cdc, "m_dropped_cdc", "table: public.t, changes: { slot: m_dropped_cdc }",
                "table: public.t, create: if-missing, primary-key: [id]");
        Path log = dir.resolve("m_dropped_cdc.log");
        Process child = SluiceProcess.following(follow, log);
        sql(cdc.source(), "ALTER TABLE t DROP COLUMN note", "UPDATE t SET amt = 7 WHERE id = 3");
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        assertEquals(1, child.exitValue(), SluiceProcess.read(log));
        assertTrue(SluiceProcess.read(log).contains("PG230") && SluiceProcess.read(log).contains("no longer has column(s) note"), SluiceProcess.read(log));
        assertEquals("n3:3.00", text(cdc.target(), "SELECT note || ':' || amt FROM t WHERE id = 3"));
        CliRun planned = CliRun.of("run", follow.toString());
        assertEquals(4, planned.exitCode(), planned.all());
        assertTrue(planned.all().contains("error[PG230]"), planned.all());
    }

    @Test
    void aColumnAddedWithADefaultHoldsItInTheRowsAnIncrementalMergeLoadedBefore() throws Exception {
        // The rows of the last runs are not read again: the added column must hold, in the target, what their
        // source rows hold (the default PostgreSQL keeps as their value), not NULL.
        Databases db = databases("m_adddefault");
        sql(db.source(), "ALTER TABLE t ADD COLUMN upd bigint NOT NULL DEFAULT 1");
        Path spec = spec(db, "m_adddefault", "table: public.t", "table: public.t, create: if-missing, primary-key: "
                + "[id]", "load-mode: merge", "incremental: { cursor: upd }", "verify: none",
                "schema-changes: add-columns");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "ALTER TABLE t ADD COLUMN flag text NOT NULL DEFAULT 'Y'",
                "UPDATE t SET upd = 2, flag = 'N' WHERE id = 5");
        CliRun merged = CliRun.of("run", spec.toString());
        assertEquals(0, merged.exitCode(), merged.all());
        assertEquals("999:1:1000", text(db.target(), "SELECT count(*) FILTER (WHERE flag = 'Y') || ':' || count(*) "
                + "FILTER (WHERE flag = 'N') || ':' || count(*) FROM t"));
        assertEquals("f", text(db.target(), "SELECT atthasdef FROM pg_attribute WHERE attrelid = 't'::regclass AND "
                + "attname = 'flag'"), "the default gave the rows there their value and went");
    }

    @Test
    void aColumnAddedWithAVolatileDefaultIsRefusedWhereTheRowsBeforeAreNotReadAgainAndLoadsWhereTheyAre()
            throws Exception {
        // random() gives each row its own value: PostgreSQL rewrites the table and keeps no value for the rows from
        // before, so a path that does not read them again (an incremental run, the change apply) would leave NULL.
        Databases db = databases("m_volatile");
        sql(db.source(), "ALTER TABLE t ADD COLUMN upd bigint NOT NULL DEFAULT 1");
        Path spec = spec(db, "m_volatile", "table: public.t", "table: public.t, create: if-missing, primary-key: "
                + "[id]", "load-mode: merge", "incremental: { cursor: upd }", "verify: none",
                "schema-changes: add-columns");
        assertEquals(0, CliRun.of("run", spec.toString()).exitCode());
        sql(db.source(), "ALTER TABLE t ADD COLUMN r double precision DEFAULT random()",
                "UPDATE t SET upd = 2 WHERE id = 5");
        for (String command : List.of("plan", "run")) {
            CliRun refused = CliRun.of(command, spec.toString());
            assertEquals(4, refused.exitCode(), command + ": " + refused.all());
            assertTrue(refused.all().contains("error[PG232]") && refused.all().contains("--full-refresh")
                    && refused.all().contains("ADD COLUMN \"r\" double precision"), command + ": " + refused.all());
        }
        CliRun lint = CliRun.of("lint", "--connect", spec.toString());
        assertTrue(lint.all().contains("PG232"), lint.all());
        assertEquals("0", text(db.target(), "SELECT count(*) FROM pg_attribute WHERE attrelid = 't'::regclass AND "
                + "attname = 'r'"), "nothing changed");
        CliRun refreshed = CliRun.of("run", spec.toString(), "--full-refresh");
        assertEquals(0, refreshed.exitCode(), refreshed.all());
        String rows = "SELECT md5(string_agg(id || ':' || r, '|' ORDER BY id)) FROM t";
        assertEquals(text(db.source(), rows), text(db.target(), rows));

        Databases cdc = databases("m_volatile_cdc");
        Path follow = spec(cdc, "m_volatile_cdc", "table: public.t, changes: { slot: m_volatile_cdc }",
                "table: public.t, create: if-missing, primary-key: [id]", "schema-changes: add-columns",
                "load-mode: truncate");
        assertEquals(0, CliRun.of("run", follow.toString()).exitCode());
        sql(cdc.source(), "ALTER TABLE t ADD COLUMN r double precision DEFAULT random()",
                "UPDATE t SET note = 'x' WHERE id = 5");
        CliRun refused = CliRun.of("run", follow.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("error[PG232]") && refused.all().contains("--restart-changes"),
                refused.all());
        assertEquals("n5", text(cdc.target(), "SELECT note FROM t WHERE id = 5"), "nothing applied");
        CliRun again = CliRun.of("run", follow.toString(), "--restart-changes");
        assertEquals(0, again.exitCode(), again.all());
        assertEquals(text(cdc.source(), rows), text(cdc.target(), rows));
    }

    @Test
    void aColumnAddedWhileARunFollowsHoldsItsDefaultInTheRowsBeforeOrIsRefusedWhenNoDefaultTellsThem()
            throws Exception {
        Databases db = databases("m_addfollow");
        Path follow = spec(db, "m_addfollow", "table: public.t, changes: { slot: m_addfollow }",
                "table: public.t, create: if-missing, primary-key: [id]", "schema-changes: add-columns");
        Path log = dir.resolve("m_addfollow.log");
        Process child = SluiceProcess.following(follow, log);
        sql(db.source(), "ALTER TABLE t ADD COLUMN flag text NOT NULL DEFAULT 'Y'",
                "UPDATE t SET flag = 'N', note = 'x' WHERE id = 5");
        awaitValue(pg, db.target(), "SELECT note FROM t WHERE id = 5", "x", child, log);
        assertEquals("999:1", text(db.target(), "SELECT count(*) FILTER (WHERE flag = 'Y') || ':' || count(*) "
                + "FILTER (WHERE flag = 'N') FROM t"), "the rows from before hold the default, as at the source");
        sql(db.source(), "ALTER TABLE t ADD COLUMN r double precision DEFAULT random()",
                "UPDATE t SET note = 'y' WHERE id = 6");
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
        assertTrue(child.exitValue() != 0 && SluiceProcess.read(log).contains("PG232"), SluiceProcess.read(log));
        assertEquals("n6", text(db.target(), "SELECT note FROM t WHERE id = 6"), "nothing of that batch applied");
    }

    @Test
    void aCreatedTableKeepsItsSourcesPersistenceAndACollationTheTargetLacksIsRefusedAtPlanWithItsDefinition()
            throws Exception {
        Databases db = databases("m_collate");
        sql(db.source(), "CREATE COLLATION src_c (provider = libc, locale = 'C')",
                "CREATE UNLOGGED TABLE u (id int PRIMARY KEY, name text COLLATE src_c)",
                "INSERT INTO u SELECT g, 'n' || g FROM generate_series(1, 100) g");
        Path spec = spec(db, "m_collate", "table: public.u", "table: public.u, create: if-missing");
        CliRun refused = CliRun.of("plan", spec.toString());
        assertEquals(4, refused.exitCode(), refused.all());
        String fix = "CREATE COLLATION public.src_c (provider = libc, lc_collate = 'C', lc_ctype = 'C')";
        assertTrue(refused.all().contains("error[PG231]") && refused.all().contains("\"name\" is COLLATE "
                + "public.src_c") && refused.all().contains(fix), refused.all());
        sql(db.target(), fix); // the fix, as printed
        CliRun copied = CliRun.of("run", spec.toString());
        assertEquals(0, copied.exitCode(), copied.all());
        assertEquals("u:src_c:100", text(db.target(), "SELECT c.relpersistence::text || ':' || co.collname || ':' || "
                + "(SELECT count(*) FROM u) FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname "
                + "= 'name' JOIN pg_collation co ON co.oid = a.attcollation WHERE c.oid = 'u'::regclass"));
    }

    @Test
    void aValueTooLongForItsTargetColumnIsSetAsideNamingTheColumn() throws Exception {
        // The server's refusal names the column only in its CONTEXT (COPY t, line n, column note: ...).
        Databases db = databases("m_toolong");
        sql(db.target(), "CREATE TABLE t (id bigint PRIMARY KEY, amt numeric(12,2), note varchar(4))");
        Path spec = spec(db, "m_toolong", "table: public.t", "table: public.t",
                "rejects: { table: public.t_rejects }");
        CliRun run = CliRun.of("run", spec.toString());
        assertEquals(0, run.exitCode(), run.all());
        assertEquals("999:22001:note", text(db.target(), "SELECT (SELECT count(*) FROM t) || ':' || string_agg("
                + "error_code || ':' || coalesce(column_name, '-'), ',') FROM t_rejects"));
    }

    @Test
    void aFollowerRidesThroughACrashOfItsServersAndStopsOnlyOnSigterm() throws Exception {
        // Source and target (and the ledger) on one server of the test's own, crashed as a power cut would.
        TestingPostgres own = TestingPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "4",
                "max_wal_senders", "4"));
        try {
            Databases db = new Databases(own.createDatabase("m_ride_src"), own.createDatabase("m_ride_dst"));
            sql(own, db.source(), "CREATE TABLE t (id bigint PRIMARY KEY, amt numeric(12,2), note text)",
                    "INSERT INTO t SELECT g, g, 'n' || g FROM generate_series(1, 1000) g");
            Path spec = dir.resolve("m_ride.yaml");
            Files.writeString(spec, """
                    version: 1
                    name: m_ride
                    connections:
                      src: { type: postgres, url: "%s", user: "%s" }
                      dst: { type: postgres, url: "%s", user: "%s" }
                    streams:
                      - name: t
                        source: { connection: src, table: public.t, changes: { slot: m_ride } }
                        target: { connection: dst, table: public.t, create: if-missing }
                        retry: { max-attempts: 20, initial-backoff: 200ms, max-backoff: 1s }
                    """.formatted(own.jdbcUrl(db.source()), own.user(), own.jdbcUrl(db.target()), own.user()));
            Path log = dir.resolve("m_ride.log");
            Process child = SluiceProcess.following(spec, log);
            sql(own, db.source(), "UPDATE t SET amt = -1 WHERE id = 1");
            awaitValue(own, db.target(), "SELECT amt FROM t WHERE id = 1", "-1.00", child, log);
            own.crash();
            own.restart();
            sql(own, db.source(), "UPDATE t SET amt = -2 WHERE id = 2", "INSERT INTO t VALUES (5000, 1, 'late')");
            awaitValue(own, db.target(), "SELECT amt FROM t WHERE id = 2", "-2.00", child, log);
            assertTrue(SluiceProcess.read(log).contains("retry:"), SluiceProcess.read(log));
            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), () -> SluiceProcess.read(log));
            assertEquals(0, child.exitValue(), SluiceProcess.read(log));
            String rows = "SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM t";
            assertEquals(text(own, db.source(), rows), text(own, db.target(), rows));
        } finally {
            own.close();
        }
    }

    /** Polls {@code query} until it reads {@code expected}, failing if the follower ends or a minute passes. */
    private static void awaitValue(TestingPostgres server, String database, String query, String expected,
                                   Process follower, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            String value;
            try {
                value = text(server, database, query);
            } catch (SQLException e) {
                value = e.getMessage(); // the server still starting
            }
            if (expected.equals(value)) {
                return;
            }
            assertTrue(follower.isAlive(), () -> SluiceProcess.read(log));
            assertTrue(System.nanoTime() < deadline, () -> query + " reads " + "no " + expected + ": "
                    + SluiceProcess.read(log));
            Thread.sleep(20); // polling the target for a state, not timing anything
        }
    }

    private static void sql(TestingPostgres server, String database, String... statements) throws SQLException {
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static String text(TestingPostgres server, String database, String query) throws SQLException {
        try (Connection c = server.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void sql(String database, String... statements) throws SQLException {
        sql(pg, database, statements);
    }

    private static String text(String database, String query) throws SQLException {
        return text(pg, database, query);
    }
}

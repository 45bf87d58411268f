package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.loads.TableDefinitionTest;
import io.sluice.app.CliRun;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.sluice.app.ledger.LedgerFixture.scalar;
import static io.sluice.app.ledger.LedgerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole-schema run with definitions, SIGKILLed at three moments (while copying the last table, while the first
 * table's keys and indexes build, while the foreign keys are added once every stream is done), then recovered as a
 * scheduler would: {@code --resume}, or a fresh run. Either way the target ends with every row and the source's
 * definition, compared through the catalog as {@link TableDefinitionTest} compares it. Each moment is held by a lock
 * the test takes, so the kill lands exactly there.
 */
class TableDefinitionCrashTest {
    private static final String CUSTOMERS_STREAM = "app.app.customers";

    enum Moment {
        /** The first two tables done, the third created and waiting to read its source table. */
        COPYING,
        /** customers loaded, its primary key waiting for the table. */
        BUILDING,
        /** Every stream loaded, the first foreign key waiting for the table. */
        FOREIGN_KEYS
    }

    @TempDir
    Path dir;

    @ParameterizedTest(name = "SIGKILL while {0}, then {1}")
    @CsvSource({"COPYING, resume", "COPYING, fresh", "BUILDING, resume", "BUILDING, fresh", "FOREIGN_KEYS, resume",
            "FOREIGN_KEYS, fresh"})
    void aKilledWholeSchemaRunEndsWithTheSourcesDefinition(Moment moment, String recovery) throws Exception {
        TestingPostgres pg = TestingPostgres.shared();
        String name = (moment.name() + "_" + recovery).toLowerCase(Locale.ROOT);
        String source = pg.createDatabase("defcrash_src_" + name);
        String target = pg.createDatabase("defcrash_dst_" + name);
        sql(pg, source, TableDefinitionTest.SCHEMA);
        sql(pg, target, "CREATE SCHEMA app");
        Path spec = TableDefinitionTest.spec(dir, "crash.yaml", pg, source, target, "", 1);
        Path log = dir.resolve("killed.log");
        Process run = LedgerFixture.startSluice(log, "run", spec.toString(), "--run-id", "killed");
        try (Connection hold = holdAt(moment, pg, source, target, run, log)) {
            run.destroyForcibly();
            assertTrue(run.waitFor(60, TimeUnit.SECONDS));
        }
        CliRun recovered = recovery.equals("resume") ? CliRun.of("run", spec.toString(), "--resume", "killed")
                : CliRun.of("run", spec.toString(), "--run-id", "fresh");
        assertEquals(0, recovered.exitCode(), Files.readString(log) + "\n---\n" + recovered.all());
        TableDefinitionTest.assertSameDefinition(pg, source, target);
        TableDefinitionTest.assertRowsAndSequences(pg, source, target);
    }

    /** Takes the lock that stops the run at {@code moment} and returns once the run waits for it. */
    private static Connection holdAt(Moment moment, TestingPostgres pg, String source, String target, Process run,
                                     Path log) throws Exception {
        if (moment == Moment.COPYING) {
            // Queued behind the run's snapshot lock, it holds every later reader of orders back.
            Connection c = pg.connect(source);
            c.setAutoCommit(false);
            CompletableFuture.runAsync(() -> execute(c, "LOCK TABLE app.orders IN ACCESS EXCLUSIVE MODE"));
            LedgerFixture.waitUntil(run, log, () -> waiting(pg, source, "app.orders") > 0);
            return c;
        }
        String ready = moment == Moment.BUILDING
                ? "SELECT count(*) FROM sluice.run_streams WHERE stream = '" + CUSTOMERS_STREAM
                + "' AND truncated_at IS NOT NULL"
                : "SELECT count(*) FROM sluice.run_streams WHERE stream = '" + CUSTOMERS_STREAM + "' AND state = 'done'";
        LedgerFixture.waitUntil(run, log, () -> scalar(pg, target, ready) > 0);
        // ROW EXCLUSIVE lets the COPY in and keeps ADD CONSTRAINT (and ADD FOREIGN KEY) out.
        Connection c = pg.connect(target);
        c.setAutoCommit(false);
        execute(c, "LOCK TABLE app.customers IN ROW EXCLUSIVE MODE");
        LedgerFixture.waitUntil(run, log, () -> waiting(pg, target, "app.customers") > 0);
        return c;
    }

    /** Sluice's sessions waiting for a lock on {@code table}. */
    private static long waiting(TestingPostgres pg, String database, String table) throws SQLException {
        return scalar(pg, database, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                + "WHERE l.relation = to_regclass('" + table + "') AND NOT l.granted AND a.application_name LIKE "
                + "'sluice%'");
    }

    private static void execute(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

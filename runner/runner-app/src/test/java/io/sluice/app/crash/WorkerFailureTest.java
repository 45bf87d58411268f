package io.sluice.app.crash;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import io.sluice.app.crash.FaultyConnectors.Fault;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader that dies of something no connector declares (a RuntimeException, an Error) or stops early without an
 * error must fail the run, through the command line: exit 1, the partition named, the ledger says failed, and
 * {@code --resume} completes the copy exactly. Before the fail-safe executor such a worker ended quietly and the run
 * said "done" with partitions missing.
 */
class WorkerFailureTest {
    @TempDir
    Path dir;

    @AfterEach
    void disarm() {
        FaultyConnectors.disarm();
    }

    @Test
    void aRuntimeExceptionInAReaderFailsTheRunAndResumeEndsExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "wfrt", 5_000);
        Path spec = faultyPostgresSpec(f, 1, "append");
        FaultyConnectors.arm(Fault.RUNTIME_EXCEPTION, 2);

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "wf-rt");

        assertTrue(FaultyConnectors.fired(), failed.all());
        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("error[RUN030]"), failed.err());
        assertTrue(failed.err().contains("stream 'items', partition "), failed.err());
        assertTrue(failed.err().contains("unexpected java.lang.IllegalStateException: injected: an encoder bug"),
                failed.err());
        assertFailedInLedger(f, spec, "wf-rt");
        long committed = f.scalar(f.target, "SELECT count(*) FROM items");
        assertTrue(committed > 0 && committed < 5_000, "the first partition committed, the run stopped: " + committed);

        resumeEndsExact(f, spec, "wf-rt");
    }

    @Test
    void anErrorInAReaderStopsEveryWorkerAndFailsTheRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "wferr", 5_000);
        Path spec = faultyPostgresSpec(f, 2, "append");
        FaultyConnectors.arm(Fault.ERROR, 1);

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "wf-err");

        assertTrue(FaultyConnectors.fired());
        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("error[RUN030]"), failed.err());
        assertTrue(failed.err().contains("unexpected java.lang.ExceptionInInitializerError: injected: a class failed "
                + "to initialise"), failed.err());
        assertTrue(failed.err().contains("stream 'items', partition "), failed.err());
        assertFailedInLedger(f, spec, "wf-err");

        resumeEndsExact(f, spec, "wf-err");
    }

    @Test
    void inOneTransactionAnUnexpectedFailureLeavesTheOldRowsAndResumeEndsExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "wftx", 5_000);
        f.sql(f.target, "INSERT INTO items VALUES (-1, 'old one', 1)");
        Path spec = faultyPostgresSpec(f, 1, "truncate");
        FaultyConnectors.arm(Fault.RUNTIME_EXCEPTION, 1);

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "wf-tx");

        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("error[RUN030]"), failed.err());
        assertTrue(failed.err().contains("stream 'items', partition 1/1"), failed.err());
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items WHERE id = -1"), "the old row is there");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM items"), "and nothing else");
        assertFailedInLedger(f, spec, "wf-tx");

        resumeEndsExact(f, spec, "wf-tx");
    }

    @Test
    void aReaderThatStopsEarlyWithoutAnErrorFailsItsFileAndResumeEndsExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "wfshort", 0);
        Path lake = Files.createDirectories(dir.resolve("lake"));
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
            for (int file = 1; file <= 3; file++) {
                s.execute("COPY (SELECT g::BIGINT AS id, 'item ' || g AS name, (g / 7.0)::DECIMAL(10,2) AS price "
                        + "FROM range(" + ((file - 1) * 1_000 + 1) + ", " + (file * 1_000 + 1) + ") t(g)) TO '"
                        + lake.resolve("items-" + file + ".parquet") + "' (FORMAT parquet)");
            }
        }
        Path spec = dir.resolve("files.yaml");
        Files.writeString(spec, """
                version: 1
                name: worker-failure-files
                connections:
                  lake: { type: faulty-duckdb }
                  dst: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: items
                    source: { connection: lake, files: "%s" }
                    target: { connection: dst, table: items }
                    degree: 1
                    load-mode: append
                """.formatted(f.pg.jdbcUrl(f.target), f.pg.user(), lake.resolve("items-*.parquet")));
        FaultyConnectors.arm(Fault.NO_ROWS, 2);

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "wf-short");

        assertTrue(FaultyConnectors.fired(), failed.all());
        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("error[RUN021]"), failed.err());
        assertTrue(failed.err().contains("the source said at plan time that the partition holds 1000 rows, but its "
                + "reader returned 0 without an error"), failed.err());
        assertTrue(failed.err().matches("(?s).*partition \\d/3 \\(file [^)]*items-\\d\\.parquet\\).*"), failed.err());
        assertEquals(1_000, f.scalar(f.target, "SELECT count(*) FROM items"), "only the first file committed");
        assertFailedInLedger(f, spec, "wf-short");

        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "wf-short");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(3_000, f.scalar(f.target, "SELECT count(DISTINCT id) FROM items WHERE id BETWEEN 1 AND 3000"));
        assertEquals(3_000, f.scalar(f.target, "SELECT count(*) FROM items"), "every file once, none twice");
    }

    private static Path faultyPostgresSpec(LedgerFixture f, int degree, String loadMode) throws Exception {
        Path spec = f.spec("items.yaml", "range", degree, 1_000);
        Files.writeString(spec, Files.readString(spec)
                .replace("src: { type: postgres", "src: { type: faulty-postgres")
                .replace("load-mode: truncate", "load-mode: " + loadMode));
        return spec;
    }

    private static void assertFailedInLedger(LedgerFixture f, Path spec, String runId) throws Exception {
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_streams WHERE run_id = '" + runId
                + "' AND state = 'failed' AND error IS NOT NULL"), "the ledger says the stream failed");
        assertEquals(1, f.scalar(f.target, "SELECT count(*) FROM sluice.run_attempts WHERE run_id = '" + runId
                + "' AND outcome = 'failed' AND error_code IN ('RUN030', 'RUN021')"),
                "and records the failed attempt with its code");
        CliRun status = CliRun.of("status", spec.toString(), runId);
        assertTrue(status.out().contains("failed"), status.all());
    }

    private static void resumeEndsExact(LedgerFixture f, Path spec, String runId) throws Exception {
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", runId);
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals(0, f.differences(), "no duplicates, no gaps");
    }
}

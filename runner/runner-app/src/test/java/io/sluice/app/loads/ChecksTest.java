package io.sluice.app.loads;

import io.sluice.app.ledger.LedgerFixture;
import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code checks:} on real PostgreSQL: evaluated before the data goes live. A failed check exits 5 naming the check,
 * its value and its query; a replace leaves the old table live (a reader polling it throughout sees only old rows), a
 * truncate in one transaction leaves the old rows; an append's rows are in and its run is failed, not done. A rows
 * ratio compares with the last done run's count.
 */
class ChecksTest {
    @TempDir
    Path dir;

    @Test
    void aFailedCheckOnAReplaceLeavesTheOldTableLiveForAReaderThroughout() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "chkrep", 50_000);
        f.sql(f.source, "UPDATE items SET name = NULL WHERE id = 4321");
        f.sql(f.target, "INSERT INTO items SELECT g, 'old', 1 FROM generate_series(1, 100) g");
        Path replace = spec(f, "replace.yaml", "ctid", 2, 5000, "replace", "checks:",
                "  - not-null: [id, name]", "  - unique: [id]", "  - name: positive-prices",
                "    sql: \"SELECT count(*) FROM {table} WHERE price < 0\"");
        CliRun plan = CliRun.of("plan", replace.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("before the swap: check not-null (expects 0 rows with NULL in id, name): "
                + "SELECT count(*) FROM \"public\".\"items_sluice_shadow\" WHERE \"id\" IS NULL OR \"name\" IS NULL"),
                plan.out());

        AtomicBoolean running = new AtomicBoolean(true);
        List<String> seen = new ArrayList<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try (Connection c = f.pg.connect(f.target); Statement s = c.createStatement()) {
                while (running.get()) {
                    try (ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE name = 'old') "
                            + "FROM items")) {
                        rs.next();
                        if (rs.getLong(1) != 100 || rs.getLong(2) != 100) {
                            seen.add(rs.getLong(1) + " rows, " + rs.getLong(2) + " old");
                        }
                    }
                }
            } catch (Exception e) {
                seen.add(e.toString());
            }
        });
        CliRun run = CliRun.of("run", replace.toString());
        running.set(false);
        reader.join();
        assertEquals(5, run.exitCode(), run.all());
        assertTrue(run.all().contains("PG226") && run.all().contains("'not-null' found 1, expected 0 rows with NULL "
                + "in id, name") && run.all().contains("the old table stays live"), run.all());
        assertEquals(List.of(), seen, "a reader saw only the old table");
        assertEquals(100, f.scalar(f.target, "SELECT count(*) FROM items WHERE name = 'old'"));

        f.sql(f.source, "UPDATE items SET name = 'fixed' WHERE id = 4321");
        CliRun again = CliRun.of("run", replace.toString());
        assertEquals(0, again.exitCode(), again.all());
        assertEquals(0, f.differences());
    }

    @Test
    void aTruncateInOneTransactionRollsBackOnAFailedCheckAndARowsRatioComparesWithTheLastDoneRun() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "chktrunc", 1000);
        Path spec = f.spec("trunc.yaml", "none", 1, 100_000, "checks:", "  - rows: { min-ratio-of-last-run: 0.9 }",
                "  - unique: id");
        CliRun first = CliRun.of("run", spec.toString());
        assertEquals(0, first.exitCode(), first.all());

        f.sql(f.source, "DELETE FROM items WHERE id > 500");
        CliRun plan = CliRun.of("plan", spec.toString());
        assertTrue(plan.out().contains("check rows (expects at least 900 (0.9 x 1000, the last done run's) rows)"),
                plan.out());
        CliRun shrunk = CliRun.of("run", spec.toString());
        assertEquals(5, shrunk.exitCode(), shrunk.all());
        assertTrue(shrunk.all().contains("'rows' found 500, expected at least 900 (0.9 x 1000, the last done run's) "
                + "rows (SELECT count(*) FROM \"public\".\"items\")") && shrunk.all().contains("the old rows stay"),
                shrunk.all());
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items"), "rolled back: the old rows stay");

        f.sql(f.source, "INSERT INTO items SELECT 7, 'twin', 1");
        f.sql(f.source, "INSERT INTO items SELECT g, 'x', 1 FROM generate_series(501, 1000) g");
        CliRun duplicated = CliRun.of("run", spec.toString());
        assertEquals(5, duplicated.exitCode(), duplicated.all());
        assertTrue(duplicated.all().contains("'unique' found 1, expected 0 values of (id) on more than one row"),
                duplicated.all());
        assertEquals(1000, f.scalar(f.target, "SELECT count(*) FROM items WHERE name NOT IN ('x', 'twin')"));
    }

    @Test
    void anAppendThatFailsACheckIsFailedNotDoneAndABadCheckIsRefusedBeforeAnythingIsWritten() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "chkapp", 300);
        Path spec = spec(f, "append.yaml", "range", 2, 100, "append", "checks:", "  - name: few-rows",
                "    sql: \"SELECT greatest(count(*) - 500, 0) FROM {table}\"");
        assertEquals(0, CliRun.of("run", spec.toString(), "--run-id", "ap-1").exitCode());
        CliRun second = CliRun.of("run", spec.toString(), "--run-id", "ap-2");
        assertEquals(5, second.exitCode(), second.all());
        assertTrue(second.all().contains("'few-rows' found 100, expected 0") && second.all().contains("the rows are "
                + "loaded and the run is failed, not done"), second.all());
        assertEquals(600, f.scalar(f.target, "SELECT count(*) FROM items"));
        CliRun status = CliRun.of("status", spec.toString(), "ap-2");
        assertTrue(status.out().contains("failed"), status.out());

        Path bad = f.spec("bad.yaml", "none", 1, 1000, "checks:", "  - not-null: [id, nmae]");
        f.sql(f.target, "TRUNCATE items");
        CliRun refused = CliRun.of("run", bad.toString());
        assertEquals(3, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("CHECK001") && refused.all().contains("nmae"), refused.all());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM items"));
    }

    /** The fixture's spec with load mode {@code mode} instead of its truncate. */
    private static Path spec(LedgerFixture f, String file, String method, int degree, long batch, String mode,
                             String... extra) throws Exception {
        Path spec = f.spec(file, method, degree, batch, extra);
        java.nio.file.Files.writeString(spec, java.nio.file.Files.readString(spec)
                .replace("    load-mode: truncate\n", "    load-mode: " + mode + "\n"));
        return spec;
    }
}

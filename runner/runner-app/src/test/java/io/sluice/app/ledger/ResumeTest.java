package io.sluice.app.ledger;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run ledger through the command line: failure, resume, refusals, status and verification. */
class ResumeTest {
    @TempDir
    Path dir;

    /** A target trigger that fails the row with id 2 (its partition runs late: largest first) while control.fail is true. */
    private static void injectFailure(LedgerFixture f) throws Exception {
        f.sql(f.target, "CREATE TABLE control (fail boolean)", "INSERT INTO control VALUES (true)",
                "CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF NEW.id = 2 AND (SELECT fail FROM control) THEN "
                        + "RAISE EXCEPTION 'injected failure for id %', NEW.id; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER guard BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION guard()");
    }

    @Test
    void aFailedRunResumesSkippingDonePartitionsAndEndsExact() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "resume", 5000);
        injectFailure(f);
        // Appending: a truncate load by one worker is one transaction, so it never stops half-way
        // (OneTransactionTruncateTest); an appending one commits partition by partition.
        Path spec = f.spec("items.yaml", "range", 1, 500);
        Files.writeString(spec, Files.readString(spec).replace("load-mode: truncate", "load-mode: append"));

        CliRun failed = CliRun.of("run", spec.toString(), "--run-id", "r-fail-1");
        assertEquals(1, failed.exitCode(), failed.all());
        assertTrue(failed.err().contains("injected failure for id 2"), failed.err());
        long committed = f.scalar(f.target, "SELECT count(*) FROM items");
        assertTrue(committed > 0 && committed < 5000, "some partitions committed before the failure: " + committed);

        CliRun status = CliRun.of("status", spec.toString(), "r-fail-1");
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("run r-fail-1  stream items: failed"), status.out());
        assertTrue(status.out().contains("done"), status.out());

        f.sql(f.target, "UPDATE control SET fail = false");
        CliRun resumed = CliRun.of("run", spec.toString(), "--resume", "r-fail-1");
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertTrue(resumed.err().contains("resuming run r-fail-1"), resumed.err());
        assertTrue(resumed.err().contains("done before"), resumed.err());
        assertEquals(0, f.differences(), "no duplicates, no gaps");

        CliRun again = CliRun.of("run", spec.toString(), "--resume", "r-fail-1");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.err().contains("done in run r-fail-1 already; skipped"), again.err());
        assertEquals(0, f.differences());
    }

    @Test
    void aRunIdIsNotReusedWithoutResumeAndResumeWithoutIdFindsTheLatestUnfinished() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "reuse", 2000);
        injectFailure(f);
        Path spec = f.spec("items.yaml", "ctid", 2, 400);

        assertEquals(1, CliRun.of("run", spec.toString(), "--run-id", "r-reuse").exitCode());
        CliRun reused = CliRun.of("run", spec.toString(), "--run-id", "r-reuse");
        assertEquals(2, reused.exitCode(), reused.all());
        assertTrue(reused.err().contains("error[RESUME005] run id 'r-reuse' already exists"), reused.err());

        f.sql(f.target, "UPDATE control SET fail = false");
        CliRun latest = CliRun.of("run", spec.toString(), "--resume");
        assertEquals(0, latest.exitCode(), latest.all());
        assertTrue(latest.err().contains("resuming run r-reuse"), latest.err());
        assertEquals(0, f.differences());
    }

    @Test
    void aChangedDefinitionIsRefusedWithTheDifferenceUnlessForced() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "changed", 5000);
        injectFailure(f);
        Path spec = f.spec("items.yaml", "range", 1, 500);
        assertEquals(1, CliRun.of("run", spec.toString(), "--run-id", "r-changed").exitCode());
        f.sql(f.target, "UPDATE control SET fail = false");

        Files.writeString(spec, Files.readString(spec).replace("batch-size: 500", "batch-size: 700"));
        CliRun refused = CliRun.of("run", spec.toString(), "--resume", "r-changed");
        assertEquals(3, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("- batch-size: 500"), refused.err());
        assertTrue(refused.err().contains("+ batch-size: 700"), refused.err());

        CliRun forced = CliRun.of("run", spec.toString(), "--resume", "r-changed", "--force");
        assertEquals(0, forced.exitCode(), forced.all());
        assertEquals(0, f.differences(), "the recorded partitions were kept, so the result is still exact");
    }

    @Test
    void verifyChecksumPassesPerPartitionAndAMismatchExits5NamingThePartition() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "verify", 3000);
        Path spec = f.spec("items.yaml", "range", 2, 1000, "verify: checksum");
        CliRun ok = CliRun.of("run", spec.toString());
        assertEquals(0, ok.exitCode(), ok.all());
        assertTrue(ok.err().contains("verify checksum passed per partition"), ok.err());

        f.sql(f.target, "CREATE FUNCTION mangle() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "IF NEW.id = 2500 THEN NEW.name := 'changed'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER mangle BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION mangle()");
        CliRun mismatch = CliRun.of("run", spec.toString());
        assertEquals(5, mismatch.exitCode(), mismatch.all());
        assertTrue(mismatch.err().contains("verify checksum MISMATCH: partition"), mismatch.err());
        assertTrue(mismatch.err().contains("\"id\" >="), mismatch.err());
        assertEquals(1, mismatch.err().split("MISMATCH: partition", -1).length - 1,
                "only the partition holding id 2500: " + mismatch.err());
    }

    @Test
    void ledgerOffRunsWithoutResume() throws Exception {
        LedgerFixture f = new LedgerFixture(dir, "noledger", 1000);
        Path spec = f.spec("items.yaml", "ctid", 2, 300);
        Files.writeString(spec, Files.readString(spec).replace("name: ledger-test", "name: ledger-test\nledger: off"));
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "r-off");
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(0, f.differences());
        CliRun resume = CliRun.of("run", spec.toString(), "--resume", "r-off");
        assertEquals(2, resume.exitCode(), resume.all());
        assertTrue(resume.err().contains("RESUME001"), resume.err());
        assertEquals(0, f.scalar(f.target, "SELECT count(*) FROM pg_namespace WHERE nspname = 'sluice'"));
    }
}

package io.sluice.testkit;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.ReplacingTransaction;
import io.sluice.spi.write.Target;
import io.sluice.spi.write.TargetClaim;
import io.sluice.spi.write.TargetTable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every {@link Target} keeps, as JUnit 5 tests a connector inherits: implement the hooks of
 * {@link TargetContractSupport} (create the two-column table, a target over it, read its rows back).
 *
 * <p>It checks what the SPI promises, through the SPI only: {@code table()} describes the columns and a missing table
 * is a PREFLIGHT failure naming it; a writer's rows are invisible until {@code commit()} and gone after
 * {@code abort()} (from another thread too, leaving nothing locked); the writers of one worker and writers on several
 * threads each commit on their own; {@code truncate()} empties; a claim keeps
 * a second claimer out (PREFLIGHT, naming the holder, after telling its {@link LockWaits}) until closed; a replacing
 * transaction shows its emptying and partitions only at its commit, and closing it uncommitted, or after an aborted
 * writer, keeps the rows the table had.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public abstract class TargetContractTest extends TargetContractSupport {
    /** How long a test lets a target wait for a lock before it must give up; a lock left behind fails fast. */
    private static final Duration LOCK_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void describesTheTableAndItsColumns() throws Exception {
        String table = newTable();
        Target target = target(table);
        TargetTable described = target.table();
        assertFalse(target.describe().isBlank(), "describe() is blank");
        assertFalse(described.qualifiedName().isBlank(), "qualifiedName is blank");
        assertEquals(List.of("id", "label"), described.columns().stream().map(Column::name).toList(),
                "table() must list the table's columns in table order");
        assertFalse(load(table).writeStatement(described.columns(), format()).isBlank(), "writeStatement is blank");
    }

    @Test
    void aMissingTableIsAPreflightFailureNamingIt() throws Exception {
        String table = newName("contract_missing");
        ConnectorException missing = assertThrows(ConnectorException.class, () -> target(table).table());
        assertEquals(ErrorKind.PREFLIGHT, missing.kind(), missing.getMessage());
        assertTrue(missing.getMessage().toLowerCase(Locale.ROOT).contains(table), "the message must name the table: "
                + missing.getMessage());
    }

    @Test
    void rowsAreInvisibleUntilCommit() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        try (PartitionWriter writer = target.openWriter(columns, format())) {
            writeAndFinish(writer, rows(0, 100));
            assertRows(List.of(), table, "rows are visible after finish() and before commit()");
            writer.commit();
        }
        assertRows(rows(0, 100), table, "rows after commit()");
    }

    @Test
    void abortedRowsAreGone() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        commit(target, columns, rows(0, 10));
        try (PartitionWriter finished = target.openWriter(columns, format())) {
            writeAndFinish(finished, rows(100, 200));
            finished.abort();
            finished.abort(); // never throws, not even twice
        }
        try (PartitionWriter midCopy = target.openWriter(columns, format())) {
            write(midCopy, rows(200, 300));
            midCopy.abort();
        }
        try (PartitionWriter unused = target.openWriter(columns, format())) {
            unused.abort();
        }
        assertRows(rows(0, 10), table, "aborted writers must leave only the committed rows");
    }

    @Test
    void anAbortFromAnotherThreadLeavesNothingLocked() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        commit(target, columns, rows(0, 10));
        try (PartitionWriter writer = target.openWriter(columns, format())) {
            write(writer, rows(10, 20)); // the COPY is still open
            Thread aborter = Thread.ofPlatform().name("contract-aborter").start(writer::abort);
            aborter.join();
            assertRows(rows(0, 10), table, "rows of the aborted writer");
            // Still before close(): the abort alone must have released the table, or emptying it would wait.
            PlannedLoad other = load(table);
            other.waitForLocks(LockWaits.silent(LOCK_TIMEOUT));
            other.truncate();
        }
        assertRows(List.of(), table, "truncate() after the abort");
    }

    @Test
    void theWritersOfOneWorkerEachCommitOnTheirOwn() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        try (PartitionWriters writers = target.openWriters(columns, format())) {
            try (PartitionWriter first = writers.open()) {
                writeAndFinish(first, rows(0, 50));
                first.commit();
            }
            try (PartitionWriter failed = writers.open()) {
                writeAndFinish(failed, rows(50, 100));
                failed.abort();
            }
            try (PartitionWriter third = writers.open()) {
                writeAndFinish(third, rows(100, 150));
                assertRows(rows(0, 50), table, "the third partition before its commit");
                third.commit();
            }
        }
        assertRows(concat(rows(0, 50), rows(100, 150)), table,
                "the committed partitions, without the aborted one");
    }

    @Test
    void writersOnSeveralThreadsCommitOnTheirOwn() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        int writers = 4;
        CountDownLatch allFinished = new CountDownLatch(writers);
        List<Future<?>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(writers)) {
            for (int i = 0; i < writers; i++) {
                long from = i * 250L;
                results.add(pool.submit(() -> {
                    try (PartitionWriter writer = target.openWriter(columns, format())) {
                        try {
                            writeAndFinish(writer, rows(from, from + 250));
                        } finally {
                            allFinished.countDown(); // a failing writer must not hold the others up
                        }
                        allFinished.await(); // every transaction is open at once before any commits
                        if (from == 250) {
                            writer.abort();
                        } else {
                            writer.commit();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> task : results) {
                result(task);
            }
        }
        assertRows(concat(rows(0, 250), rows(500, 1000)), table, "three committed, one aborted");
    }

    @Test
    void truncateEmptiesTheTable() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        commit(target, columns, rows(0, 20));
        target.truncate();
        assertRows(List.of(), table, "truncate() must empty the table");
        commit(target, columns, rows(20, 30));
        assertRows(rows(20, 30), table, "rows written after truncate()");
    }

    @Test
    void aClaimKeepsASecondClaimerOutUntilClosed() throws Exception {
        String table = newTable();
        PlannedLoad first = load(table);
        first.waitForLocks(LockWaits.silent(LOCK_TIMEOUT));
        PlannedLoad second = load(table);
        List<String> waits = Collections.synchronizedList(new ArrayList<>());
        second.waitForLocks(LockWaits.of(LOCK_TIMEOUT, (what, waiting) -> waits.add((waiting ? "+" : "-") + what)));
        String holder = "contract-a";
        TargetClaim held = first.claim(holder);
        try {
            if (held == TargetClaim.NONE) {
                // A target that cannot claim holds nothing, so nothing keeps the second claimer out.
                second.claim("contract-b").close();
                assertEquals(List.of(), waits, "nothing held, so nothing to wait for");
            } else {
                ConnectorException refused = assertThrows(ConnectorException.class, () -> second.claim("contract-b"),
                        "a second run claimed a table another run holds");
                assertEquals(ErrorKind.PREFLIGHT, refused.kind(), refused.getMessage());
                assertTrue(refused.getMessage().contains(holder), "must name the holding run: "
                        + refused.getMessage());
                assertTrue(refused.getMessage().contains(Long.toString(ProcessHandle.current().pid())),
                        "must name the holding process: " + refused.getMessage());
                assertEquals(2, waits.size(), "the wait must be told to the LockWaits, begun and ended: " + waits);
                assertTrue(waits.get(0).startsWith("+") && waits.get(1).equals("-" + waits.get(0).substring(1)),
                        "waiting(what) then waited(what): " + waits);
            }
        } finally {
            held.close();
        }
        try (TargetClaim next = second.claim("contract-b")) {
            assertNotNull(next, "claim() returned null");
        }
    }

    @Test
    void aReplacingTransactionShowsEverythingAtItsCommitOrNothing() throws Exception {
        String table = newTable();
        PlannedLoad target = load(table);
        List<Column> columns = target.plan().table().columns();
        commit(target, columns, rows(0, 10));
        if (!capabilities().replacesInOneTransaction()) {
            assertTrue(target.replacingLoads().isEmpty(), "the factory does not declare replacesInOneTransaction, so "
                    + "the target must not offer it");
            return;
        }
        assertFalse(target.replacingWriteStatement(columns, format()).isBlank(), "replacingWriteStatement is blank");

        try (ReplacingTransaction uncommitted = replacing(target, columns, Optional.empty())) {
            assertTrue(uncommitted.truncated(), "without a ledger key the transaction always empties the table");
            commitPartition(uncommitted, rows(100, 150));
        }
        assertRows(rows(0, 10), table, "closed uncommitted: the table keeps the rows it had");

        try (ReplacingTransaction replacing = replacing(target, columns, Optional.empty())) {
            assertTrue(replacing.truncated(), "truncated()");
            commitPartition(replacing, rows(100, 150));
            commitPartition(replacing, rows(150, 200));
            replacing.commit();
        }
        assertRows(rows(100, 200), table, "committed: emptied, then both partitions");

        try (ReplacingTransaction doomed = replacing(target, columns, Optional.empty())) {
            commitPartition(doomed, rows(300, 310));
            try (PartitionWriter failing = doomed.open()) {
                write(failing, rows(310, 320));
                failing.abort();
            }
            assertThrows(ConnectorException.class, doomed::commit, "an aborted writer dooms the whole transaction");
        }
        assertRows(rows(100, 200), table, "after a doomed transaction: the rows the table had");
        commit(target, columns, rows(200, 210));
        assertRows(rows(100, 210), table, "the table is writable again");
    }


    private void commitPartition(PartitionWriters writers, List<ContractRow> rows) throws ConnectorException {
        try (PartitionWriter writer = writers.open()) {
            writeAndFinish(writer, rows);
            writer.commit();
        }
    }

}

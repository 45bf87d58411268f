// Over 450 lines: one contract suite a ledger store inherits whole; a test per rule.
package io.sluice.testkit;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.PartitionWriters;
import io.sluice.spi.write.PlannedLoad;
import io.sluice.spi.write.ReplacingTransaction;
import io.sluice.spi.write.Target;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of a target's {@link LedgerStore}, as JUnit 5 tests a connector inherits: implement
 * {@link TargetContractSupport#fixture()} for a target whose {@link Target#ledgerStore()} is present. The runner's
 * ledger rules (a plan kept once, a truncation once per run, a partition done at most once) rest on exactly what this
 * checks, through the SPI only:
 * {@code ensureReady} is idempotent and safe to race; stream, partition and attempt rows read back as written (times
 * to the microsecond); inserting a stream twice writes once; partitions read in plan order; a transaction that throws
 * writes nothing; a locked row makes a second transaction wait and then read it as committed (no lost update); the
 * ledger work a writer's commit, a truncation or a replacing transaction runs commits with the target's rows, or
 * neither does.
 *
 * <p>One class on purpose (over 400 lines): a store implementer inherits one suite. Every test uses a table and
 * run ids of its own. {@link #ensureReadyIsIdempotentAndSafeToRace()} runs first, so
 * when the subclass gives the class a fresh database it is the test that creates the ledger.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class LedgerStoreContractTest extends TargetContractSupport {
    private static final String STREAM = "items";

    private String table;
    /** An append load of the test's table, planned: the suites write through it. */
    private PlannedLoad target;
    private List<Column> columns;
    private LedgerStore store;
    private String runId;
    private StreamKey key;
    private String spec;

    @BeforeEach
    void newTableAndRun() throws Exception {
        table = newTable();
        target = load(table);
        columns = target.plan().table().columns();
        store = storeOf(target(table));
        runId = newName("run").replace('_', '-');
        key = new StreamKey(runId, STREAM);
        spec = "spec-of-" + runId;
    }

    private static LedgerStore storeOf(Target target) {
        return target.ledgerStore().orElseThrow(() -> new AssertionError(target.describe() + " keeps no ledger: "
                + "LedgerStoreContractTest is for targets whose ledgerStore() is present"));
    }

    @Test
    @Order(1)
    void ensureReadyIsIdempotentAndSafeToRace() throws Exception {
        int racers = 4;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(racers)) {
            for (int i = 0; i < racers; i++) {
                LedgerStore racer = storeOf(target(table)); // as runs starting at once would each have
                results.add(pool.submit(() -> {
                    go.await();
                    racer.ensureReady();
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> task : results) {
                result(task);
            }
        }
        store.ensureReady();
        store.ensureReady();
        assertTrue(insert(starting(runId)), "a ready ledger takes a stream");
        assertEquals(1, store.streamsOfRun(runId).size());
    }

    @Test
    void aStreamRowReadsBackAsWrittenAndIsInsertedOnce() throws Exception {
        store.ensureReady();
        assertEquals(List.of(), store.streamsOfRun(runId), "a run never started");
        LedgerStream written = starting(runId);
        assertTrue(insert(written));
        assertEquals(List.of(written), store.streamsOfRun(runId));
        assertEquals(List.of(written), store.streamsOfSpec(spec, 10));
        assertFalse(insert(new LedgerStream(runId, "another-spec", "x", STREAM, "other", LedgerStream.State.DONE,
                "none", now(), Optional.empty(), Optional.empty(), 9, 9, Optional.empty(), 0, 0)),
                "a second insert of the run's stream writes nothing");
        assertEquals(List.of(written), store.streamsOfRun(runId), "the first row stays as it was");

        LedgerStream updated = new LedgerStream(runId, spec, "checksum-2", STREAM, "definition 2",
                LedgerStream.State.INTERRUPTED, "snapshot 2", written.startedAt(), Optional.of(now()),
                Optional.of(now().minusSeconds(5)), 42, 3, Optional.of("stopped"), 0, 0);
        store.inTransaction(tx -> {
            assertEquals(Optional.of(written), tx.lockStream(key), "the locked row");
            tx.updateStream(updated);
            return null;
        });
        assertEquals(List.of(updated), store.streamsOfRun(runId), "every field of the update");
        assertEquals(Optional.empty(), store.inTransaction(tx -> tx.lockStream(new StreamKey(runId, "other"))));

        assertTrue(insert(LedgerStream.starting(runId, spec, "c", "another-stream", "d", "none")));
        assertEquals(List.of("another-stream", STREAM),
                store.streamsOfRun(runId).stream().map(LedgerStream::stream).sorted().toList(), "both streams");
        assertEquals(2, store.streamsOfSpec(spec, 1).size(), "one run of the spec, with both its streams");
        assertEquals(List.of(), store.streamsOfSpec(spec + "-never-run", 10));
    }

    @Test
    void listsTheRunsOfASpecNewestFirst() throws Exception {
        store.ensureReady();
        Instant first = now();
        for (int run = 1; run <= 3; run++) {
            insert(new LedgerStream(runId + "-" + run, spec, "c", STREAM, "d", LedgerStream.State.RUNNING, "none",
                    first.plusSeconds(run), Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0));
        }
        assertEquals(List.of(runId + "-3", runId + "-2"),
                store.streamsOfSpec(spec, 2).stream().map(LedgerStream::runId).toList(), "the two newest runs");
    }

    /** A store that answers unfinishedRuns names every run of the spec with a stream not done, and only those. */
    @Test
    void unfinishedRunsAreTheRunsOfTheSpecWithAStreamNotDone() throws Exception {
        store.ensureReady();
        Optional<java.util.Set<String>> none = store.unfinishedRuns(spec);
        if (none.isEmpty()) {
            return; // the store cannot tell; the runner then asks per stream
        }
        assertEquals(java.util.Set.of(), none.get(), "a spec never run");
        Instant first = now();
        LedgerStream.State[][] runs = {
                {LedgerStream.State.DONE, LedgerStream.State.DONE},
                {LedgerStream.State.DONE, LedgerStream.State.FAILED},
                {LedgerStream.State.RUNNING, LedgerStream.State.DONE},
                {LedgerStream.State.INTERRUPTED, LedgerStream.State.INTERRUPTED}};
        for (int run = 0; run < runs.length; run++) {
            for (int stream = 0; stream < 2; stream++) {
                insert(new LedgerStream(runId + "-" + run, spec, "c", STREAM + stream, "d", runs[run][stream],
                        "none", first.plusSeconds(run), Optional.empty(), Optional.empty(), 0, 1, Optional.empty(),
                        0, 0));
            }
        }
        insert(new LedgerStream(runId + "-other", spec + "-other", "c", STREAM, "d", LedgerStream.State.FAILED,
                "none", first, Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0));
        assertEquals(Optional.of(java.util.Set.of(runId + "-1", runId + "-2", runId + "-3")),
                store.unfinishedRuns(spec), "each run with a stream failed, running or interrupted; not another spec's");
    }

    @Test
    void partitionsReadBackInPlanOrderWithTheirCounts() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        // Ids that sort otherwise than the plan does, and more than one batch of them.
        int count = 2_500;
        List<LedgerPartition> plan = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plan.add(planned(i, "p" + (count - i)));
        }
        store.inTransaction(tx -> {
            tx.writePartitions(key, plan);
            return null;
        });
        assertEquals(plan, store.partitions(key), "the plan, in plan order");

        LedgerPartition done = new LedgerPartition(1, "p2499", "predicate of p2499", "checkpoint of p2499",
                LedgerPartition.State.DONE, 3, 300, 2, Optional.of(now().minusSeconds(2)), Optional.of(now()));
        LedgerPartition unplanned = new LedgerPartition(-1, "p-extra", "", "", LedgerPartition.State.DONE, 1, 10, 1,
                Optional.of(now()), Optional.of(now()));
        List<LedgerPartition> inTransaction = store.inTransaction(tx -> {
            assertEquals(Optional.of(plan.get(1)), tx.lockPartition(key, "p2499"));
            assertEquals(Optional.empty(), tx.lockPartition(key, "p-none"));
            tx.writePartitions(key, List.of(done, unplanned));
            return tx.partitions(key);
        });
        List<LedgerPartition> expected = new ArrayList<>(plan);
        expected.set(1, done);
        expected.add(unplanned);
        assertEquals(expected, inTransaction, "read inside the transaction: overwritten by id, unplanned last");
        assertEquals(expected, store.partitions(key), "read after it");
        LedgerStream stream = store.streamsOfRun(runId).get(0);
        assertEquals(count + 1, stream.partitionsPlanned(), "partition rows of the stream");
        assertEquals(2, stream.partitionsDone(), "done partition rows of the stream");
        assertEquals(List.of(), store.partitions(new StreamKey(runId, "another-stream")));
    }

    @Test
    void attemptsReadBackOnTheirStream() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        AttemptRecord retried = new AttemptRecord(runId, STREAM, "p1", 1, now().minusSeconds(3),
                now().minusSeconds(2), AttemptRecord.Outcome.RETRIED, Optional.of("E1"),
                Optional.of("connection reset"));
        AttemptRecord failed = new AttemptRecord(runId, STREAM, "p1", 2, now().minusSeconds(1), now(),
                AttemptRecord.Outcome.FAILED, Optional.empty(), Optional.empty());
        store.inTransaction(tx -> {
            tx.insertAttempt(retried);
            tx.insertAttempt(failed);
            return null;
        });
        assertEquals(List.of(retried, failed), store.attempts(key));
        assertEquals(List.of(), store.attempts(new StreamKey(runId, "another-stream")));
    }

    @Test
    void marksReadBackByNameAndAreOverwritten() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        assertEquals(java.util.Map.of(), store.marks(key), "no marks yet");
        store.inTransaction(tx -> {
            tx.writeMark(key, "shadow", "items_shadow");
            tx.writeMark(key, "created", "false");
            return null;
        });
        store.inTransaction(tx -> {
            tx.writeMark(key, "created", "true");
            assertEquals(java.util.Map.of("shadow", "items_shadow", "created", "true"), tx.marks(key),
                    "read inside the transaction");
            return null;
        });
        assertEquals(java.util.Map.of("shadow", "items_shadow", "created", "true"), store.marks(key));
        assertEquals(java.util.Map.of(), store.marks(new StreamKey(runId, "another-stream")));
    }

    @Test
    void claimsTakePartitionsInPlanOrderSkippingLockedLeasedAndDoneOnes() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        LedgerWrites.plan(store, key, List.of(planned(0, "p-c"), planned(1, "p-a"), planned(2, "p-b"),
                planned(3, "p-d")));
        LedgerWrites.plan(store, key, List.of(new LedgerPartition(3, "p-d", "predicate of p-d", "checkpoint of p-d",
                LedgerPartition.State.DONE, 1, 1, 1, Optional.of(now()), Optional.of(now()))));
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newSingleThreadExecutor()) {
            Future<LedgerPartition> holder = pool.submit(() -> store.inTransaction(tx -> {
                LedgerPartition first = tx.lockNextClaimable(key, tx.now()).orElseThrow();
                locked.countDown();
                awaitQuietly(release);
                LedgerPartition held = first.claimedBy(new PartitionClaim("1@a", now().plusSeconds(60)));
                tx.writePartitions(key, List.of(held));
                return held;
            }));
            assertTrue(locked.await(1, TimeUnit.MINUTES), "the first claimer holds its row");
            LedgerPartition second = store.inTransaction(tx -> {
                LedgerPartition next = tx.lockNextClaimable(key, tx.now()).orElseThrow();
                LedgerPartition held = next.claimedBy(new PartitionClaim("2@b", now().plusSeconds(60)));
                tx.writePartitions(key, List.of(held));
                return held;
            });
            assertEquals("p-a", second.partitionId(), "a locked row is skipped, not waited for");
            release.countDown();
            assertEquals("p-c", result(holder).partitionId(), "the first in plan order went to the first claimer");
        }
        assertEquals(Optional.of("p-b"), store.inTransaction(tx -> tx.lockNextClaimable(key, tx.now()))
                .map(LedgerPartition::partitionId), "the next one not leased");
        LedgerWrites.plan(store, key, List.of(store.partitions(key).get(2)
                .claimedBy(new PartitionClaim("2@b", now().plusSeconds(60)))));
        assertEquals(Optional.empty(), store.inTransaction(tx -> tx.lockNextClaimable(key, tx.now())),
                "every planned partition is leased, and the done one is never claimable");
        assertEquals(Optional.of("p-c"), store.inTransaction(tx -> tx.lockNextClaimable(key, tx.now()
                .plusSeconds(120))).map(LedgerPartition::partitionId), "leases that ended are claimable again");
        assertEquals(new PartitionClaim("1@a", store.partitions(key).get(0).claim().orElseThrow().leaseUntil()),
                store.partitions(key).get(0).claim().orElseThrow(), "the claim reads back");
        Instant before = now().minusSeconds(60);
        Instant storeNow = store.inTransaction(LedgerTransaction::now);
        assertTrue(storeNow.isAfter(before), "the store's clock is about now: " + storeNow);
    }

    @Test
    void aTransactionThatThrowsWritesNothing() throws Exception {
        store.ensureReady();
        ConnectorException refused = new ConnectorException(ErrorKind.FAILED, "TEST", "refused", null);
        ConnectorException thrown = assertThrows(ConnectorException.class, () -> store.inTransaction(tx -> {
            tx.insertStream(starting(runId));
            tx.writePartitions(key, List.of(planned(0, "p0")));
            tx.writeMark(key, "m", "v");
            throw refused;
        }));
        assertEquals(refused, thrown, "the work's own failure comes back");
        assertEquals(List.of(), store.streamsOfRun(runId), "no stream row");
        assertEquals(java.util.Map.of(), store.marks(key), "no mark");
        assertEquals(List.of(), store.partitions(key), "no partition row");
    }

    @Test
    void aLockedRowMakesTheNextTransactionWaitAndReadItCommitted() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        int perThread = 25;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (int t = 0; t < 2; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        store.inTransaction(tx -> { // read, decide, write: lost updates without the lock
                            LedgerStream s = tx.lockStream(key).orElseThrow();
                            tx.updateStream(new LedgerStream(s.runId(), s.specName(), s.specChecksum(), s.stream(),
                                    s.definition(), s.state(), s.snapshotMode(), s.startedAt(), s.finishedAt(),
                                    s.truncatedAt(), s.rows(), s.starts() + 1, s.error(), 0, 0));
                            return null;
                        });
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> task : results) {
                result(task);
            }
        }
        assertEquals(1 + 2 * perThread, store.streamsOfRun(runId).get(0).starts(), "every increment counted");
    }

    @Test
    void aWritersCommitCommitsTheLedgerWorkWithItsRowsOrNeither() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        LedgerWrites.plan(store, key, List.of(planned(0, "p0"), planned(1, "p1")));
        try (PartitionWriters writers = target.openWriters(columns, format())) {
            try (PartitionWriter writer = writers.open()) {
                writeAndFinish(writer, rows(0, 3));
                writer.ledgeredCommit().orElseThrow().commit(LedgerWrites.markDone(key, "p0", 1));
            }
            assertRows(rows(0, 3), table, "rows of the committed partition");
            assertEquals(List.of(LedgerPartition.State.DONE, LedgerPartition.State.PLANNED), states());

            // A refusing work (here: the partition is done already) rolls the rows back; the worker goes on.
            try (PartitionWriter again = writers.open()) {
                writeAndFinish(again, rows(10, 13));
                assertThrows(ConnectorException.class, () -> again.ledgeredCommit().orElseThrow()
                        .commit(LedgerWrites.markDone(key, "p0", 1)));
                again.abort(); // as the runner does after a failed commit
            }
            assertRows(rows(0, 3), table, "the refused commit's rows are rolled back");
            try (PartitionWriter next = writers.open()) {
                writeAndFinish(next, rows(3, 5));
                next.ledgeredCommit().orElseThrow().commit(LedgerWrites.markDone(key, "p1", 1));
            }
        }
        assertRows(rows(0, 5), table, "p0 once, then p1");
        assertEquals(List.of(LedgerPartition.State.DONE, LedgerPartition.State.DONE), states());
    }

    @Test
    void ofTwoRacingCommitsLockingOnePartitionTheSecondSeesTheFirst() throws Exception {
        store.ensureReady();
        insert(starting(runId));
        LedgerWrites.plan(store, key, List.of(planned(0, "p0")));
        CountDownLatch finished = new CountDownLatch(2);
        List<Future<Boolean>> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (int i = 0; i < 2; i++) {
                List<ContractRow> rows = rows(i * 10L, i * 10L + 5);
                outcomes.add(pool.submit(() -> {
                    try (PartitionWriter writer = target.openWriter(columns, format())) {
                        try {
                            writeAndFinish(writer, rows);
                        } finally {
                            finished.countDown();
                        }
                        finished.await(); // both transactions hold their rows before either commits
                        try {
                            writer.ledgeredCommit().orElseThrow().commit(LedgerWrites.markDone(key, "p0", 1));
                            return true;
                        } catch (ConnectorException e) {
                            writer.abort();
                            return false;
                        }
                    }
                }));
            }
            List<Boolean> results = new ArrayList<>();
            for (Future<Boolean> outcome : outcomes) {
                results.add(result(outcome));
            }
            assertEquals(1, results.stream().filter(won -> won).count(), "exactly one commit wins: " + results);
        }
        List<ContractRow> rows = sortedRows(table);
        assertTrue(rows.equals(rows(0, 5)) || rows.equals(rows(10, 15)), "one writer's rows, once: " + summary(rows));
    }

    @Test
    void aTruncationRunsTheLedgerWorkFirstAndCommitsWithIt() throws Exception {
        store.ensureReady();
        commit(target, columns, rows(0, 10));
        insert(starting(runId));
        assertFalse(target.ledgeredTruncate().orElseThrow().truncate(tx -> false), "the work said no");
        assertRows(rows(0, 10), table, "a work answering false empties nothing");

        ConnectorException refused = new ConnectorException(ErrorKind.FAILED, "TEST", "refused", null);
        assertThrows(ConnectorException.class, () -> target.ledgeredTruncate().orElseThrow().truncate(tx -> {
            LedgerWrites.recordTruncation(key).apply(tx);
            throw refused;
        }));
        assertRows(rows(0, 10), table, "a failing work empties nothing");
        assertEquals(Optional.empty(), store.streamsOfRun(runId).get(0).truncatedAt(), "and records nothing");

        assertTrue(target.ledgeredTruncate().orElseThrow().truncate(LedgerWrites.recordTruncation(key)));
        assertRows(List.of(), table, "emptied");
        assertTrue(store.streamsOfRun(runId).get(0).truncatedAt().isPresent(), "with the work's record");
    }

    @Test
    void aReplacingTransactionCommitsTheLedgerWorkWithItsRows() throws Exception {
        store.ensureReady();
        commit(target, columns, rows(0, 10));
        insert(starting(runId));
        LedgerWrites.plan(store, key, List.of(planned(0, "p0"), planned(1, "p1")));
        Optional<LedgerWork<Boolean>> first = Optional.of(LedgerWrites.recordTruncation(key));
        if (!capabilities().replacesInOneTransaction()) {
            assertTrue(target.replacingLoads().isEmpty(), "the factory does not declare replacesInOneTransaction, so "
                    + "the target must not offer it");
            return;
        }

        try (ReplacingTransaction rolledBack = replacing(target, columns, first)) {
            assertTrue(rolledBack.truncated(), "the work answered true, so the table is emptied");
            commitPartition(rolledBack, "p0", rows(100, 105));
        }
        assertRows(rows(0, 10), table, "closed uncommitted: the table keeps its rows");
        assertEquals(List.of(LedgerPartition.State.PLANNED, LedgerPartition.State.PLANNED), states(),
                "closed uncommitted: no partition is done");
        assertEquals(Optional.empty(), store.streamsOfRun(runId).get(0).truncatedAt(),
                "closed uncommitted: the work's record is gone too");

        try (ReplacingTransaction replacing = replacing(target, columns, first)) {
            commitPartition(replacing, "p0", rows(100, 105));
            commitPartition(replacing, "p1", rows(105, 110));
            replacing.commit();
        }
        assertRows(rows(100, 110), table, "committed: emptied, then both partitions");
        assertEquals(List.of(LedgerPartition.State.DONE, LedgerPartition.State.DONE), states());
        assertTrue(store.streamsOfRun(runId).get(0).truncatedAt().isPresent(), "truncatedAt");

        try (ReplacingTransaction resumed = replacing(target, columns,
                Optional.of(tx -> false))) {
            assertFalse(resumed.truncated(), "the work answered false: the table is not emptied");
            resumed.commit();
        }
        assertRows(rows(100, 110), table, "a transaction whose work said no keeps the rows");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean insert(LedgerStream stream) throws ConnectorException {
        return LedgerWrites.insertStream(store, stream);
    }

    private static Instant now() {
        return LedgerWrites.now();
    }

    private LedgerStream starting(String run) {
        return new LedgerStream(run, spec, "checksum-1", STREAM, "definition 1", LedgerStream.State.RUNNING,
                "snapshot 1", now(), Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0);
    }

    private static LedgerPartition planned(int index, String id) {
        return LedgerPartition.planned(index, id, "predicate of " + id, "checkpoint of " + id);
    }

    private List<LedgerPartition.State> states() throws ConnectorException {
        return store.partitions(key).stream().map(LedgerPartition::state).toList();
    }

    private void commitPartition(PartitionWriters writers, String partitionId, List<ContractRow> rows)
            throws ConnectorException {
        try (PartitionWriter writer = writers.open()) {
            writeAndFinish(writer, rows);
            writer.ledgeredCommit().orElseThrow().commit(LedgerWrites.markDone(key, partitionId, rows.size()));
        }
    }
}

package io.sluice.testkit;

import io.sluice.spi.Column;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.PartitionWriter;
import io.sluice.spi.PartitionWriters;
import io.sluice.spi.ReplacingTransaction;
import io.sluice.spi.Target;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import io.sluice.spi.ledger.StreamKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
 * The contract of a target's {@link RunLedger} and of the exactly-once commit through
 * {@link PartitionWriter#commit(PartitionDone)}, as JUnit 5 tests a connector inherits: implement the hooks of
 * {@link TargetContractSupport} for a target whose {@link Target#ledger()} is present.
 *
 * <p>It checks, through the SPI only: {@code ensureReady} is idempotent and safe to race; a started stream is found,
 * listed by run and by spec (newest run first), and counts its starts; a run id of another spec is refused; a plan is
 * stored once and read back in plan order; {@code truncateOnce} empties once per run and stream; attempts show on
 * their partition; {@code finishStream} records each end state; a partition commits with its ledger row exactly once
 * (a second commit, or the loser of two racing ones, is refused and its rows rolled back); a replacing transaction
 * records its truncation and partitions with its rows, or not at all.
 *
 * <p>Every test uses a table and run ids of its own. {@link #ensureReadyIsIdempotentAndSafeToRace()} runs first, so
 * when the subclass gives the class a fresh database it is the test that creates the ledger.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class RunLedgerContractTest extends TargetContractSupport {
    private static final String STREAM = "items";

    private String table;
    private Target target;
    private List<Column> columns;
    private RunLedger ledger;
    private String runId;
    private String spec;

    @BeforeEach
    void newTableAndRun() throws Exception {
        table = newTable();
        target = target(table);
        columns = target.table().columns();
        ledger = ledgerOf(target);
        runId = newName("run").replace('_', '-');
        spec = "spec-of-" + runId;
    }

    private static RunLedger ledgerOf(Target target) {
        return target.ledger().orElseThrow(() -> new AssertionError(target.describe() + " keeps no ledger: "
                + "RunLedgerContractTest is for targets whose ledger() is present"));
    }

    @Test
    @Order(1)
    void ensureReadyIsIdempotentAndSafeToRace() throws Exception {
        int racers = 4;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(racers)) {
            for (int i = 0; i < racers; i++) {
                RunLedger racer = ledgerOf(target(table)); // as runs starting at once would each have
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
        ledger.ensureReady();
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        assertTrue(ledger.findStream(runId, STREAM).isPresent(), "a ready ledger records a stream");
    }

    @Test
    void aStartedStreamIsFoundAndListed() throws Exception {
        ledger.ensureReady();
        assertEquals(Optional.empty(), ledger.findStream(runId, STREAM), "a stream never started");
        ledger.startStream(starting(runId));
        LedgerStream found = ledger.findStream(runId, STREAM).orElseThrow(() -> new AssertionError("not found"));
        assertEquals(runId, found.runId());
        assertEquals(spec, found.specName());
        assertEquals("checksum-1", found.specChecksum());
        assertEquals(STREAM, found.stream());
        assertEquals("definition 1", found.definition());
        assertEquals("snapshot 1", found.snapshotMode());
        assertEquals(LedgerStream.State.RUNNING, found.state());
        assertEquals(1, found.starts());
        assertEquals(Optional.empty(), found.finishedAt());
        assertEquals(Optional.empty(), found.truncatedAt());
        assertEquals(Optional.empty(), found.error());
        assertEquals(0, found.partitionsPlanned());
        assertEquals(0, found.partitionsDone());
        assertEquals(Optional.empty(), ledger.findStream(runId, "another-stream"));
        assertEquals(List.of(found), ledger.streamsOfRun(runId));
        assertEquals(List.of(found), ledger.streamsOfSpec(spec, 10));
        ledger.startStream(LedgerStream.starting(runId, spec, "checksum-1", "another-stream", "d", "none"));
        assertEquals(List.of("another-stream", STREAM),
                ledger.streamsOfRun(runId).stream().map(LedgerStream::stream).sorted().toList(), "both streams");
        assertEquals(2, ledger.streamsOfSpec(spec, 1).size(), "one run of the spec, with both its streams");
        assertEquals(List.of(), ledger.streamsOfSpec(spec + "-never-run", 10));
    }

    @Test
    void listsTheRunsOfASpecNewestFirst() throws Exception {
        ledger.ensureReady();
        // Started one after another, and named so that their ids sort the same way should two starts tie.
        for (int run = 1; run <= 3; run++) {
            ledger.startStream(LedgerStream.starting(runId + "-" + run, spec, "c", STREAM, "d", "none"));
        }
        assertEquals(List.of(runId + "-3", runId + "-2"),
                ledger.streamsOfSpec(spec, 2).stream().map(LedgerStream::runId).toList(), "the two newest runs");
    }

    @Test
    void aStreamStartedAgainCountsItsStarts() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        ledger.finishStream(runId, STREAM, LedgerStream.State.INTERRUPTED, 3, Optional.of("interrupted"));
        ledger.startStream(LedgerStream.starting(runId, spec, "checksum-1", STREAM, "definition 1", "snapshot 2"));
        LedgerStream resumed = ledger.findStream(runId, STREAM).orElseThrow();
        assertEquals(2, resumed.starts(), "starts after a resume");
        assertEquals(LedgerStream.State.RUNNING, resumed.state(), "a resumed stream runs again");
        assertEquals(Optional.empty(), resumed.finishedAt(), "a resumed stream has not finished");
        assertEquals(Optional.empty(), resumed.error(), "a resumed stream has no error yet");
        ledger.startStream(starting(runId));
        assertEquals(3, ledger.findStream(runId, STREAM).orElseThrow().starts(), "starts after a second resume");
    }

    @Test
    void aRunIdOfAnotherSpecIsRefused() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        ConnectorException taken = assertThrows(ConnectorException.class, () -> ledger.startStream(
                LedgerStream.starting(runId, "another-spec", "c", STREAM, "d", "none")),
                "a run id belongs to one spec");
        assertFalse(taken.kind().isRetryable(), "retrying cannot make the run id free: " + taken.kind());
        LedgerStream kept = ledger.findStream(runId, STREAM).orElseThrow();
        assertEquals(spec, kept.specName(), "the run stays with its spec");
        assertEquals(1, kept.starts(), "the refused start is not counted");
    }

    @Test
    void storesAPlanOnceAndReadsItInPlanOrder() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        // Ids that sort otherwise than the plan does.
        List<LedgerPartition> plan = List.of(planned(0, "p-c"), planned(1, "p-a"), planned(2, "p-b"));
        ledger.recordPlan(runId, STREAM, plan);
        ledger.recordPlan(runId, STREAM, List.of(planned(0, "p-other"), planned(1, "p-c")));
        assertEquals(plan, ledger.partitions(runId, STREAM), "the first plan, once, in plan order");
        LedgerStream stream = ledger.findStream(runId, STREAM).orElseThrow();
        assertEquals(3, stream.partitionsPlanned());
        assertEquals(0, stream.partitionsDone());
        assertEquals(List.of(), ledger.partitions(runId, "another-stream"));
    }

    @Test
    void keepsALargePlanInPlanOrder() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        int count = 2_500;
        List<LedgerPartition> plan = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plan.add(planned(i, "p" + (count - i))); // p2500, p2499, ..., p1: not the order of the ids as text
        }
        ledger.recordPlan(runId, STREAM, plan);
        assertEquals(plan, ledger.partitions(runId, STREAM));
    }

    @Test
    void truncatesOncePerRunAndStream() throws Exception {
        ledger.ensureReady();
        commit(target, columns, rows(0, 10));
        ledger.startStream(starting(runId));
        assertTrue(ledger.truncateOnce(runId, STREAM), "the first truncateOnce of a run's stream empties");
        assertRows(List.of(), table, "rows after the first truncateOnce");
        assertTrue(ledger.findStream(runId, STREAM).orElseThrow().truncatedAt().isPresent(), "truncatedAt");
        commit(target, columns, rows(10, 20)); // copied before a crash
        assertFalse(ledger.truncateOnce(runId, STREAM), "a resumed run must not truncate again");
        assertRows(rows(10, 20), table, "rows kept by the second truncateOnce");
        String next = runId + "-next";
        ledger.startStream(LedgerStream.starting(next, spec, "c", STREAM, "d", "none"));
        assertTrue(ledger.truncateOnce(next, STREAM), "another run truncates again");
        assertRows(List.of(), table, "rows after another run's truncateOnce");
    }

    @Test
    void attemptsShowOnTheirPartition() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        ledger.recordPlan(runId, STREAM, List.of(planned(0, "p0"), planned(1, "p1")));
        Instant started = Instant.now();
        ledger.recordAttempt(new AttemptRecord(runId, STREAM, "p1", 1, started, started.plusSeconds(1),
                AttemptRecord.Outcome.RETRIED, Optional.of("E1"), Optional.of("connection reset")));
        ledger.recordAttempt(new AttemptRecord(runId, STREAM, "p1", 2, started.plusSeconds(2), started.plusSeconds(3),
                AttemptRecord.Outcome.FAILED, Optional.empty(), Optional.empty()));
        List<LedgerPartition> partitions = ledger.partitions(runId, STREAM);
        assertEquals(0, partitions.get(0).attempts(), "p0 was not tried");
        assertEquals(2, partitions.get(1).attempts(), "p1 was tried twice");
        assertEquals(LedgerPartition.State.PLANNED, partitions.get(1).state(), "failed attempts leave it planned");
    }

    @ParameterizedTest
    @EnumSource(value = LedgerStream.State.class, names = {"DONE", "FAILED", "INTERRUPTED"})
    void finishesAStream(LedgerStream.State state) throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        Optional<String> error = state == LedgerStream.State.DONE ? Optional.empty() : Optional.of("ended " + state);
        ledger.finishStream(runId, STREAM, state, 42, error);
        LedgerStream finished = ledger.findStream(runId, STREAM).orElseThrow();
        assertEquals(state, finished.state());
        assertEquals(42, finished.rows());
        assertEquals(error, finished.error());
        assertTrue(finished.finishedAt().isPresent(), "finishedAt");
    }

    @Test
    void aPartitionCommitsWithItsLedgerRowExactlyOnce() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        ledger.recordPlan(runId, STREAM, List.of(planned(0, "p0"), planned(1, "p1")));

        try (PartitionWriter aborted = target.openWriter(columns, format())) {
            writeAndFinish(aborted, rows(100, 103));
            aborted.abort();
        }
        assertRows(List.of(), table, "an aborted writer leaves no rows");
        assertEquals(LedgerPartition.State.PLANNED, ledger.partitions(runId, STREAM).get(0).state(),
                "an aborted writer leaves no done row");

        PartitionDone done = new PartitionDone(runId, STREAM, "p0", 3, 300, 2, Instant.now());
        try (PartitionWriter writer = target.openWriter(columns, format())) {
            writeAndFinish(writer, rows(0, 3));
            writer.commit(done);
        }
        assertRows(rows(0, 3), table, "rows of the committed partition");
        LedgerPartition p0 = ledger.partitions(runId, STREAM).get(0);
        assertEquals(new LedgerPartition(0, "p0", "predicate of p0", "checkpoint of p0", LedgerPartition.State.DONE,
                3, 300, 2), p0, "the done row holds the commit's counts");
        assertEquals(1, ledger.findStream(runId, STREAM).orElseThrow().partitionsDone());

        // Again on a worker's writers, as the runner writes: refused, and the worker goes on with the next partition.
        try (PartitionWriters writers = target.openWriters(columns, format())) {
            try (PartitionWriter again = writers.open()) {
                writeAndFinish(again, rows(10, 13));
                ConnectorException twice = assertThrows(ConnectorException.class, () -> again.commit(
                        new PartitionDone(runId, STREAM, "p0", 3, 999, 3, Instant.now())),
                        "committing a done partition again would copy its rows twice");
                assertFalse(twice.kind().isRetryable(), "retrying cannot make the partition undone: "
                        + twice.kind());
                assertTrue(twice.getMessage().contains("p0"), "must name the partition: " + twice.getMessage());
                again.abort(); // as the runner does after a failed commit
            }
            assertRows(rows(0, 3), table, "the second commit's rows are rolled back");
            assertEquals(p0, ledger.partitions(runId, STREAM).get(0), "the first commit's done row stays");
            try (PartitionWriter next = writers.open()) {
                writeAndFinish(next, rows(3, 5));
                next.commit(new PartitionDone(runId, STREAM, "p1", 2, 200, 1, Instant.now()));
            }
        }
        assertRows(rows(0, 5), table, "p0 once, then p1");
        assertEquals(List.of(LedgerPartition.State.DONE, LedgerPartition.State.DONE), states());
        assertEquals(2, ledger.findStream(runId, STREAM).orElseThrow().partitionsDone());
    }

    @Test
    void ofTwoRacingCommitsOfAPartitionOneWins() throws Exception {
        ledger.ensureReady();
        ledger.startStream(starting(runId));
        ledger.recordPlan(runId, STREAM, List.of(planned(0, "p0")));
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
                            writer.commit(new PartitionDone(runId, STREAM, "p0", 5, 50, 1, Instant.now()));
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
        assertEquals(LedgerPartition.State.DONE, ledger.partitions(runId, STREAM).get(0).state());
    }

    @Test
    void aReplacingTransactionRecordsItsTruncationAndPartitionsWithItsRows() throws Exception {
        ledger.ensureReady();
        commit(target, columns, rows(0, 10));
        ledger.startStream(starting(runId));
        ledger.recordPlan(runId, STREAM, List.of(planned(0, "p0"), planned(1, "p1")));
        Optional<StreamKey> key = Optional.of(new StreamKey(runId, STREAM));
        if (!target.replacesInOneTransaction()) {
            assertThrows(ConnectorException.class, () -> target.openReplacingTransaction(columns, format(), key),
                    "replacesInOneTransaction() is false, so opening one must fail");
            return;
        }

        try (ReplacingTransaction rolledBack = target.openReplacingTransaction(columns, format(), key)) {
            assertTrue(rolledBack.truncated(), "the run's first replacing transaction empties the table");
            commitPartition(rolledBack, "p0", rows(100, 105));
        }
        assertRows(rows(0, 10), table, "closed uncommitted: the table keeps its rows");
        assertEquals(List.of(LedgerPartition.State.PLANNED, LedgerPartition.State.PLANNED), states(),
                "closed uncommitted: no partition is done");
        assertEquals(Optional.empty(), ledger.findStream(runId, STREAM).orElseThrow().truncatedAt(),
                "closed uncommitted: the truncation is not recorded");

        try (ReplacingTransaction replacing = target.openReplacingTransaction(columns, format(), key)) {
            assertTrue(replacing.truncated(), "nothing recorded the first truncation, so this one empties");
            commitPartition(replacing, "p0", rows(100, 105));
            commitPartition(replacing, "p1", rows(105, 110));
            replacing.commit();
        }
        assertRows(rows(100, 110), table, "committed: emptied, then both partitions");
        assertEquals(List.of(LedgerPartition.State.DONE, LedgerPartition.State.DONE), states());
        assertTrue(ledger.findStream(runId, STREAM).orElseThrow().truncatedAt().isPresent(), "truncatedAt");

        try (ReplacingTransaction resumed = target.openReplacingTransaction(columns, format(), key)) {
            assertFalse(resumed.truncated(), "the ledger says this run emptied the table already");
            resumed.commit();
        }
        assertRows(rows(100, 110), table, "a resumed run's transaction must not empty the table");
    }

    private LedgerStream starting(String run) {
        return LedgerStream.starting(run, spec, "checksum-1", STREAM, "definition 1", "snapshot 1");
    }

    private static LedgerPartition planned(int index, String id) {
        return new LedgerPartition(index, id, "predicate of " + id, "checkpoint of " + id,
                LedgerPartition.State.PLANNED, 0, 0, 0);
    }

    private List<LedgerPartition.State> states() throws ConnectorException {
        return ledger.partitions(runId, STREAM).stream().map(LedgerPartition::state).toList();
    }


    private void commitPartition(PartitionWriters writers, String partitionId, List<ContractRow> rows)
            throws ConnectorException {
        try (PartitionWriter writer = writers.open()) {
            writeAndFinish(writer, rows);
            writer.commit(new PartitionDone(runId, STREAM, partitionId, rows.size(), 0, 1, Instant.now()));
        }
    }

}

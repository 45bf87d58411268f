package io.sluice.app.ledger;

import io.sluice.connector.postgres.PostgresConnectorFactory;
import io.sluice.core.RunnerCode;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.ledger.PartitionDone;
import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.StreamKey;
import io.sluice.spi.write.PartitionWriter;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractSource;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run ledger's rules ({@link Ledger}, in the core) on a real store, PostgreSQL's: starts and restarts, a run id
 * of one spec, a plan kept once, a truncation once per run and stream (also when two processes race), a partition done
 * at most once (also when two commits race), attempts on their partition, a stream's end.
 */
class LedgerRulesTest {
    private static final TestingPostgres PG = TestingPostgres.shared();
    private static String database;
    private static Connector connector;

    @BeforeAll
    static void createDatabase() throws Exception {
        database = PG.createDatabase("ledger_rules");
        connector = new PostgresConnectorFactory().create(new ConnectionConfig("dst",
                Options.of(new PostgresConnectorFactory().connectionOptions(), Map.of("url", PG.jdbcUrl(database),
                        "user", PG.user(), "password", PG.password())), Path.of("."), Path.of("target")));
    }

    @AfterAll
    static void close() {
        connector.close();
    }

    private static Target target(String table) throws Exception {
        sql("CREATE TABLE IF NOT EXISTS " + table + " (id int, name text)");
        return connector.targets().orElseThrow()
                .open(Options.of(new PostgresConnectorFactory().targetOptions(), Map.of("table", table)));
    }

    private static Ledger ledger(Target target) throws ConnectorException {
        Ledger ledger = new Ledger(target.ledgerStore().orElseThrow());
        ledger.ensureReady();
        return ledger;
    }

    @Test
    void aStreamStartsAgainOnResumeAndItsRunIdBelongsToOneSpec() throws Exception {
        Ledger ledger = ledger(target("starts"));
        StreamKey key = new StreamKey("run-a", "orders");
        Instant started = Instant.parse("2026-01-02T03:04:05.123456Z");
        ledger.startStream(new LedgerStream("run-a", "spec-1", "sum1", "orders", "def 1", LedgerStream.State.RUNNING,
                "snapshot 1", started, Optional.empty(), Optional.empty(), 0, 1, Optional.empty(), 0, 0));
        ledger.finishStream(key, LedgerStream.State.INTERRUPTED, 3, Optional.of("SIGTERM"));
        LedgerStream interrupted = ledger.findStream(key).orElseThrow();
        assertEquals(LedgerStream.State.INTERRUPTED, interrupted.state());
        assertTrue(interrupted.finishedAt().isPresent());
        assertEquals(Optional.of("SIGTERM"), interrupted.error());

        ledger.startStream(LedgerStream.starting("run-a", "spec-1", "sum2", "orders", "def 2", "snapshot 2"));
        LedgerStream resumed = ledger.findStream(key).orElseThrow();
        assertEquals(2, resumed.starts(), "a resume counts as a start");
        assertEquals(LedgerStream.State.RUNNING, resumed.state());
        assertEquals(Optional.empty(), resumed.finishedAt());
        assertEquals(Optional.empty(), resumed.error());
        assertEquals(started, resumed.startedAt(), "the first start time stays");
        assertEquals("snapshot 2", resumed.snapshotMode());
        assertEquals("def 2", resumed.definition());

        ConnectorException taken = assertThrows(ConnectorException.class, () -> ledger.startStream(
                LedgerStream.starting("run-a", "another-spec", "x", "orders", "d", "none")));
        assertEquals(RunnerCode.LEDGER004.name(), taken.code());
        assertEquals(ErrorKind.INVALID_SPEC, taken.kind());
        assertTrue(taken.getMessage().contains("spec-1"), taken.getMessage());
        assertEquals(2, ledger.findStream(key).orElseThrow().starts(), "the refused start is not counted");

        ConnectorException notStarted = assertThrows(ConnectorException.class,
                () -> ledger.recordPlan(new StreamKey("run-none", "orders"), List.of(planned(0, "p0"))));
        assertEquals(RunnerCode.LEDGER003.name(), notStarted.code());
    }

    /** The one-transaction start a run uses: the same rules as a start, a plan and first marks one by one. */
    @Test
    void aStartWithItsPlanAndMarksKeepsTheFirstPlanAndMarksOnResume() throws Exception {
        Ledger ledger = ledger(target("startall"));
        LedgerStream stream = LedgerStream.starting("run-s", "spec", "c", "s", "d", "none");
        assertEquals(java.util.Set.of("window"), ledger.startStream(stream, List.of(planned(0, "p0"),
                planned(1, "p1")), Map.of("window", "first")));
        assertEquals(java.util.Set.of(), ledger.startStream(stream, List.of(planned(0, "other")),
                Map.of("window", "second")), "a resume sets no mark the run has");
        assertEquals(List.of("p0", "p1"), ids(ledger.partitions(stream.key())), "a resume's plan adds none");
        assertEquals(Map.of("window", "first"), ledger.marks(stream.key()));
        assertEquals(2, ledger.findStream(stream.key()).orElseThrow().starts());
        ConnectorException taken = assertThrows(ConnectorException.class, () -> ledger.startStream(
                LedgerStream.starting("run-s", "other-spec", "c", "s", "d", "none"), List.of(planned(0, "x")),
                Map.of("window", "x")));
        assertTrue(taken.getMessage().contains("already belongs to spec 'spec'"), taken.getMessage());
        assertEquals(List.of("p0", "p1"), ids(ledger.partitions(stream.key())), "a refused start wrote nothing");
    }

    @Test
    void aPlanIsKeptOnceAndAttemptsShowOnTheirPartition() throws Exception {
        Ledger ledger = ledger(target("plans"));
        StreamKey key = start(ledger, "run-p");
        ledger.recordPlan(key, List.of(planned(0, "p0"), planned(1, "p1"), planned(2, "p2")));
        ledger.recordPlan(key, List.of(planned(0, "other"))); // a resume's new plan adds none
        assertEquals(List.of("p0", "p1", "p2"), ids(ledger.partitions(key)));

        Instant started = Instant.parse("2026-01-02T03:04:05Z");
        ledger.recordAttempt(new AttemptRecord("run-p", "s", "p1", 1, started, started.plusSeconds(1),
                AttemptRecord.Outcome.RETRIED, Optional.of("PG205"), Optional.of("terminated")));
        ledger.recordAttempt(new AttemptRecord("run-p", "s", "p1", 2, started.plusSeconds(2), started.plusSeconds(3),
                AttemptRecord.Outcome.FAILED, Optional.empty(), Optional.empty()));
        LedgerPartition p1 = ledger.partitions(key).get(1);
        assertEquals(2, p1.attempts(), "tried twice");
        assertEquals(Optional.of(started), p1.startedAt(), "since its first attempt");
        assertEquals(LedgerPartition.State.PLANNED, p1.state(), "failed attempts leave it planned");
        assertEquals(0, ledger.partitions(key).get(0).attempts());
    }

    @Test
    void aTargetIsEmptiedOncePerRunAndStreamEvenWhenTwoProcessesRace() throws Exception {
        Target target = target("emptied");
        Ledger ledger = ledger(target);
        sql("INSERT INTO emptied VALUES (1, 'old')");
        StreamKey key = start(ledger, "run-t");
        assertTrue(ledger.truncateOnce(ContractSource.appendTo(target), key));
        assertEquals(0, count("emptied"));
        assertTrue(ledger.findStream(key).orElseThrow().truncatedAt().isPresent());
        sql("INSERT INTO emptied VALUES (2, 'copied before the crash')");
        assertFalse(ledger.truncateOnce(ContractSource.appendTo(target), key), "a resume never empties again");
        assertEquals(1, count("emptied"));

        StreamKey next = start(ledger, "run-u");
        int racers = 3;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(racers)) {
            for (int i = 0; i < racers; i++) {
                Target own = target("emptied"); // as another process of the run would have
                outcomes.add(pool.submit(() -> {
                    go.await();
                    return ledger(own).truncateOnce(ContractSource.appendTo(own), next);
                }));
            }
            go.countDown();
            int emptied = 0;
            for (Future<Boolean> outcome : outcomes) {
                emptied += outcome.get() ? 1 : 0;
            }
            assertEquals(1, emptied, "one of the racing processes empties the table, once");
        }
        assertEquals(0, count("emptied"));
    }

    @Test
    void aPartitionIsDoneAtMostOnceEvenWhenTwoCommitsRace() throws Exception {
        Target target = target("once");
        Ledger ledger = ledger(target);
        StreamKey key = start(ledger, "run-once");
        ledger.recordPlan(key, List.of(planned(0, "p0"), planned(1, "p1")));

        copyAndCommit(target, ledger, key, "p0", 1, 2, 3);
        LedgerPartition p0 = ledger.partitions(key).get(0);
        assertEquals(LedgerPartition.State.DONE, p0.state());
        assertEquals(3, p0.rows());
        assertEquals("predicate of p0", p0.predicate(), "the plan's fields stay");
        assertTrue(p0.finishedAt().isPresent());
        ConnectorException twice = assertThrows(ConnectorException.class,
                () -> copyAndCommit(target, ledger, key, "p0", 1, 2, 3));
        assertEquals(RunnerCode.LEDGER002.name(), twice.code());
        assertFalse(twice.kind().isRetryable());
        assertTrue(twice.getMessage().contains("p0") && twice.getMessage().contains("twice"), twice.getMessage());
        assertEquals(3, count("once"), "the second commit's rows were rolled back");

        List<Future<String>> outcomes = new ArrayList<>();
        CountDownLatch finished = new CountDownLatch(2);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (int i = 0; i < 2; i++) {
                outcomes.add(pool.submit(() -> {
                    try (PartitionWriter writer = openWriter(target)) {
                        write(writer, 10, 11);
                        long rows = writer.finish();
                        finished.countDown();
                        finished.await(); // both hold their rows before either commits
                        writer.ledgeredCommit().orElseThrow()
                                .commit(ledger.markingDone(new PartitionDone(key, "p1", rows, 0, 1, Instant.now())));
                        return "committed";
                    } catch (ConnectorException e) {
                        return e.code();
                    }
                }));
            }
            List<String> results = new ArrayList<>();
            for (Future<String> f : outcomes) {
                results.add(f.get());
            }
            results.sort(null);
            assertEquals(List.of("LEDGER002", "committed"), results);
        }
        assertEquals(5, count("once"));
        // A partition the plan did not record is still committed once, after the planned ones.
        copyAndCommit(target, ledger, key, "unplanned", 7);
        assertEquals(List.of("p0", "p1", "unplanned"), ids(ledger.partitions(key)));
        assertEquals(-1, ledger.partitions(key).get(2).index());
        assertEquals(3, ledger.findStream(key).orElseThrow().partitionsDone());
    }

    @Test
    void aMarkBelongsToAStartedStreamAndCommitsWithTheTransactionThatRunsIt() throws Exception {
        Target target = target("marked");
        Ledger ledger = ledger(target);
        StreamKey key = start(ledger, "run-m");
        ledger.mark(key, "created", "true");
        sql("INSERT INTO marked VALUES (1, 'old')");
        assertThrows(ConnectorException.class, () -> ContractSource.appendTo(target).ledgeredTruncate().orElseThrow()
                .truncate(tx -> {
            ledger.marking(key, "shadow", "marked_shadow").apply(tx);
            throw new ConnectorException(ErrorKind.FAILED, "TEST", "refused", null);
        }));
        assertEquals(Map.of("created", "true"), ledger.marks(key), "a mark in a rolled back transaction is gone");
        assertEquals(1, count("marked"));
        ConnectorException notStarted = assertThrows(ConnectorException.class,
                () -> ledger.mark(new StreamKey("run-none", "s"), "created", "true"));
        assertEquals(RunnerCode.LEDGER003.name(), notStarted.code());
    }

    private static StreamKey start(Ledger ledger, String runId) throws ConnectorException {
        ledger.startStream(LedgerStream.starting(runId, "spec", "c", "s", "d", "none"));
        return new StreamKey(runId, "s");
    }

    private static LedgerPartition planned(int index, String id) {
        return LedgerPartition.planned(index, id, "predicate of " + id, "checkpoint of " + id);
    }

    private static List<String> ids(List<LedgerPartition> partitions) {
        return partitions.stream().map(LedgerPartition::partitionId).toList();
    }

    private static void copyAndCommit(Target target, Ledger ledger, StreamKey key, String partitionId, int... ids)
            throws Exception {
        try (PartitionWriter writer = openWriter(target)) {
            write(writer, ids);
            long rows = writer.finish();
            writer.ledgeredCommit().orElseThrow()
                    .commit(ledger.markingDone(new PartitionDone(key, partitionId, rows, 10L * rows, 1,
                    Instant.now())));
        }
    }

    private static PartitionWriter openWriter(Target target) throws ConnectorException {
        List<Column> columns = target.table().columns();
        return ContractSource.appendTo(target).openWriter(columns, CopyFormat.TEXT);
    }

    /** The rows {@code (id, 'name id')} as COPY text. */
    private static void write(PartitionWriter writer, int... ids) throws ConnectorException {
        byte[] text = java.util.Arrays.stream(ids).mapToObj(id -> id + "\tname " + id + "\n")
                .collect(java.util.stream.Collectors.joining()).getBytes(StandardCharsets.UTF_8);
        writer.write(text, 0, text.length);
    }

    private static void sql(String statement) throws Exception {
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static long count(String table) throws Exception {
        try (Connection c = PG.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

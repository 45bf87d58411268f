package io.sluice.core.ledger;

import io.sluice.core.RunnerCode;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.StreamKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ledger's rules, the same whatever store keeps the rows, on an in-memory store: plan once, empty the target
 * once, a partition done at most once, a mark commits with its transaction or not at all, a run id is one spec's,
 * joined runs' leases. (The PostgreSQL store keeps them on a server: {@code LedgerStoreContractTest}.)
 */
class LedgerTest {
    private final MemoryLedgerStore store = new MemoryLedgerStore();
    private final Ledger ledger = new Ledger(store);

    private StreamKey started(String runId, List<LedgerPartition> plan) throws ConnectorException {
        LedgerStream stream = LedgerStream.starting(runId, "spec", "sha", "orders", "definition", "none");
        ledger.startStream(stream, plan, Map.of());
        return stream.key();
    }

    private static List<LedgerPartition> plan(String... ids) {
        List<LedgerPartition> partitions = new java.util.ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            partitions.add(LedgerPartition.planned(i, ids[i], "id % " + ids.length + " = " + i, "cp-" + ids[i]));
        }
        return partitions;
    }

    private static List<String> ids(List<LedgerPartition> partitions) {
        return partitions.stream().map(LedgerPartition::partitionId).toList();
    }

    @Test
    void aStreamIsPlannedOnceAndAResumeKeepsThatPlan() throws ConnectorException {
        StreamKey key = started("run-1", plan("p0", "p1"));
        ledger.recordPlan(key, plan("q0", "q1", "q2")); // a resumed process plans anew: the first plan stays
        ledger.startStream(LedgerStream.starting("run-1", "spec", "sha", "orders", "definition", "none"),
                plan("r0"), Map.of());
        assertEquals(List.of("p0", "p1"), ids(ledger.partitions(key)));
        assertEquals(2, ledger.findStream(key).orElseThrow().starts(), "the resume counted as a start");
        ConnectorException notStarted = assertThrows(ConnectorException.class,
                () -> ledger.recordPlan(new StreamKey("run-1", "other"), plan("x")));
        assertEquals(RunnerCode.LEDGER003.name(), notStarted.code());
    }

    @Test
    void aPartitionIsDoneAtMostOnceAndASecondCommitChangesNothing() throws ConnectorException {
        StreamKey key = started("run-2", plan("p0", "p1"));
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        store.inTransaction(ledger.markingDone(new PartitionDone(key, "p0", 10, 100, 1, at)));
        ConnectorException twice = assertThrows(ConnectorException.class,
                () -> store.inTransaction(ledger.markingDone(new PartitionDone(key, "p0", 99, 999, 2, at))));
        assertEquals(RunnerCode.LEDGER002.name(), twice.code());
        LedgerPartition p0 = ledger.partitions(key).getFirst();
        assertEquals(LedgerPartition.State.DONE, p0.state());
        assertEquals(10, p0.rows(), "the first commit's count, not the refused one's");
        assertEquals(LedgerPartition.State.PLANNED, ledger.partitions(key).get(1).state());
    }

    @Test
    void theTargetIsEmptiedOncePerRunAndStream() throws ConnectorException {
        StreamKey key = started("run-3", plan("p0"));
        assertTrue(store.inTransaction(ledger.truncatingFirst(key)), "the first process empties it");
        assertFalse(store.inTransaction(ledger.truncatingFirst(key)), "a resume does not");
        assertTrue(ledger.findStream(key).orElseThrow().truncatedAt().isPresent());
        StreamKey next = started("run-4", plan("p0"));
        assertTrue(store.inTransaction(ledger.truncatingFirst(next)), "the next run empties it again");
    }

    @Test
    void aMarkCommitsWithItsTransactionOrNotAtAll() throws ConnectorException {
        StreamKey key = started("run-5", plan("p0"));
        ledger.mark(key, "created", "true");
        assertThrows(ConnectorException.class, () -> store.inTransaction(tx -> {
            ledger.marking(key, "shadow", "orders_shadow").apply(tx);
            ledger.truncatingFirst(key).apply(tx);
            throw new ConnectorException(ErrorKind.FAILED, "TEST", "the target's statement failed", null);
        }));
        assertEquals(Map.of("created", "true"), ledger.marks(key), "the mark rolled back with the transaction");
        assertTrue(ledger.findStream(key).orElseThrow().truncatedAt().isEmpty(), "and the truncation's record");
        assertTrue(ledger.markFirst(key, "verified", "1"), "the first process sets it");
        assertFalse(ledger.markFirst(key, "verified", "2"), "the others find it set");
    }

    @Test
    void aRunIdBelongsToOneSpec() throws ConnectorException {
        started("run-6", plan("p0"));
        ConnectorException other = assertThrows(ConnectorException.class, () -> ledger.startStream(
                LedgerStream.starting("run-6", "another-spec", "sha", "orders", "definition", "none")));
        assertEquals(RunnerCode.LEDGER004.name(), other.code());
    }

    @Test
    void joinedProcessesClaimApartAndAnEndedLeaseIsTakenOver() throws ConnectorException {
        StreamKey key = started("run-7", plan("p0", "p1"));
        Duration lease = Duration.ofSeconds(30);
        ClaimLedger claims = ledger.claims();
        ClaimLedger.Claim a = claims.claimNext(key, "a", lease).orElseThrow();
        ClaimLedger.Claim b = claims.claimNext(key, "b", lease).orElseThrow();
        assertEquals(List.of("p0", "p1"), List.of(a.partition().partitionId(), b.partition().partitionId()));
        assertEquals(Optional.empty(), claims.claimNext(key, "c", lease), "both held");

        store.advance(Duration.ofSeconds(31)); // a's process paused past its lease
        ClaimLedger.Claim c = claims.claimNext(key, "c", lease).orElseThrow();
        assertEquals("p0", c.partition().partitionId());
        assertEquals(Optional.of("a"), c.takenFrom(), "taken over from the process whose lease ended");
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        ConnectorException late = assertThrows(ConnectorException.class, () -> store.inTransaction(
                ledger.markingDone(new PartitionDone(key, "p0", 1, 1, 1, at, Optional.of("a")))));
        assertEquals(RunnerCode.LEDGER005.name(), late.code(), "a's late commit is refused");
        store.inTransaction(ledger.markingDone(new PartitionDone(key, "p0", 1, 1, 1, at, Optional.of("c"))));
        assertEquals(LedgerPartition.State.DONE, ledger.partitions(key).getFirst().state());
    }
}

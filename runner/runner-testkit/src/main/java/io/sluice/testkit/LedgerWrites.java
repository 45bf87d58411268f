package io.sluice.testkit;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.StreamKey;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * The ledger writes a run makes, in short, for tests of a connector's {@link LedgerStore} (the runner's real rules are
 * {@code io.sluice.core.ledger.Ledger}, which connector tests cannot reach).
 */
public final class LedgerWrites {
    private LedgerWrites() {
    }

    /** Inserts the stream's row in a transaction of the store's own; false when the run has it already. */
    public static boolean insertStream(LedgerStore store, LedgerStream stream) throws ConnectorException {
        return store.inTransaction(tx -> tx.insertStream(stream));
    }

    /** Inserts planned partitions in a transaction of the store's own. */
    public static void plan(LedgerStore store, StreamKey key, List<LedgerPartition> partitions)
            throws ConnectorException {
        store.inTransaction(tx -> {
            tx.writePartitions(key, partitions);
            return null;
        });
    }

    /** Records the stream's truncation and answers true, unless one is recorded: then false. */
    public static LedgerWork<Boolean> recordTruncation(StreamKey key) {
        return tx -> {
            LedgerStream s = tx.lockStream(key).orElseThrow(() -> new AssertionError("no stream " + key));
            if (s.truncatedAt().isPresent()) {
                return false;
            }
            tx.updateStream(new LedgerStream(s.runId(), s.specName(), s.specChecksum(), s.stream(), s.definition(),
                    s.state(), s.snapshotMode(), s.startedAt(), s.finishedAt(), Optional.of(now()), s.rows(),
                    s.starts(), s.error(), 0, 0));
            return true;
        };
    }

    /** Marks the partition done (inserting its row when unplanned), refusing when it is done already. */
    public static LedgerWork<Void> markDone(StreamKey key, String partitionId, long rows) {
        return tx -> {
            Optional<LedgerPartition> found = tx.lockPartition(key, partitionId);
            if (found.isPresent() && found.get().state() == LedgerPartition.State.DONE) {
                throw new ConnectorException(ErrorKind.FAILED, "TEST", partitionId + " is done already", null);
            }
            LedgerPartition p = found.orElse(LedgerPartition.planned(-1, partitionId, "", ""));
            tx.writePartitions(key, List.of(new LedgerPartition(p.index(), p.partitionId(), p.predicate(),
                    p.checkpoint(), LedgerPartition.State.DONE, rows, 0, 1, Optional.of(now()),
                    Optional.of(now()))));
            return null;
        };
    }

    /** Now, to the microsecond a store must keep. */
    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }
}

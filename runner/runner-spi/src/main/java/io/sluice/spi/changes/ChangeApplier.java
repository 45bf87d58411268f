package io.sluice.spi.changes;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerWork;

/**
 * Applies change batches to a target's tables ({@link io.sluice.spi.write.Target#changeSink()}): each batch in one transaction
 * that also runs the runner's ledger work, so the applied position commits with the rows. Used by one thread.
 */
public interface ChangeApplier extends AutoCloseable {
    /**
     * Applies {@code batch} and runs {@code withPosition} in the same transaction, then commits. When either fails
     * nothing of it is committed (nor of the partial batches before it) and the failure is thrown. A
     * {@link ChangeBatch#partial() partial} batch is applied without committing and without {@code withPosition}:
     * the batch that ends its transaction commits them together.
     */
    Applied apply(ChangeBatch batch, LedgerWork<?> withPosition) throws ConnectorException;

    /**
     * For a cut-over: sets each target sequence behind a routed column past the source's value for it
     * ({@link ChangeFeed#sequenceValues()}) and past the column's largest value, so inserts on the target after the
     * switch take new values. Returns how many sequences it set.
     */
    default int resetSequences(java.util.Map<String, java.util.Map<String, Long>> sourceValues)
            throws ConnectorException {
        return 0;
    }

    /**
     * The routed tables (by {@link ChangeRoute#source()}) in groups whose changes must apply in one order, because
     * the target ties them (a foreign key between them): the runner may apply different groups through different
     * appliers at once. Empty (the default): every table in one group.
     */
    default java.util.List<java.util.Set<String>> tiedTables() {
        return java.util.List.of();
    }

    /** What one batch did to the target's rows, by kind of change. */
    record Applied(long inserts, long updates, long deletes, long truncates) {
        public static final Applied NONE = new Applied(0, 0, 0, 0);

        public Applied plus(Applied other) {
            return new Applied(inserts + other.inserts, updates + other.updates, deletes + other.deletes,
                    truncates + other.truncates);
        }

        public long total() {
            return inserts + updates + deletes + truncates;
        }
    }

    /** Closes the connection; a batch not committed is rolled back. Never fails. */
    @Override
    void close();
}

package io.sluice.spi.changes;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Whole source transactions read from a change feed, in commit order, to apply in one target transaction.
 *
 * @param end          the feed's position after the last transaction (for PostgreSQL its commit's end LSN): what
 *                     the ledger records with the applied rows, and what is confirmed to the source afterwards
 * @param transactions how many source transactions ended in this batch
 * @param partial      the batch ends inside a source transaction too big for one batch: its changes are applied
 *                     without committing, and the transaction's next batch continues the same target transaction;
 *                     {@code end} is then the last whole transaction's end, the position nothing past is committed
 * @param commits      where each transaction of the batch ends, in order; empty when the feed does not tell (then
 *                     the batch is applied as one, never split across tables)
 * @param replay       the changes are replayed over a copy that may already hold some of them (a copy resumed in a
 *                     snapshot later than the feed's start): an insert may meet its row, and a change may miss the
 *                     row it changes; the applier converges on the source's state instead of failing
 */
public record ChangeBatch(List<RowChange> changes, String end, int transactions, boolean partial,
                          List<Commit> commits, boolean replay) {
    /**
     * The end of one source transaction within a batch.
     *
     * @param changes how many of the batch's changes belong to it and to the transactions before it
     * @param end     the feed's position after it
     */
    public record Commit(int changes, String end) {
        public Commit {
            if (changes < 0) {
                throw new IllegalArgumentException("changes must not be negative: " + changes);
            }
            requireNonNull(end, "end is null");
        }
    }

    public ChangeBatch(List<RowChange> changes, String end, int transactions, boolean partial,
                       List<Commit> commits) {
        this(changes, end, transactions, partial, commits, false);
    }

    /** Whole transactions only, not told apart. */
    public ChangeBatch(List<RowChange> changes, String end, int transactions) {
        this(changes, end, transactions, false, List.of());
    }

    public ChangeBatch(List<RowChange> changes, String end, int transactions, boolean partial) {
        this(changes, end, transactions, partial, List.of());
    }

    public ChangeBatch {
        changes = List.copyOf(requireNonNull(changes, "changes is null"));
        requireNonNull(end, "end is null");
        commits = List.copyOf(requireNonNull(commits, "commits is null"));
        if (transactions < 0) {
            throw new IllegalArgumentException("transactions must not be negative: " + transactions);
        }
        if (!commits.isEmpty() && (commits.size() != transactions
                || commits.getLast().changes() != changes.size() || !commits.getLast().end().equals(end))) {
            throw new IllegalArgumentException("the commits must be the batch's " + transactions + " transactions, "
                    + "the last ending with its " + changes.size() + " changes at " + end + ": " + commits);
        }
    }

    /** This batch, replayed over a copy that may hold some of its changes already ({@link #replay()}). */
    public ChangeBatch asReplay() {
        return replay ? this : new ChangeBatch(changes, end, transactions, partial, commits, true);
    }

    /** {@code changes}, ending at {@code end}, as a batch of {@code transactions} with this batch's replay flag. */
    public ChangeBatch part(List<RowChange> changes, String end, int transactions) {
        return new ChangeBatch(changes, end, transactions, false, List.of(), replay);
    }

    public boolean isEmpty() {
        return transactions == 0 && changes.isEmpty();
    }

    /** Whether each transaction's changes are known apart ({@link #commits()}). */
    public boolean toldApart() {
        return !partial && transactions > 0 && commits.size() == transactions;
    }
}

package io.sluice.spi.ledger;

import java.util.Map;
import io.sluice.spi.error.ConnectorException;

/**
 * Where a target keeps what it must remember across a crash for one stream of one run (a table it created, the shadow
 * table it loads, the definitions of the indexes it dropped), in the run ledger. Each work runs in a transaction the
 * target owns (through its {@link LedgerStore}), so a mark commits together with the change it records: after a
 * crash the marks say exactly which steps happened. The names are the target's own; the runner keeps them apart from
 * its own marks.
 */
public interface LoadMarks {
    /** The run this stream belongs to. */
    String runId();

    /** The target's marks for this stream of the run, by name; reading locks the stream's row in the transaction. */
    LedgerWork<Map<String, String>> reading();

    /** Sets the mark {@code name}, in the transaction that runs the work. */
    LedgerWork<Void> writing(String name, String value);

    /**
     * What the target left behind that a person should know of while the run is unfinished (e.g. "shadow table
     * x.y"), shown by {@code sluice status}; an empty value once nothing is left.
     */
    String LEFT_BEHIND = "left-behind";

    /**
     * Rows the load deleted from the target (a merge's {@code delete-missing}), as a decimal number: the runner reports
     * it with the stream's rows.
     */
    String DELETED_ROWS = "deleted-rows";

    /**
     * What the load changed in the target table's shape ({@code schema-changes}), one change per line, e.g.
     * {@code added column b numeric to public.t}: kept with the run, so its report read from the ledger says so.
     */
    String SCHEMA_CHANGES = "schema-changes";

    /**
     * Prefix of the marks a target writes for each check that passed, {@code check.<name>} = the value it found (a
     * {@code rows} check's count is what the next run's {@code min-ratio-of-last-run} compares with).
     */
    String CHECK_PREFIX = "check.";

    /**
     * The rows this stream's done partitions of the run wrote, as the ledger counts them (each with its partition's
     * commit): what a target checks a step against that must see every partition, e.g. the keys a merge collected
     * before it deletes the rest. Empty where no ledger keeps the marks.
     */
    default LedgerWork<java.util.OptionalLong> rowsDone() {
        return tx -> java.util.OptionalLong.empty();
    }

    /**
     * The target's marks of this stream in the spec's earlier runs that never finished it (killed, failed or
     * interrupted), by run id, newest first: what such a run took away (indexes it dropped) that a fresh run must put
     * back before it loads. Empty where no ledger keeps the marks.
     */
    default java.util.Map<String, java.util.Map<String, String>> unfinishedEarlier()
            throws ConnectorException {
        return java.util.Map.of();
    }

    /**
     * Like {@link #unfinishedEarlier}, and also the runs that finished this stream but not another stream of theirs:
     * what such a run left to do once every stream is done (foreign keys between its tables) is left for this stream
     * too. Empty where no ledger keeps the marks.
     */
    default java.util.Map<String, java.util.Map<String, String>> ofUnfinishedEarlierRuns()
            throws ConnectorException {
        return unfinishedEarlier();
    }

    /**
     * Whether a process before this one may have run this run (a resume, a joined run): what such a process left
     * running on the target is then this run's to end. False only for a run whose id the ledger did not know when it
     * began.
     */
    default boolean ranBefore() {
        return true;
    }
}

package io.sluice.spi.ledger;

import java.util.Map;

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
}

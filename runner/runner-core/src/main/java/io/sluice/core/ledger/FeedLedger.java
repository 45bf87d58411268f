package io.sluice.core.ledger;

import io.sluice.core.RunnerCode;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.ChangeFeedRows;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LedgerWork;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The ledger's rules for change feeds ({@link Ledger#feeds()}): where each feed of a spec is, moved only by the run
 * that read it there (RUN071 otherwise), together with the changes it applied.
 */
public final class FeedLedger {
    private final LedgerStore store;

    FeedLedger(LedgerStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /** Every change feed the spec's runs recorded in this ledger. */
    public List<ChangeFeedRecord> records(String specName) throws ConnectorException {
        return store.changeFeeds(requireNonNull(specName, "specName is null"));
    }

    /** The spec's record of change feed {@code feed}; empty when it never started (or was dropped). */
    public Optional<ChangeFeedRecord> record(String specName, String feed)
            throws ConnectorException {
        requireNonNull(feed, "feed is null");
        return store.changeFeeds(specName).stream().filter(f -> f.feed().equals(feed)).findFirst();
    }

    /** Writes a change feed's record in a short transaction of the store's own. */
    public void write(ChangeFeedRecord feed) throws ConnectorException {
        requireNonNull(feed, "feed is null");
        store.inTransaction(t -> {
            feeds(t).writeChangeFeed(feed);
            return null;
        });
    }

    /** Forgets a change feed (its next run starts it again, with a full copy). */
    public void drop(String specName, String feed) throws ConnectorException {
        store.inTransaction(t -> {
            feeds(t).deleteChangeFeed(specName, feed);
            return null;
        });
    }

    /**
     * The ledger's part of a change batch's transaction: the feed's record must still say {@code expected} (no other
     * run applied since, which would apply changes twice), and then says {@code position}, applying.
     */
    public LedgerWork<Void> advancing(ChangeFeedRecord expected, String position,
                                          String runId) {
        return advancing(expected, position, runId, false);
    }

    /**
     * As {@link #advancing(ChangeFeedRecord, String, String)}, and with {@code forgetTables}
     * forgets the feed's table positions too: the feed's own position has passed every one of them.
     */
    public LedgerWork<Void> advancing(ChangeFeedRecord expected, String position,
                                          String runId, boolean forgetTables) {
        requireNonNull(expected, "expected is null");
        requireNonNull(position, "position is null");
        requireNonNull(runId, "runId is null");
        return t -> {
            expectFeed(t, expected);
            feeds(t).writeChangeFeed(expected.at(ChangeFeedRecord.State.APPLYING, position, runId));
            if (forgetTables) {
                feeds(t).deleteChangeFeedTables(expected.specName(), expected.feed());
            }
            return null;
        };
    }

    /** Moves the feed's own position in a transaction of the ledger's own (its tables' changes are committed). */
    public void advance(ChangeFeedRecord expected, String position, String runId,
                            boolean forgetTables) throws ConnectorException {
        store.inTransaction(advancing(expected, position, runId, forgetTables));
    }

    /**
     * The ledger's part of one table group's transaction when a feed's tables apply on several connections: the
     * feed must still be where this run read it, and each table given is applied up to its position.
     */
    public LedgerWork<Void> advancingTables(ChangeFeedRecord expected,
                                            Map<String, String> positions) {
        requireNonNull(expected, "expected is null");
        Map<String, String> copied = Map.copyOf(requireNonNull(positions, "positions is null"));
        return t -> {
            expectFeed(t, expected);
            feeds(t).writeChangeFeedTables(expected.specName(), expected.feed(), copied);
            return null;
        };
    }

    /** How far each table of a feed got past the feed's own position (a run that applied tables apart failed). */
    public Map<String, String> tablePositions(String specName, String feed) throws ConnectorException {
        return store.changeFeedTables(specName, feed);
    }

    /** The transaction's change feed rows; a store that keeps none refuses (a target that cannot apply changes). */
    private static ChangeFeedRows feeds(LedgerTransaction t) throws ConnectorException {
        return t.changeFeedRows().orElseThrow(() -> new ConnectorException(ErrorKind.PREFLIGHT, SpiCode.SPI012,
                "this ledger keeps no change feeds", "use a target whose ledger keeps them (PostgreSQL)"));
    }

    private static void expectFeed(LedgerTransaction t,
                                   ChangeFeedRecord expected) throws ConnectorException {
        Optional<ChangeFeedRecord> now = feeds(t).lockChangeFeed(expected.specName(), expected.feed());
        if (now.isEmpty() || !now.get().position().equals(expected.position())
                || now.get().state() != expected.state()) {
            throw new ConnectorException(ErrorKind.FAILED, RunnerCode.RUN071,
                    "change feed " + expected.feed() + " is at " + now.map(r -> r.state().name().toLowerCase(
                    java.util.Locale.ROOT) + " " + r.position() + " (run " + r.runId() + ")").orElse("nothing")
                    + " in the ledger, and this run read it at " + expected.position() + ": another run "
                    + "applied its changes meanwhile; nothing of this batch was committed",
                    "run one process per change feed at a time; run again to go on from the ledger's position");
        }
    }
}

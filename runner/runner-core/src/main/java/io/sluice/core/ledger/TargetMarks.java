package io.sluice.core.ledger;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.ledger.StreamInRun;
import io.sluice.spi.ledger.StreamKey;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A target's marks for the stream of a run ({@link Ledger#loadMarks}): kept under their own prefix
 * ({@link Ledger#TARGET_MARKS}), so a target's names never meet the runner's.
 */
final class TargetMarks implements LoadMarks {
    /** How far back a fresh run looks for unfinished runs of its spec whose leftovers it must take over. */
    private static final int UNFINISHED_RUNS_LOOKED_AT = 50;

    private final Ledger ledger;
    private final LedgerStore store;
    private final StreamKey key;
    private final String specName;

    TargetMarks(Ledger ledger, LedgerStore store, StreamKey key, String specName) {
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.store = requireNonNull(store, "store is null");
        this.key = requireNonNull(key, "key is null");
        this.specName = requireNonNull(specName, "specName is null");
    }

    @Override
    public String runId() {
        return key.runId();
    }

    @Override
    public LedgerWork<java.util.Map<String, String>> reading() {
        return tx -> {
            java.util.Map<String, String> own = new java.util.TreeMap<>();
            tx.lockedMarks(key).orElseThrow(() -> ledger.notStarted(key)).forEach((name, value) -> {
                if (name.startsWith(Ledger.TARGET_MARKS)) {
                    own.put(name.substring(Ledger.TARGET_MARKS.length()), value);
                }
            });
            return own;
        };
    }

    @Override
    public LedgerWork<Void> writing(String name, String value) {
        return ledger.marking(key, Ledger.TARGET_MARKS + requireNonNull(name, "name is null"), value);
    }

    @Override
    public LedgerWork<java.util.OptionalLong> rowsDone() {
        return tx -> java.util.OptionalLong.of(tx.partitions(key).stream()
                .filter(p -> p.state() == LedgerPartition.State.DONE).mapToLong(LedgerPartition::rows).sum());
    }

    @Override
    public java.util.Map<String, java.util.Map<String, String>> unfinishedEarlier()
            throws ConnectorException {
        return earlier(false);
    }

    @Override
    public java.util.Map<String, java.util.Map<String, String>> ofUnfinishedEarlierRuns()
            throws ConnectorException {
        return earlier(true);
    }

    @Override
    public boolean ranBefore() {
        return !ledger.fresh();
    }

    /** The stream in earlier runs: read once (those runs do not change while this one loads). */
    private List<StreamInRun> earlierRuns;

    /** {@code wholeRuns}: a run counts when any stream of it is unfinished, not only this one. */
    private java.util.Map<String, java.util.Map<String, String>> earlier(boolean wholeRuns)
            throws ConnectorException {
        java.util.Map<String, java.util.Map<String, String>> earlier = new java.util.LinkedHashMap<>();
        if (ledger.unfinishedEarlier().map(java.util.Set::isEmpty).orElse(false)) {
            return earlier; // no run of the spec but this one is unfinished, as the run found before it began
        }
        List<StreamInRun> runs = earlierRuns;
        if (runs == null) {
            runs = store.streamInRuns(specName, key.stream(), UNFINISHED_RUNS_LOOKED_AT);
            earlierRuns = runs;
        }
        for (StreamInRun recorded : runs) {
            LedgerStream stream = recorded.stream();
            boolean unfinished = stream.state() != LedgerStream.State.DONE
                    || wholeRuns && recorded.runUnfinished();
            if (!stream.key().runId().equals(key.runId()) && unfinished) {
                java.util.Map<String, String> own = new java.util.TreeMap<>();
                store.marks(stream.key()).forEach((name, value) -> {
                    if (name.startsWith(Ledger.TARGET_MARKS)) {
                        own.put(name.substring(Ledger.TARGET_MARKS.length()), value);
                    }
                });
                earlier.put(stream.key().runId(), own);
            }
        }
        return earlier;
    }
}

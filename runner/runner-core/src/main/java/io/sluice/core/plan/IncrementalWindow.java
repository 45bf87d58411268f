package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.RowWindow;
import io.sluice.spi.Source;

import java.util.Optional;

/**
 * The rows an incremental stream's run reads: cursor above the high-water mark of the stream's last successful run
 * (from the ledger; none on the first run, or with {@code --full-refresh}), and at most the highest cursor value
 * when this run plans, so rows committed while it runs wait for the next one. A run records its window when it
 * starts ({@link #UP_TO}, {@link #AFTER}); only a run that ends done moves the mark.
 */
public final class IncrementalWindow {
    /** The mark of a run's window's upper end: the next run reads above it once this run is done. */
    public static final String UP_TO = "incremental.up-to";
    /** The mark of a run's window's lower end, when it had one. */
    public static final String AFTER = "incremental.after";

    private IncrementalWindow() {
    }

    static Optional<RowWindow> of(String specName, StreamSpec stream, Source source, Optional<Ledger> ledger,
                                  boolean fullRefresh, String where) throws ConnectorException {
        String cursor = stream.incremental().orElseThrow().cursor();
        if (ledger.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": an incremental stream "
                    + "remembers how far it read in the ledger, and the spec says ledger: off",
                    "remove ledger: off, or remove incremental: from the stream");
        }
        Optional<String> after = fullRefresh ? Optional.empty()
                : ledger.get().lastMark(specName, stream.name(), UP_TO);
        Optional<String> upTo = source.highestCursor(cursor);
        if (upTo.isEmpty()) {
            // No rows now: nothing above the mark either (the window reads nothing), or, without a mark, everything.
            return after.map(a -> new RowWindow(cursor, Optional.of(a), a));
        }
        return Optional.of(new RowWindow(cursor, after, upTo.get()));
    }
}

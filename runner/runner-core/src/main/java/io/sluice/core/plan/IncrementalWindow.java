package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.ledger.Ledger;
import io.sluice.core.spec.IncrementalSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.RowWindow;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.TableVersions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
    /**
     * The mark of the files a new-files stream has loaded once this run is done: one {@code id<TAB>version} line per
     * file, every earlier done run's included.
     */
    public static final String FILES = "incremental.files";

    /**
     * The mark of the table version a new-snapshots stream has loaded up to once this run is done, as the source's
     * {@link TableVersions#pinnedToken()} says it.
     */
    public static final String SNAPSHOT = "incremental.snapshot";

    /** A new-files stream's plan: the partitions (files) not loaded before, and the marks its run records. */
    record Files(List<PartitionPlan> kept, int skipped, Map<String, String> marks) {
    }

    private IncrementalWindow() {
    }

    static Optional<RowWindow> of(String specName, StreamSpec stream, Source source, Optional<Ledger> ledger,
                                  boolean fullRefresh, String where) throws ConnectorException {
        String cursor = stream.incremental().flatMap(IncrementalSpec::cursor).orElseThrow();
        if (ledger.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": an incremental stream "
                    + "remembers how far it read in the ledger, and the spec says ledger: off",
                    "remove ledger: off, or remove incremental: from the stream");
        }
        Optional<String> after = fullRefresh ? Optional.empty()
                : ledger.get().lastMark(specName, stream.name(), UP_TO);
        Optional<String> upTo = source.cursorReads().orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC,
                SpiCode.SPI006, source.describe() + " cannot load incrementally", "remove incremental: from the "
                + "stream")).highestCursor(cursor);
        if (upTo.isEmpty()) {
            // No rows now: nothing above the mark either (the window reads nothing), or, without a mark, everything.
            return after.map(a -> new RowWindow(cursor, Optional.of(a), a));
        }
        return Optional.of(new RowWindow(cursor, after, upTo.get()));
    }

    /** The marks a run of a cursor window records when it starts. */
    static Map<String, String> marks(RowWindow window) {
        Map<String, String> marks = new TreeMap<>();
        marks.put(UP_TO, window.upTo());
        window.after().ifPresent(a -> marks.put(AFTER, a));
        return marks;
    }

    /**
     * Skips the files a done run of the stream loaded (same partition id and version); every partition must carry a
     * version (one file each), else the plan is refused. With {@code fullRefresh} nothing is skipped.
     */
    static Files newFiles(String specName, StreamSpec stream, List<PartitionPlan> planned, StreamBinding binding,
                          Optional<Ledger> ledger, boolean fullRefresh, String where) throws ConnectorException {
        if (ledger.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": an incremental stream "
                    + "remembers what it loaded in the ledger, and the spec says ledger: off",
                    "remove ledger: off, or remove incremental: from the stream");
        }
        Set<String> loaded = new TreeSet<>();
        if (!fullRefresh) {
            ledger.get().lastMark(specName, stream.name(), FILES)
                    .ifPresent(m -> m.lines().filter(l -> !l.isBlank()).forEach(loaded::add));
        }
        Set<String> all = new TreeSet<>(loaded);
        List<PartitionPlan> kept = new ArrayList<>();
        for (PartitionPlan p : planned) {
            Optional<String> version = binding.partition(p).version();
            if (version.isEmpty()) {
                throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": partition " + p.id()
                        + " (" + p.predicate() + ") has no version, so new-files cannot tell whether it was loaded "
                        + "before", "read the files whole, one partition each (a files: source with method none)");
            }
            String line = p.id() + "\t" + version.get();
            all.add(line);
            if (!loaded.contains(line)) {
                kept.add(p.at(kept.size()));
            }
        }
        return new Files(kept, planned.size() - kept.size(), Map.of(FILES, String.join("\n", all)));
    }

    /**
     * Keeps the partitions (data files) that the table versions committed since the last done run's added: all of
     * them on the first run or with {@code fullRefresh}. The source refuses a history in between that did more than
     * append.
     */
    static Files newSnapshots(String specName, StreamSpec stream, List<PartitionPlan> planned, Source source,
                              Optional<Ledger> ledger, boolean fullRefresh, String where) throws ConnectorException {
        if (ledger.isEmpty()) {
            throw new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": an incremental stream "
                    + "remembers what it loaded in the ledger, and the spec says ledger: off",
                    "remove ledger: off, or remove incremental: from the stream");
        }
        TableVersions versions = source.tableVersions().orElseThrow(() -> new SluiceException(
                ErrorKind.INVALID_SPEC, RunnerCode.PLAN004, where + ": new-snapshots follows the versions of a table, "
                + "and " + source.describe() + " has none", "read an Iceberg or Delta table (iceberg: or delta:), "
                + "or use new-files: true for files, cursor: for rows of a table"));
        String pinned = versions.pinnedToken();
        Optional<String> loaded = fullRefresh ? Optional.empty()
                : ledger.get().lastMark(specName, stream.name(), SNAPSHOT);
        if (loaded.isEmpty()) {
            return new Files(planned, 0, Map.of(SNAPSHOT, pinned));
        }
        Set<String> before = versions.loadedBy(loaded.get());
        List<PartitionPlan> kept = new ArrayList<>();
        for (PartitionPlan p : planned) {
            if (!before.contains(p.id())) {
                kept.add(p.at(kept.size()));
            }
        }
        return new Files(kept, planned.size() - kept.size(), Map.of(SNAPSHOT, pinned));
    }
}

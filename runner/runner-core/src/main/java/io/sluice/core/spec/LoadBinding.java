package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The keys that go with a stream's {@code load-mode}, checked together: each only with the mode it belongs to, the
 * ones that need the ledger (a crash between their steps must be resumable) only with it, {@code delete-missing}
 * only on a stream that reads the whole source. What needs the target's catalog (a merge key with a unique index) is
 * the target's check at plan time.
 */
final class LoadBinding {
    private final ValueReader values;

    LoadBinding(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    /** {@code target}: the target's connector, when the connection is known (its capabilities are checked). */
    LoadSpec bind(StreamSettings merged, boolean ledger, Optional<IncrementalSpec> incremental, VerifyMode verify,
                  Optional<ConnectorFactory> target, Position streamAt, String where) {
        StreamSettings.LoadSettings load = merged.load();
        LoadMode mode = merged.loadMode().map(StreamSettings.Located::value).orElse(SpecKeys.DEFAULT_LOAD_MODE);
        Position modeAt = merged.loadMode().map(StreamSettings.Located::position).orElse(streamAt);
        String spelled = SpecKeys.spelling(mode);
        only(load.mergeKey(), SpecKeys.MERGE_KEY, mode, LoadMode.MERGE, where);
        only(load.onDuplicate(), SpecKeys.ON_DUPLICATE, mode, LoadMode.MERGE, where);
        only(load.deleteMissing(), SpecKeys.DELETE_MISSING, mode, LoadMode.MERGE, where);
        only(load.keepPrevious(), SpecKeys.KEEP_PREVIOUS, mode, LoadMode.REPLACE, where);
        boolean deleteMissing = load.deleteMissing().map(StreamSettings.Located::value).orElse(false);
        boolean rebuild = load.indexes().map(StreamSettings.Located::value).orElse(LoadRequest.Indexes.KEEP)
                == LoadRequest.Indexes.REBUILD;
        if (deleteMissing && mode == LoadMode.MERGE && incremental.isPresent()) {
            values.findings().error(SpecCode.SPEC028, load.deleteMissing().orElseThrow().position(), "'delete-missing' "
                    + where + " with 'incremental': an incremental run reads only the rows that changed, so every "
                    + "other row would count as missing and be deleted", "remove 'delete-missing', or 'incremental'");
        }
        if (incremental.isPresent() && (mode == LoadMode.TRUNCATE || mode == LoadMode.REPLACE)) {
            values.findings().error(SpecCode.SPEC028, modeAt, "'load-mode: " + spelled + "' " + where + " with "
                    + "'incremental': each run reads only what changed since the last one, and " + spelled + " would "
                    + "throw away every row but that", "use 'load-mode: append' or 'merge' with 'incremental'; to "
                    + "load everything again once, run with --full-refresh");
        }
        if (!ledger) {
            if (mode == LoadMode.REPLACE) {
                needsLedger(modeAt, "'load-mode: replace' " + where + " keeps its shadow table in the ledger, so a "
                        + "failed run is resumed or cleaned up");
            }
            if (rebuild) {
                needsLedger(load.indexes().orElseThrow().position(), "'indexes: rebuild' " + where + " keeps the "
                        + "dropped indexes' definitions in the ledger, so a crash never loses one");
            }
            if (deleteMissing && mode == LoadMode.MERGE) {
                needsLedger(load.deleteMissing().orElseThrow().position(), "'delete-missing' " + where + " keeps "
                        + "the keys the run saw next to the ledger until every partition is done");
            }
        }
        if (mode == LoadMode.MERGE && !deleteMissing && verify != VerifyMode.NONE) {
            values.findings().error(SpecCode.SPEC028, modeAt, "'load-mode: merge' with 'verify: "
                    + SpecKeys.spelling(verify) + "' " + where + ": a merge keeps the target's other rows, so the "
                    + "target cannot be compared with the source", "set 'verify: none', or 'delete-missing: true' "
                    + "when the stream reads the whole source");
        }
        if (mode == LoadMode.APPEND && verify == VerifyMode.COMPARE) {
            values.findings().error(SpecCode.SPEC028, modeAt, "'verify: compare' with 'load-mode: append' " + where
                    + ": an append keeps the target's earlier rows, so its rows cannot be compared with the source's",
                    "use 'verify: checksum' (it compares what the run added), or a load mode that leaves the target "
                            + "as the source: truncate, replace, or merge with delete-missing");
        }
        if (target.isPresent()) {
            TargetCapabilities can = target.get().targetCapabilities();
            if (verify == VerifyMode.COMPARE && !can.comparesRows()) {
                values.findings().error(SpecCode.SPEC029, modeAt, "'verify: compare' " + where + ": the "
                        + target.get().name() + " target cannot list its rows to compare them", "use 'verify: "
                        + "checksum' or 'verify: count'");
            }
            if (!can.supports(mode)) {
                values.findings().error(SpecCode.SPEC029, modeAt, "'load-mode: " + spelled + "' " + where + ": the "
                        + target.get().name() + " target cannot load that way", "use one of: " + String.join(", ",
                        can.loadModes().stream().sorted().map(SpecKeys::spelling).toList()));
            }
            if (rebuild && !can.rebuildsIndexes()) {
                values.findings().error(SpecCode.SPEC029, load.indexes().orElseThrow().position(), "'indexes: "
                        + "rebuild' " + where + ": the " + target.get().name() + " target cannot drop and build "
                        + "its indexes again", "remove 'indexes: rebuild'");
            }
        }
        SchemaChanges schemaChanges = load.schemaChanges().map(StreamSettings.Located::value)
                .orElse(SchemaChanges.FAIL);
        if (schemaChanges != SchemaChanges.FAIL) {
            Position at = load.schemaChanges().orElseThrow().position();
            String spelledPolicy = SpecKeys.spelling(schemaChanges);
            if (merged.columnMapping().orElse(ColumnMapping.NAME) == ColumnMapping.POSITION) {
                values.findings().error(SpecCode.SPEC028, at, "'schema-changes: " + spelledPolicy + "' " + where
                        + " with 'column-mapping: position': a column added or dropped in the source shifts every "
                        + "column after it, so changes are only told apart by name", "remove 'schema-changes', or "
                        + "use 'column-mapping: name'");
            }
            if (target.isPresent() && !target.get().targetCapabilities().schemaChanges().contains(schemaChanges)) {
                values.findings().error(SpecCode.SPEC029, at, "'schema-changes: " + spelledPolicy + "' " + where
                        + ": the " + target.get().name() + " target cannot change its tables' columns",
                        "use one of: " + String.join(", ", target.get().targetCapabilities().schemaChanges().stream()
                                .sorted().map(SpecKeys::spelling).toList()));
            }
        }
        if (mode == LoadMode.REPLACE && rebuild) {
            values.findings().warning(SpecCode.SPEC028, load.indexes().orElseThrow().position(), "'indexes: rebuild' "
                    + where + " changes nothing with 'load-mode: " + spelled + "': the new table's indexes are "
                    + "built after the load anyway", "remove 'indexes: rebuild'");
        }
        return new LoadSpec(mode, load.mergeKey().map(StreamSettings.Located::value).orElse(java.util.List.of()),
                load.onDuplicate().map(StreamSettings.Located::value).orElse(LoadRequest.OnDuplicate.ERROR),
                deleteMissing,
                load.keepPrevious().map(StreamSettings.Located::value).orElse(false),
                load.indexes().map(StreamSettings.Located::value).orElse(LoadRequest.Indexes.KEEP),
                load.resetSequences().map(StreamSettings.Located::value), schemaChanges);
    }

    private void only(Optional<? extends StreamSettings.Located<?>> setting, String key, LoadMode mode,
                      LoadMode belongsTo, String where) {
        if (setting.isPresent() && mode != belongsTo) {
            values.findings().error(SpecCode.SPEC028, setting.get().position(), "'" + key + "' " + where
                    + " goes with 'load-mode: " + SpecKeys.spelling(belongsTo) + "', and the stream's load mode is "
                    + SpecKeys.spelling(mode), "set 'load-mode: " + SpecKeys.spelling(belongsTo) + "', or remove '"
                    + key + "'");
        }
    }

    private void needsLedger(Position at, String what) {
        values.findings().error(SpecCode.SPEC028, at, what + ", and the spec says 'ledger: off'",
                "remove 'ledger: off'");
    }
}

package io.sluice.core.spec;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.read.IncrementalMode;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A stream's {@code incremental:} mapping ({@code cursor: EXPR} or {@code new-files: true}), checked against what the
 * stream's source can do, and with {@code verify:} off (it compares whole tables, a run loads a part).
 */
final class IncrementalBinding {
    private final ValueReader values;

    IncrementalBinding(ValueReader values) {
        this.values = requireNonNull(values, "values is null");
    }

    Optional<IncrementalSpec> bind(YamlNode.Mapping stream, Optional<ConnectorFactory> source, VerifyMode verify,
                                   String streamWhere) {
        Optional<YamlNode.Entry> entry = stream.entry(SpecKeys.INCREMENTAL);
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.get().value(), SpecKeys.INCREMENTAL, streamWhere);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        String where = ValueReader.nested(SpecKeys.INCREMENTAL, streamWhere);
        YamlNode.Mapping m = mapping.get();
        values.rejectUnknownKeys(m, SpecKeys.INCREMENTAL_KEYS, where);
        if (verify != VerifyMode.NONE) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "'incremental' with 'verify: "
                    + verify.name().toLowerCase(Locale.ROOT) + "' " + streamWhere + ": verify compares the "
                    + "whole table with the source, an incremental run loads only a part of it",
                    "set 'verify: none' on this stream");
        }
        Optional<String> cursor = m.get(SpecKeys.CURSOR).flatMap(n -> values.string(n, SpecKeys.CURSOR, where));
        boolean newFiles = m.get(SpecKeys.NEW_FILES).flatMap(n -> values.bool(n, SpecKeys.NEW_FILES, where))
                .orElse(false);
        boolean newSnapshots = m.get(SpecKeys.NEW_SNAPSHOTS).flatMap(n -> values.bool(n, SpecKeys.NEW_SNAPSHOTS,
                where)).orElse(false);
        List<String> kinds = new java.util.ArrayList<>();
        cursor.ifPresent(c -> kinds.add("'" + SpecKeys.CURSOR + "'"));
        if (newFiles) {
            kinds.add("'" + SpecKeys.NEW_FILES + "'");
        }
        if (newSnapshots) {
            kinds.add("'" + SpecKeys.NEW_SNAPSHOTS + "'");
        }
        if (kinds.size() > 1) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "'incremental' " + streamWhere
                    + " sets " + String.join(" and ", kinds), "keep one: cursor for rows of a table or query, "
                    + "new-files for files, new-snapshots for an Iceberg or Delta table");
            return Optional.empty();
        }
        if (kinds.isEmpty()) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "'incremental' " + streamWhere
                    + " says neither how rows grow ('cursor') nor that files ('new-files: true') or table versions "
                    + "('new-snapshots: true') are added",
                    "write cursor: <a column of the source whose values only grow, e.g. updated_at>, "
                            + "new-files: true for a source of files, or new-snapshots: true for an Iceberg or Delta "
                            + "table");
            return Optional.empty();
        }
        if (cursor.isPresent() && cursor.get().isBlank()) {
            values.findings().error(SpecCode.SPEC027, m.get(SpecKeys.CURSOR).orElseThrow().position(), "'cursor' is "
                    + "empty " + where, "name a column of the source whose values only grow, e.g. updated_at");
            return Optional.empty();
        }
        IncrementalMode mode = newFiles ? IncrementalMode.NEW_FILES : newSnapshots ? IncrementalMode.NEW_SNAPSHOTS
                : IncrementalMode.CURSOR;
        IncrementalSpec spec = new IncrementalSpec(cursor, mode, entry.get().keyPosition());
        if (source.isPresent() && !source.get().sourceCapabilities().supports(spec.mode())) {
            values.findings().error(SpecCode.SPEC027, entry.get().keyPosition(), "connector '" + source.get().name()
                    + "' cannot load incrementally by " + (newFiles ? "new files" : newSnapshots ? "new snapshots"
                    : "cursor") + " " + streamWhere,
                    newFiles ? "new-files is for sources of files (duckdb with files:); for a table use cursor"
                            : newSnapshots ? "new-snapshots is for Iceberg and Delta tables (duckdb with iceberg: "
                            + "or delta:); for a table of a database use cursor"
                            : "cursor is for table and query sources (postgres); for files use new-files: true");
        }
        return Optional.of(spec);
    }
}

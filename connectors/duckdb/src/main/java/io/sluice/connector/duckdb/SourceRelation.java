package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK001;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK002;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK003;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK004;
import static java.util.Objects.requireNonNull;

/**
 * What a stream reads: a user query, a {@code files:} glob (local paths resolved against the spec's folder) read
 * with the table function of its format, or an Iceberg or Delta table ({@code table}), whose query exists only once
 * the table's version is pinned ({@link #pinned}).
 */
record SourceRelation(String query, Optional<String> glob, Optional<String> format, Optional<LakeTable> table,
                      Optional<LakeTable.Pin> pin) {
    SourceRelation {
        requireNonNull(query, "query is null");
        requireNonNull(glob, "glob is null");
        requireNonNull(format, "format is null");
        requireNonNull(table, "table is null");
        requireNonNull(pin, "pin is null");
    }

    SourceRelation(String query, Optional<String> glob, Optional<String> format) {
        this(query, glob, format, Optional.empty(), Optional.empty());
    }

    /** The keys that say what a source reads; a source sets exactly one. */
    static final List<Option<String>> WHAT = List.of(DuckDbOptions.QUERY, DuckDbOptions.FILES,
            DuckDbOptions.ICEBERG, DuckDbOptions.DELTA);

    static SourceRelation from(Options options, DuckDbSettings settings) throws ConnectorException {
        Optional<String> query = options.find(DuckDbOptions.QUERY).filter(v -> !v.isBlank());
        Optional<String> files = options.find(DuckDbOptions.FILES).filter(v -> !v.isBlank());
        Optional<String> iceberg = options.find(DuckDbOptions.ICEBERG).filter(v -> !v.isBlank());
        Optional<String> delta = options.find(DuckDbOptions.DELTA).filter(v -> !v.isBlank());
        long set = java.util.stream.Stream.of(query, files, iceberg, delta).filter(Optional::isPresent).count();
        if (set != 1) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK001,
                    "a duckdb source needs exactly one of query, files, iceberg or delta (connection "
                            + settings.connectionName() + ")", "set query: to DuckDB SQL, files: to a glob such as "
                            + "data/*.parquet, or iceberg:/delta: to a table's folder");
        }
        for (Option<?> tableOnly : List.of(DuckDbOptions.VERSION, DuckDbOptions.WHERE)) {
            if (options.isSet(tableOnly) && iceberg.isEmpty() && delta.isEmpty()) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK004, tableOnly.key() + " applies to "
                        + "iceberg: and delta: tables", "remove " + tableOnly.key() + ", or read a table with iceberg: "
                        + "or delta:" + (tableOnly == DuckDbOptions.WHERE ? " (a query: source filters in its SQL)"
                        : ""));
            }
        }
        if ((iceberg.isPresent() || delta.isPresent()) && options.isSet(DuckDbOptions.FORMAT)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK002, "format applies to files:, not to "
                    + (iceberg.isPresent() ? "iceberg:" : "delta:"), "remove format: the table says its own");
        }
        if (iceberg.isPresent() || delta.isPresent()) {
            LakeTable table = new LakeTable(iceberg.isPresent() ? LakeTable.Format.ICEBERG : LakeTable.Format.DELTA,
                    settings.resolvePath(iceberg.or(() -> delta).orElseThrow()),
                    options.find(DuckDbOptions.VERSION).map(OptionalLong::of).orElse(OptionalLong.empty()),
                    options.find(DuckDbOptions.WHERE).filter(w -> !w.isBlank()).map(Sql::stripTerminator));
            return new SourceRelation("", Optional.empty(), Optional.empty(), Optional.of(table), Optional.empty());
        }
        if (query.isPresent()) {
            if (options.isSet(DuckDbOptions.FORMAT)) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK002, "format applies to files:, not query:",
                        "remove format, or name the format in the query, e.g. read_csv('...')");
            }
            return new SourceRelation(Sql.stripTerminator(query.get()), Optional.empty(), Optional.empty());
        }
        String glob = settings.resolvePath(files.get());
        String format = options.find(DuckDbOptions.FORMAT).orElse(null);
        if (format == null) {
            format = formatOf(glob).orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC, DUCK003,
                    "cannot tell the format of files " + files.get() + " from its extension",
                    "add format: parquet, csv or json"));
        }
        return new SourceRelation(read(format, glob), Optional.of(glob), Optional.of(format));
    }

    static Optional<String> formatOf(String path) {
        String p = path.toLowerCase(Locale.ROOT);
        for (String suffix : new String[] {".gz", ".zst", ".zstd"}) {
            if (p.endsWith(suffix)) {
                p = p.substring(0, p.length() - suffix.length());
            }
        }
        if (p.endsWith(".parquet") || p.endsWith(".parq")) {
            return Optional.of("parquet");
        }
        if (p.endsWith(".csv") || p.endsWith(".tsv") || p.endsWith(".txt")) {
            return Optional.of("csv");
        }
        if (p.endsWith(".json") || p.endsWith(".jsonl") || p.endsWith(".ndjson")) {
            return Optional.of("json");
        }
        return Optional.empty();
    }

    /** A query reading {@code path} (a glob or one file) in {@code format}. */
    static String read(String format, String path) {
        String function = switch (format) {
            case "parquet" -> "read_parquet";
            case "csv" -> "read_csv";
            case "json" -> "read_json";
            default -> throw new IllegalArgumentException("unknown format: " + format);
        };
        return "SELECT * FROM " + function + "(" + Sql.literal(path) + ")";
    }

    boolean isFiles() {
        return glob.isPresent();
    }

    /** This table relation read at {@code pin}: its query is the pinned scan. */
    SourceRelation pinned(LakeTable.Pin pin) {
        return new SourceRelation(pin.query(), glob, format, table, Optional.of(pin));
    }

    /** A table relation whose version is not fixed yet: it has no query to run. */
    boolean needsPin() {
        return table.isPresent() && pin.isEmpty();
    }

    /** The relation restricted to one file of a files: glob. */
    String forFile(String file) {
        return read(format.orElseThrow(), file);
    }

    /** For describe(): the glob or the query. */
    String describe() {
        if (pin.isPresent()) {
            return pin.get().describe();
        }
        if (table.isPresent()) {
            return table.get().format().key + " table " + table.get().folder();
        }
        return glob.map(g -> "files " + g).orElse("query " + query);
    }
}

package io.sluice.connector.duckdb;

import io.sluice.spi.Options;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.util.Locale;
import java.util.Optional;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK001;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK002;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK003;
import static java.util.Objects.requireNonNull;

/**
 * What a stream reads: a user query, or a {@code files:} glob (local paths resolved against the spec's folder) read
 * with the table function of its format.
 */
record SourceRelation(String query, Optional<String> glob, Optional<String> format) {
    SourceRelation {
        requireNonNull(query, "query is null");
        requireNonNull(glob, "glob is null");
        requireNonNull(format, "format is null");
    }

    static SourceRelation from(Options options, DuckDbSettings settings) throws ConnectorException {
        Optional<String> query = options.find(DuckDbOptions.QUERY).filter(v -> !v.isBlank());
        Optional<String> files = options.find(DuckDbOptions.FILES).filter(v -> !v.isBlank());
        if (query.isPresent() == files.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK001,
                    "a duckdb source needs exactly one of query or files (connection " + settings.connectionName()
                            + ")", "set query: to DuckDB SQL, or files: to a glob such as data/*.parquet");
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

    /** The relation restricted to one file of a files: glob. */
    String forFile(String file) {
        return read(format.orElseThrow(), file);
    }

    /** For describe(): the glob or the query. */
    String describe() {
        return glob.map(g -> "files " + g).orElse("query " + query);
    }
}

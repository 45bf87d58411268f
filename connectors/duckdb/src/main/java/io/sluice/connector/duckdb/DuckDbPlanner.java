package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PlanRequest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static io.sluice.connector.duckdb.DuckDbCode.DUCK010;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK011;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK012;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK013;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK014;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK015;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK016;
import static io.sluice.connector.duckdb.DuckDbCode.DUCK101;
import static java.util.Objects.requireNonNull;

/**
 * Splits a DuckDB stream into partitions. Each partition runs the whole query (DuckDB has no row address like
 * PostgreSQL's ctid), so keyed methods make {@code degree} partitions, not one per batch: more would scan the input
 * more often. Files are the exception: one partition per file reads each file once.
 */
final class DuckDbPlanner {
    private final SourceRelation relation;
    private final List<Column> columns;
    private final List<String> notes;

    DuckDbPlanner(SourceRelation relation, List<Column> columns, List<String> notes) {
        this.relation = requireNonNull(relation, "relation is null");
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
        this.notes = requireNonNull(notes, "notes is null");
    }

    List<DuckDbPartition> plan(Connection connection, PlanRequest request) throws SQLException, ConnectorException {
        Distribution distribution = request.distribution();
        int n = request.degree();
        return switch (distribution.method()) {
            case NONE -> relation.pin().isPresent() ? tableFiles(connection, relation.pin().get(), request)
                    : relation.isFiles() ? perFile(connection, relation.glob().orElseThrow(), relation::forFile)
                    : List.of(new DuckDbPartition("all", "the whole query", relation.query(), Optional.empty(), -1, -1,
                            false));
            case DATA_DRIVEN -> dataDriven(connection, distribution);
            case RANGE -> bounded(connection, key(distribution), "range", rangeBoundaries(connection,
                    key(distribution), n));
            case NTILE -> bounded(connection, key(distribution), "ntile", ntileBoundaries(connection,
                    key(distribution), n));
            case MODULO -> modulo(connection, key(distribution), n);
            case CTID -> throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK010,
                    "ctid distribution is PostgreSQL's; a DuckDB source has no ctid",
                    "use data-driven (per file), range, ntile or modulo");
        };
    }

    /**
     * One partition per data file of the pinned table version, each read through the table's own scan filtered on
     * the file (DuckDB then opens only that file, and applies the format's deletes to it): the rows per file are
     * counted the same way, so each count is exact and a shorter read fails its partition. Small files are read
     * together (see {@link TableFileGroups}) unless the runner tells partitions apart by file.
     */
    private List<DuckDbPartition> tableFiles(Connection connection, LakeTable.Pin pin, PlanRequest request)
            throws SQLException, ConnectorException {
        Map<String, LakeTable.FileRows> files = pin.fileRows(connection);
        LakeManifest manifest = LakeManifest.read(connection, pin);
        String checked = manifest.check(pin, files);
        Map<String, Long> kept = new LinkedHashMap<>();
        files.forEach((file, rows) -> {
            if (rows.kept() > 0) { // where: may keep none of a file's rows
                kept.put(file, rows.kept());
            }
        });
        TableFileGroups groups = request.filesApart() ? TableFileGroups.oneEach(kept)
                : TableFileGroups.of(kept, request.degree());
        List<DuckDbPartition> partitions = new ArrayList<>();
        long rows = 0;
        for (List<String> group : groups.groups()) {
            long groupRows = 0;
            long bytes = 0;
            for (String file : group) {
                groupRows += kept.get(file);
                long size = localBytes(file);
                bytes = bytes < 0 || size < 0 ? -1 : bytes + size;
            }
            rows += groupRows;
            String id = "file:" + pin.table().relative(group.get(0)) + (group.size() == 1 ? ""
                    : "+" + (group.size() - 1));
            partitions.add(DuckDbPartition.of(id, new LakeTable.PinnedFiles(pin, group), groupRows, bytes));
        }
        notes.add(pin.describe() + ": " + manifest.describe() + "; " + kept.size() + " with rows to load, "
                + rows + " rows after deletes; " + (partitions.size() == kept.size() ? "one partition per data file"
                : partitions.size() + " partitions (small files read together, up to " + groups.rowsPerGroup()
                + " rows each)") + ", each read through the table's scan (deletes applied); " + checked);
        if (partitions.isEmpty()) {
            partitions.add(new DuckDbPartition("all", "the whole table", pin.query(), Optional.empty(), 0, -1,
                    false));
        }
        return partitions;
    }

    private interface FileQuery {
        String forFile(String file) throws ConnectorException;
    }

    private List<DuckDbPartition> perFile(Connection connection, String glob, FileQuery query)
            throws SQLException, ConnectorException {
        List<String> files = strings(connection, "SELECT file FROM glob(" + Sql.literal(glob) + ") ORDER BY file");
        if (files.isEmpty()) {
            throw noMatch(glob);
        }
        Map<String, Long> rows = parquetRows(connection, files);
        Map<String, String> versions = fileVersions(connection, glob);
        List<DuckDbPartition> partitions = new ArrayList<>();
        for (String file : files) {
            DuckDbPartition p = filePartition(glob, file, query.forFile(file), "file " + file, rows, true);
            Optional<String> version = Optional.ofNullable(versions.get(file));
            if (version.isEmpty() && !versions.isEmpty()) {
                // Listed by glob() a moment ago, missing from the second listing: gone, or going, while planning.
                version = FileVersion.of(connection, file);
                if (version.isEmpty()) {
                    throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK101, "file " + file + " of " + glob
                            + " vanished while the run was planning (listed, then gone); nothing was read",
                            "run again once the landing folder is settled (a writer that replaces files should "
                                    + "write them under a temporary name and rename them into the glob)");
                }
            }
            partitions.add(new DuckDbPartition(p.id(), p.predicate(), p.relation(), p.file(), p.estimatedRows(),
                    p.estimatedBytes(), p.wholeFile(), version));
        }
        requireAgreeingFiles(connection, glob, partitions);
        return partitions;
    }

    /**
     * Each file of a glob is read on its own, cast to the types DuckDB describes for the glob (a Parquet glob's first
     * file's, a CSV glob's sniffed across files): a
     * later file with a column the first lacks would lose it, one that lacks a column would not read, and one whose
     * type the cast could round or cut (DECIMAL(18,4) into DECIMAL(10,2), DOUBLE into BIGINT) would change values
     * silently. Every such file is refused before anything is read, whatever the files' order.
     */
    private void requireAgreeingFiles(Connection connection, String glob, List<DuckDbPartition> partitions)
            throws SQLException, ConnectorException {
        Map<String, DuckDbType> expected = new java.util.LinkedHashMap<>();
        columns.forEach(c -> expected.put(c.name(), DuckDbType.parse(c.typeName())));
        List<String> problems = new ArrayList<>();
        for (DuckDbPartition partition : partitions) {
            if (partition.file().isEmpty()) {
                continue;
            }
            String file = partition.file().get();
            Map<String, DuckDbType> found = new java.util.LinkedHashMap<>();
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("DESCRIBE " + partition.relation())) {
                while (rs.next()) {
                    found.put(rs.getString("column_name"), DuckDbType.parse(rs.getString("column_type")));
                }
            } catch (SQLException e) {
                continue; // an unreadable file: its partition's read reports it, naming the file, as before
            }
            for (Map.Entry<String, DuckDbType> column : found.entrySet()) {
                DuckDbType wanted = expected.get(column.getKey());
                if (wanted == null) {
                    problems.add(file + " has column " + column.getKey() + " (" + column.getValue() + "), which the "
                            + "glob's description lacks: it would not be loaded");
                } else if (!column.getValue().castsLosslesslyTo(wanted)) {
                    problems.add("column " + column.getKey() + " is " + column.getValue() + " in " + file + " but "
                            + wanted + " in the glob's description: the cast could round or cut its values");
                }
            }
            for (String name : expected.keySet()) {
                if (!found.containsKey(name)) {
                    problems.add(file + " lacks column " + name + " (" + expected.get(name) + ")");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK016, "the files of " + glob + " disagree, and "
                    + "reading each as the first file's types would change or drop values: " + String.join("; ",
                    problems.subList(0, Math.min(10, problems.size()))) + (problems.size() > 10 ? "; and "
                    + (problems.size() - 10) + " more" : "") + "; nothing was read", "make the files agree, or read "
                    + "them with a query: source, e.g. SELECT CAST(col AS <a type that holds both>) ... FROM "
                    + "read_parquet('" + glob + "', union_by_name = true), which fills a missing column with NULL");
        }
    }

    /**
     * Each file's size and modification time, {@code <bytes>@<time>}, from the file listing (local disk or the S3
     * listing; {@code read_blob} without its content column reads no file): what tells an incremental
     * {@code new-files} stream that a file of a known name was rewritten. Empty where the listing says nothing.
     */
    private static Map<String, String> fileVersions(Connection connection, String glob) {
        Map<String, String> versions = new HashMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT filename, size, last_modified FROM read_blob("
                     + Sql.literal(glob) + ")")) {
            while (rs.next()) {
                String file = rs.getString(1);
                // A local file's own time keeps its full precision: a same-second, same-size rewrite is new too.
                versions.put(file, file.contains("://") ? rs.getLong(2) + "@" + rs.getString(3)
                        : FileVersion.local(Path.of(file)).orElse(rs.getLong(2) + "@" + rs.getString(3)));
            }
        } catch (SQLException | RuntimeException e) {
            return Map.of(); // no versions: a new-files stream refuses the plan, naming the glob
        }
        return versions;
    }

    /**
     * Row counts of Parquet files from their footers (one query for all files; on S3 a small read per file), for
     * the plan's estimates, the largest-first order and the ETA. Empty where a file is not Parquet or a footer
     * cannot be read: the partition's read then reports that file's problem itself.
     */
    private static Map<String, Long> parquetRows(Connection connection, List<String> files) {
        if (files.isEmpty() || !files.stream().allMatch(f -> f.toLowerCase(Locale.ROOT).endsWith(".parquet"))) {
            return Map.of();
        }
        String list = files.stream().map(Sql::literal).collect(Collectors.joining(", ", "[", "]"));
        Map<String, Long> rows = new HashMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT file_name, num_rows FROM parquet_file_metadata(" + list + ")")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException | RuntimeException e) {
            return Map.of(); // only estimates
        }
        return rows;
    }

    private DuckDbPartition filePartition(String glob, String file, String sql, String predicate,
                                          Map<String, Long> rows, boolean wholeFile) {
        return new DuckDbPartition("file:" + relativeTo(glob, file), predicate, sql, Optional.of(file),
                rows.getOrDefault(file, -1L), localBytes(file), wholeFile);
    }

    /** A local file's size (also as a {@code file://} URL), an estimate for scheduling; -1 remote or unknown. */
    private static long localBytes(String file) {
        String local = file.startsWith("file://") ? file.substring("file://".length()) : file;
        if (local.contains("://")) {
            return -1;
        }
        try {
            return Files.size(Path.of(local));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private List<DuckDbPartition> dataDriven(Connection connection, Distribution distribution)
            throws SQLException, ConnectorException {
        String key = distribution.key().orElseThrow(() -> missing("data-driven needs a key"));
        String valuesQuery = Sql.stripTerminator(distribution.valuesQuery().orElseThrow(() -> missing(
                "data-driven on a DuckDB source needs a values-query, e.g. select file from glob('data/*.parquet')")));
        List<String> values = strings(connection, valuesQuery);
        if (values.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, DUCK012, "values-query returned no values: "
                    + valuesQuery, "check the values-query (for files: does the glob match anything?)");
        }
        boolean fileKey = unquoted(key).equalsIgnoreCase("filename");
        Optional<PerFileRewrite> rewrite = PerFileRewrite.analyze(relation.query(), key);
        if (!values.contains(null) && (rewrite.isPresent() || (relation.isFiles() && fileKey))) {
            String glob = rewrite.map(PerFileRewrite::glob).orElseGet(() -> relation.glob().orElseThrow());
            notes.add("data-driven on " + key + ": each partition reads only its file (the glob literal of the "
                    + "query is replaced by the file)");
            Map<String, Long> rows = parquetRows(connection, values);
            List<DuckDbPartition> partitions = new ArrayList<>();
            for (String file : values) {
                String sql = rewrite.isPresent() ? rewrite.get().forFile(file) : relation.forFile(file);
                // a rewritten query may filter its file's rows: only a files: relation reads a file whole
                partitions.add(filePartition(glob, file, sql, "file " + file, rows, relation.isFiles()));
            }
            requireAgreeingFiles(connection, glob, partitions);
            return partitions;
        }
        KeyColumn k = keyColumn(connection, key);
        notes.add("data-driven on " + key + ": each partition filters the whole query with WHERE " + k.sql
                + " = <value> (the per-file rewrite needs read_parquet('<glob>', filename=true) and key filename)");
        List<DuckDbPartition> partitions = new ArrayList<>();
        for (String value : values) {
            String predicate = value == null ? k.sql + " IS NULL" : k.sql + " = " + k.literal(value);
            partitions.add(filtered("value:" + (value == null ? "null" : value), predicate));
        }
        return partitions;
    }

    private List<DuckDbPartition> modulo(Connection connection, String key, int n)
            throws SQLException, ConnectorException {
        KeyColumn k = keyColumn(connection, key);
        if (!k.type.isInteger()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK013, "modulo needs an integer key; " + key
                    + " is " + k.type, "use range or ntile, or an integer expression such as hash(" + key + ")");
        }
        List<DuckDbPartition> partitions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // ((k % n) + n) % n keeps negative keys in 0..n-1
            partitions.add(filtered("modulo:" + i + "/" + n, "((" + k.sql + " % " + n + ") + " + n + ") % " + n
                    + " = " + i));
        }
        partitions.add(filtered("modulo:null", k.sql + " IS NULL"));
        return partitions;
    }

    private List<String> rangeBoundaries(Connection connection, String key, int n)
            throws SQLException, ConnectorException {
        KeyColumn k = keyColumn(connection, key);
        String step = "(mx - mn) * i / " + n;
        String boundary = switch (k.type.kind()) {
            case DATE -> "mn + CAST(" + step + " AS INTEGER)";
            case TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS, TIMESTAMP_TZ ->
                    "make_timestamp(CAST(epoch_us(mn) + (epoch_us(mx) - epoch_us(mn)) * i / " + n + " AS BIGINT))";
            default -> {
                if (!k.type.isInteger() && k.type.kind() != DuckDbType.Kind.DECIMAL
                        && k.type.kind() != DuckDbType.Kind.FLOAT && k.type.kind() != DuckDbType.Kind.DOUBLE) {
                    throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK014, "range needs a number, date or "
                            + "timestamp key; " + key + " is " + k.type, "use ntile, which works on any ordered type");
                }
                yield "mn + " + step;
            }
        };
        return strings(connection, "SELECT CAST(b AS VARCHAR) FROM (SELECT DISTINCT CAST(" + boundary + " AS "
                + k.type.sql() + ") AS b FROM (SELECT min(" + k.sql + ") AS mn, max(" + k.sql + ") AS mx FROM ("
                + relation.query() + ") AS sluice_q), range(1, " + n + ") AS t(i) WHERE mn IS NOT NULL) ORDER BY b");
    }

    private List<String> ntileBoundaries(Connection connection, String key, int n)
            throws SQLException, ConnectorException {
        KeyColumn k = keyColumn(connection, key);
        StringBuilder fractions = new StringBuilder();
        for (int i = 1; i < n; i++) {
            fractions.append(i == 1 ? "" : ", ").append((double) i / n);
        }
        if (n == 1) {
            return List.of();
        }
        return strings(connection, "SELECT CAST(b AS VARCHAR) FROM (SELECT DISTINCT unnest(quantile_disc(" + k.sql
                + ", [" + fractions + "])) AS b FROM (" + relation.query() + ") AS sluice_q) WHERE b IS NOT NULL "
                + "ORDER BY b");
    }

    /** Contiguous predicates over sorted boundaries, plus one partition for NULL keys. */
    private List<DuckDbPartition> bounded(Connection connection, String key, String method, List<String> bounds)
            throws SQLException, ConnectorException {
        KeyColumn k = keyColumn(connection, key);
        List<DuckDbPartition> partitions = new ArrayList<>();
        int parts = bounds.size() + 1;
        for (int i = 0; i < parts; i++) {
            String lower = i == 0 ? null : k.sql + " >= " + k.literal(bounds.get(i - 1));
            String upper = i == parts - 1 ? null : k.sql + " < " + k.literal(bounds.get(i));
            String predicate = lower == null && upper == null ? k.sql + " IS NOT NULL"
                    : lower == null ? upper : upper == null ? lower : lower + " AND " + upper;
            partitions.add(filtered(method + ":" + (i + 1) + "/" + parts, predicate));
        }
        partitions.add(filtered(method + ":null", k.sql + " IS NULL"));
        return partitions;
    }

    private DuckDbPartition filtered(String id, String predicate) {
        String sql = "SELECT * FROM (" + relation.query() + ") AS sluice_p WHERE " + predicate;
        return new DuckDbPartition(id, predicate, sql, Optional.empty(), -1, -1, false);
    }

    /** The key as SQL over the query's columns (a column name or an expression) and its DuckDB type. */
    private record KeyColumn(String sql, DuckDbType type) {
        String literal(String value) {
            return type.kind() == DuckDbType.Kind.VARCHAR ? Sql.literal(value)
                    : "CAST(" + Sql.literal(value) + " AS " + type.sql() + ")";
        }
    }

    private KeyColumn keyColumn(Connection connection, String key) throws SQLException, ConnectorException {
        String bare = unquoted(key);
        for (Column column : columns) {
            if (column.name().equalsIgnoreCase(bare)) {
                return new KeyColumn(Sql.identifier(column.name()), DuckDbType.parse(column.typeName()));
            }
        }
        String expression = "(" + key + ")";
        List<String> type = strings(connection, "SELECT column_type FROM (DESCRIBE SELECT " + expression
                + " FROM (" + relation.query() + ") AS sluice_q)");
        if (type.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, DUCK015, "key " + key
                    + " is neither a column of the query nor an expression over its columns",
                    "use one of: " + columns.stream().map(Column::name).toList());
        }
        return new KeyColumn(expression, DuckDbType.parse(type.get(0)));
    }

    private static String unquoted(String key) {
        String k = key.strip();
        return k.length() >= 2 && k.startsWith("\"") && k.endsWith("\"") ? k.substring(1, k.length() - 1) : k;
    }

    private String key(Distribution distribution) throws ConnectorException {
        return distribution.key().orElseThrow(() -> missing(distribution.method().specName() + " needs a key"));
    }

    private static ConnectorException missing(String what) {
        return new ConnectorException(ErrorKind.INVALID_SPEC, DUCK011, what, "add it to the stream's distribution");
    }

    static ConnectorException noMatch(String glob) {
        return new ConnectorException(ErrorKind.PREFLIGHT, DUCK101, "no file matches " + glob,
                "check the path or glob; relative paths resolve against the spec's folder");
    }

    /** The first column of every row, as text (NULL stays null). */
    static List<String> strings(Connection connection, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    /** A file's name relative to the glob's fixed folder, for stable short partition ids. */
    static String relativeTo(String glob, String file) {
        int wildcard = indexOfWildcard(glob);
        String prefix = glob.substring(0, wildcard < 0 ? glob.length() : wildcard);
        int slash = prefix.lastIndexOf('/');
        String folder = slash < 0 ? "" : prefix.substring(0, slash + 1);
        return !folder.isEmpty() && file.startsWith(folder) ? file.substring(folder.length()) : file;
    }

    private static int indexOfWildcard(String glob) {
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '{') {
                return i;
            }
        }
        return -1;
    }
}

// Over 450 lines: the whole MySQL source, until it is a dialect of the JDBC connector.
package io.sluice.connector.mysql;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.plan.KeyBuckets;
import io.sluice.toolkit.plan.KeyRanges;
import io.sluice.toolkit.plan.KeyValues;

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** A MySQL/MariaDB table or query as the source of a stream. */
final class MySqlSource implements Source {
    /** Rows the driver hands over per round trip while a reader streams (never the whole result in memory). */
    static final int FETCH_ROWS = 4096;

    private final MySqlSettings settings;
    private final Optional<String> database;
    private final Optional<String> table;
    private final Optional<String> query;
    private volatile Map<String, MySqlType> types;
    private volatile List<Column> columns;
    /** The degree of the last plan: a snapshot session opens that many readers' connections up front. */
    private volatile int degree = 1;

    MySqlSource(MySqlSettings settings, Optional<String> database, Optional<String> table, Optional<String> query) {
        this.settings = requireNonNull(settings, "settings is null");
        this.database = requireNonNull(database, "database is null");
        this.table = requireNonNull(table, "table is null");
        this.query = requireNonNull(query, "query is null");
        if (table.isPresent() == query.isPresent()) {
            throw new IllegalArgumentException("exactly one of table and query");
        }
    }

    @Override
    public String describe() {
        return table.map(t -> "table " + qualified()).orElse("query");
    }

    /** {@code `db`.`t`} for a table source. */
    String qualified() {
        String name = table.orElseThrow();
        int dot = name.indexOf('.');
        if (dot > 0) {
            return quote(name.substring(0, dot)) + "." + quote(name.substring(dot + 1));
        }
        return database.map(d -> quote(d) + ".").orElse("") + quote(name);
    }

    static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /** What a reader selects from: the table, or the query as a derived table. */
    String relation() {
        return table.map(t -> qualified()).orElseGet(() -> "(" + query.orElseThrow() + ") AS sluice_q");
    }

    boolean isTable() {
        return table.isPresent();
    }

    @Override
    public List<Column> columns() throws ConnectorException {
        List<Column> known = columns;
        if (known != null) {
            return known;
        }
        Map<String, MySqlType> described = new LinkedHashMap<>();
        List<Column> list = new ArrayList<>();
        try (Connection c = settings.connect(); Statement s = c.createStatement()) {
            String from = qualified0(s);
            Set<String> json = jsonColumns(c);
            try (ResultSet rs = s.executeQuery("SHOW FULL COLUMNS FROM " + from)) {
                while (rs.next()) {
                    String name = rs.getString("Field");
                    MySqlType type = MySqlType.parse(rs.getString("Type"), json.contains(name));
                    if (!type.known()) {
                        throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY202, describe()
                                + ": column " + name + " is " + type.declared() + ", which Sluice does not carry",
                                "leave the column out (columns: with a list), or cast it in a query: source");
                    }
                    described.put(name, type);
                    list.add(new Column(name, type.declared(), 0, "YES".equals(rs.getString("Null")),
                            Column.Generation.NONE));
                }
            }
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot describe " + describe(), settings.redactor());
        }
        types = described;
        columns = List.copyOf(list);
        return columns;
    }

    /** The table, or a temporary table with the query's columns (SHOW COLUMNS then reads both alike). */
    private String qualified0(Statement s) throws SQLException {
        if (table.isPresent()) {
            return qualified();
        }
        s.execute("CREATE TEMPORARY TABLE sluice_describe AS SELECT * FROM (" + query.orElseThrow()
                + ") AS sluice_q LIMIT 0");
        return "sluice_describe";
    }

    /** MariaDB's JSON is a longtext checked by json_valid: the checks tell which columns are JSON. */
    private Set<String> jsonColumns(Connection c) throws SQLException {
        Set<String> json = new HashSet<>();
        if (table.isEmpty()) {
            return json;
        }
        String schema = schema().orElse(null);
        String bare = bareName();
        try (PreparedStatement p = c.prepareStatement("SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                + "WHERE CONSTRAINT_SCHEMA = coalesce(?, DATABASE()) AND TABLE_NAME = ?")) {
            p.setString(1, schema);
            p.setString(2, bare);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^json_valid\\(`([^`]+)`\\)$")
                            .matcher(rs.getString(1).trim());
                    if (m.matches()) {
                        json.add(m.group(1));
                    }
                }
            }
        } catch (SQLException e) {
            if (e.getErrorCode() != 1109) { // MySQL has no TABLE_NAME there (and its JSON is a type of its own)
                throw e;
            }
        }
        return json;
    }

    MySqlType type(String column) throws ConnectorException {
        columns();
        MySqlType type = types.get(column);
        if (type == null) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY102, describe() + " has no column "
                    + column, "name a column of the source");
        }
        return type;
    }

    @Override
    public Column copyColumn(Column column) throws ConnectorException {
        MySqlType type = type(sourceName(column));
        return new Column(column.name(), type.postgresType(), type.postgresOid(), column.nullable(),
                Column.Generation.NONE);
    }

    /** The source column {@code column} reads: its own, or the one a {@code rename} rule reads. */
    private static String sourceName(Column column) {
        return column.renamedFrom().orElse(column.name());
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        List<ValueEncoder> encoders = new ArrayList<>();
        List<String> expressions = new ArrayList<>();
        List<MySqlType> types = new ArrayList<>();
        for (ColumnPair pair : pairs) {
            String name = sourceName(pair.source());
            if (pair.source().expression().isPresent() && pair.source().renamedFrom().isEmpty()) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI009, describe()
                        + " cannot compute columns from expressions", "compute it in a query: source");
            }
            encoders.add(ValueEncoder.plan(encoders.size() + 1, name, type(name), pair.target()));
            expressions.add(quote(name));
            types.add(type(name));
        }
        return new MySqlProjection(encoders, expressions, types, pairs.stream().map(ColumnPair::target).toList());
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        requireNonNull(request, "request is null");
        List<SourcePartition> partitions = plan0(request);
        degree = Math.max(1, Math.min(request.degree(), partitions.size()));
        return partitions;
    }

    /**
     * Several readers start their snapshot transactions under a lock, and a MyISAM table is read under one: try it
     * now (a table: {@code LOCK TABLES ... READ} with a one-second wait, the privilege being checked before any
     * wait; a query: the grants must hold RELOAD), so a missing privilege is refused at plan time, not at the run.
     */
    @Override
    public void checkSnapshot(int readers) throws ConnectorException {
        try (Connection c = settings.connect(); Statement s = c.createStatement()) {
            if (readers <= 1 && !unversioned(c)) {
                return; // one transaction is one moment: no lock
            }
            if (isTable()) {
                s.execute("SET SESSION lock_wait_timeout = 1");
                try {
                    s.execute("LOCK TABLES " + qualified() + " READ");
                    s.execute("UNLOCK TABLES");
                } catch (SQLException e) {
                    if (MySqlSession.isPrivilegeRefusal(e)) {
                        throw MySqlSession.lockRefused(this, settings, readers, settings.redactor().redact(
                                e.getMessage()), e);
                    }
                    if (e.getErrorCode() != 1205) { // a writer holds it now: the privilege is there
                        throw e;
                    }
                }
                return;
            }
            List<String> grants = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW GRANTS")) {
                while (rs.next()) {
                    grants.add(rs.getString(1));
                }
            }
            boolean reload = grants.stream().anyMatch(g -> g.matches("(?is)GRANT .*\\b(RELOAD|ALL PRIVILEGES)\\b.* ON "
                    + "\\*\\.\\* TO .*"));
            if (!reload) {
                throw MySqlSession.lockRefused(this, settings, readers, "SHOW GRANTS lists no RELOAD on *.*", null);
            }
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot check the snapshot's lock on " + describe(), settings.redactor());
        }
    }

    private List<SourcePartition> plan0(PlanRequest request) throws ConnectorException {
        DistributionMethod method = request.distribution().method();
        if (method == DistributionMethod.NONE) {
            return List.of(new MySqlPartition("all", "TRUE", estimatedRows(), Optional.of("TRUE")));
        }
        String key = keyColumn(request.distribution().key().orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + ": distribution " + method.name().toLowerCase(
                java.util.Locale.ROOT) + " needs a key", "set distribution.key to a column, or primary-key")));
        return switch (method) {
            case RANGE, MODULO -> planIntegers(request, key);
            case NTILE, DATA_DRIVEN -> planValues(request, key);
            default -> throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe()
                    + " cannot plan distribution " + method, "use none, range, ntile, modulo or data-driven");
        };
    }

    private List<SourcePartition> planIntegers(PlanRequest request, String key) throws ConnectorException {
        MySqlType.Kind kind = type(key).kind();
        if (kind != MySqlType.Kind.INT2 && kind != MySqlType.Kind.INT4 && kind != MySqlType.Kind.INT8
                && kind != MySqlType.Kind.UINT8 && kind != MySqlType.Kind.YEAR) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + ": distribution key "
                    + key + " is " + type(key).declared() + ", not an integer", "use an integer key (the primary "
                    + "key, often), or ntile (any key that sorts exactly)");
        }
        String k = quote(key);
        long rows = estimatedRows();
        if (request.distribution().method() == DistributionMethod.MODULO) {
            return KeyRanges.modulo(k, request.degree()).stream()
                    .map(b -> (SourcePartition) new MySqlPartition(b.id(), b.predicate(), rows / request.degree(),
                            Optional.empty()))
                    .toList();
        }
        BigInteger min;
        BigInteger max;
        try (Connection c = settings.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(MIN(" + k + ") AS CHAR), CAST(MAX(" + k + ") AS CHAR) FROM "
                     + relation())) {
            rs.next();
            if (rs.getString(1) == null) {
                return List.of(new MySqlPartition("all", "TRUE", 0, Optional.of("TRUE")));
            }
            min = new BigInteger(rs.getString(1));
            max = new BigInteger(rs.getString(2));
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot plan " + describe(), settings.redactor());
        }
        long wanted = partitionsWanted(request, rows);
        List<SourcePartition> partitions = new ArrayList<>();
        for (KeyRanges.Range range : KeyRanges.split(min, max, wanted)) {
            // The same range in PostgreSQL's quoting selects the partition's rows on the target (compare).
            partitions.add(new MySqlPartition(range.id(), range.predicate(k), rows / Math.max(1, wanted),
                    Optional.of(range.predicate("\"" + key.replace("\"", "\"\"") + "\""))));
        }
        return partitions;
    }

    /** ntile and data-driven: the server sorts or groups the key, so any type it compares exactly will do. */
    private List<SourcePartition> planValues(PlanRequest request, String key) throws ConnectorException {
        MySqlType type = type(key);
        MySqlKeyLiteral literal = MySqlKeyLiteral.of(type).orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, MySqlCode.MY111, describe() + ": distribution key " + key + " is "
                + type.declared() + ", which does not compare exactly (or sorts apart from how it compares)",
                "use a key of an integer, decimal, date and time, string or binary type, or modulo on an integer"));
        boolean nullable = columns().stream().filter(c -> c.name().equals(key)).findFirst().map(Column::nullable)
                .orElse(true);
        String k = quote(key);
        long rows = estimatedRows();
        List<KeyRanges.Bucket> buckets;
        List<Long> counts = List.of();
        try (Connection c = settings.connect()) {
            if (request.distribution().method() == DistributionMethod.NTILE) {
                List<KeyValues.KeyValue> boundaries = KeyValues.ntileBoundaries(c, relation(), k,
                        (int) partitionsWanted(request, rows), literal::shown, literal::read);
                buckets = KeyBuckets.between("ntile", k, boundaries.stream().map(KeyValues.KeyValue::literal)
                        .toList(), nullable);
            } else {
                Optional<String> valuesQuery = request.distribution().valuesQuery();
                KeyValues.Counted values = valuesQuery.isPresent()
                        ? KeyValues.queried(c, relation(), k, valuesQuery.get(), KeyRanges.MAX_RANGES, literal::shown,
                        literal::listed, literal::read)
                        : KeyValues.distinct(c, relation(), k, KeyRanges.MAX_RANGES, literal::shown, literal::read);
                buckets = KeyBuckets.perValue(k, values.values().stream().map(KeyValues.KeyValue::literal).toList(),
                        values.values().stream().map(KeyValues.KeyValue::text).toList(), valuesQuery.isPresent(),
                        nullable);
                List<Long> all = new ArrayList<>(values.rows());
                if (valuesQuery.isPresent()) {
                    all.add(rows); // the others: not counted
                }
                all.add(Math.max(values.nullRows(), 0));
                counts = all;
            }
        } catch (KeyValues.TooManyValues e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY112, describe() + ": distribution "
                    + "data-driven: key " + key + " has " + e.getMessage(), "use ntile or modulo, or a values-query "
                    + "listing the values worth a partition of their own");
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot plan " + describe() + " by key " + key, settings.redactor());
        }
        List<SourcePartition> partitions = new ArrayList<>();
        for (int i = 0; i < buckets.size(); i++) {
            long estimate = i < counts.size() ? counts.get(i) : rows / buckets.size();
            partitions.add(new MySqlPartition(buckets.get(i).id(), buckets.get(i).predicate(), estimate,
                    Optional.empty()));
        }
        return partitions;
    }

    /** About rows-per-partition rows each, at least the degree, at most {@link KeyRanges#MAX_RANGES}. */
    private static long partitionsWanted(PlanRequest request, long rows) {
        return Math.min(KeyRanges.MAX_RANGES, Math.max(request.degree(),
                (rows + request.rowsPerPartition() - 1) / request.rowsPerPartition()));
    }

    /** {@code primary-key} stands for the table's one-column primary key. */
    private String keyColumn(String key) throws ConnectorException {
        if (key.length() > 1 && key.startsWith("\"") && key.endsWith("\"")) {
            // A pattern's primary key, quoted as the core quotes identifiers (SQL's double quotes)
            return key.substring(1, key.length() - 1).replace("\"\"", "\"");
        }
        if (!"primary-key".equals(key)) {
            return key;
        }
        if (table.isEmpty()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, "a query has no primary key",
                    "name the key column");
        }
        List<String> key0 = new ArrayList<>();
        try (Connection c = settings.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW KEYS FROM " + qualified() + " WHERE Key_name = 'PRIMARY'")) {
            while (rs.next()) {
                key0.add(rs.getString("Column_name"));
            }
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot read the primary key of " + describe(), settings.redactor());
        }
        if (key0.size() != 1) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + " has "
                    + (key0.isEmpty() ? "no primary key" : "a primary key of " + key0.size() + " columns " + key0),
                    "name one integer key column");
        }
        return key0.getFirst();
    }

    /** The server's estimate for a table (information_schema), 0 for a query: a plan never counts rows. */
    private long estimatedRows() {
        if (table.isEmpty()) {
            return 0;
        }
        try (Connection c = settings.connect(); PreparedStatement p = c.prepareStatement("SELECT TABLE_ROWS FROM "
                + "information_schema.TABLES WHERE TABLE_SCHEMA = coalesce(?, DATABASE()) AND TABLE_NAME = ?")) {
            p.setString(1, schema().orElse(null));
            p.setString(2, bareName());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Math.max(0, rs.getLong(1)) : 0;
            }
        } catch (SQLException | ConnectorException e) {
            return 0; // an estimate only: the plan goes on by the degree
        }
    }

    /** Engines whose tables keep no snapshot: a reader sees what is there when each statement runs. */
    private static final Set<String> UNVERSIONED = Set.of("myisam", "aria", "memory", "csv", "archive", "mrg_myisam",
            "merge", "blackhole");

    /**
     * Whether the table's engine keeps no snapshot (MyISAM, Aria, MEMORY, ...): one moment of it needs writers held
     * off for the whole read, as mydumper does for such tables. False for a query or a view (whose tables are not
     * known here) and for InnoDB and the other transactional engines.
     */
    boolean unversioned(Connection c) throws SQLException {
        if (table.isEmpty()) {
            return false;
        }
        try (PreparedStatement p = c.prepareStatement("SELECT ENGINE FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = coalesce(?, DATABASE()) AND TABLE_NAME = ?")) {
            p.setString(1, schema().orElse(null));
            p.setString(2, bareName());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getString(1) != null
                        && UNVERSIONED.contains(rs.getString(1).toLowerCase(java.util.Locale.ROOT));
            }
        }
    }

    /** The table's database: its own (db.t), else the connection's; empty: the session's current one. */
    private Optional<String> schema() {
        String name = table.orElseThrow();
        int dot = name.indexOf('.');
        return dot > 0 ? Optional.of(name.substring(0, dot)) : database;
    }

    private String bareName() {
        String name = table.orElseThrow();
        return name.substring(name.indexOf('.') + 1);
    }

    @Override
    public Optional<SourcePartition> restore(String checkpoint) {
        requireNonNull(checkpoint, "checkpoint is null");
        return KeyRanges.restore(checkpoint).map(b -> new MySqlPartition(b.id(), b.predicate(), 0,
                Optional.empty()));
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        return "SELECT " + String.join(", ", projection.expressions()) + " FROM " + relation() + " WHERE "
                + partition.predicate();
    }

    @Override
    public SourceSession openSession(Consistency consistency) throws ConnectorException {
        requireNonNull(consistency, "consistency is null");
        return MySqlSession.open(this, settings, consistency, degree);
    }

    /**
     * A partition: its predicate over the key, what it restores from.
     *
     * @param portablePredicate the predicate as PostgreSQL reads it over a target whose columns keep their names
     *                          (a key range), so compare can select the partition's rows on the target
     */
    record MySqlPartition(String id, String predicate, long estimatedRows, Optional<String> portablePredicate)
            implements SourcePartition {
        MySqlPartition {
            requireNonNull(id, "id is null");
            requireNonNull(predicate, "predicate is null");
            requireNonNull(portablePredicate, "portablePredicate is null");
        }

        @Override
        public long estimatedBytes() {
            return estimatedRows * 100;
        }

        @Override
        public Optional<String> checkpoint() {
            return Optional.of(KeyRanges.checkpoint(id, predicate));
        }
    }

    /** Each column's encoder, the column list the reader selects, each column's type and its target column. */
    record MySqlProjection(List<ValueEncoder> encoders, List<String> expressions, List<MySqlType> types,
                           List<Column> targets) implements SourceProjection {
        MySqlProjection {
            encoders = List.copyOf(encoders);
            expressions = List.copyOf(expressions);
            types = List.copyOf(types);
            targets = List.copyOf(targets);
        }

        @Override
        public CopyFormat format() {
            return CopyFormat.BINARY;
        }

        /** MY203 for the first column whose values compare cannot print as the target does. */
        @Override
        public void requireComparable() throws ConnectorException {
            for (int i = 0; i < expressions.size(); i++) {
                CompareText.of(expressions.get(i), types.get(i), targets.get(i));
            }
        }
    }
}

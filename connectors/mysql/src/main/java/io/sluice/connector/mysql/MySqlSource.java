package io.sluice.connector.mysql;

import io.sluice.spi.Column;
import io.sluice.spi.ColumnPair;
import io.sluice.spi.Consistency;
import io.sluice.spi.ConnectorException;
import io.sluice.spi.CopyFormat;
import io.sluice.spi.DistributionMethod;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.PlanRequest;
import io.sluice.spi.Source;
import io.sluice.spi.SourcePartition;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.SourceSession;

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
    public List<Column> postgresColumns() throws ConnectorException {
        List<Column> typed = new ArrayList<>();
        for (Column column : columns()) {
            typed.add(postgresColumn(column));
        }
        return typed;
    }

    @Override
    public Column postgresColumn(Column column) throws ConnectorException {
        MySqlType type = type(column.name());
        return new Column(column.name(), type.postgresType(), type.postgresOid(), column.nullable(),
                Column.Generation.NONE);
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        List<ValueEncoder> encoders = new ArrayList<>();
        List<String> expressions = new ArrayList<>();
        for (ColumnPair pair : pairs) {
            if (pair.source().expression().isPresent()) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, io.sluice.spi.SpiCode.SPI009, describe()
                        + " cannot compute columns from expressions", "compute it in a query: source");
            }
            String name = pair.source().name();
            encoders.add(ValueEncoder.plan(encoders.size() + 1, name, type(name), pair.target()));
            expressions.add(quote(name));
        }
        return new MySqlProjection(encoders, expressions);
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        requireNonNull(request, "request is null");
        degree = request.degree();
        DistributionMethod method = request.distribution().method();
        if (method == DistributionMethod.NONE) {
            return List.of(new MySqlPartition("all", "TRUE", estimatedRows()));
        }
        String key = keyColumn(request.distribution().key().orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + ": distribution " + method.name().toLowerCase(
                java.util.Locale.ROOT) + " needs a key", "set distribution.key to an integer column, or "
                + "primary-key")));
        MySqlType.Kind kind = type(key).kind();
        if (kind != MySqlType.Kind.INT2 && kind != MySqlType.Kind.INT4 && kind != MySqlType.Kind.INT8
                && kind != MySqlType.Kind.UINT8 && kind != MySqlType.Kind.YEAR) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + ": distribution key "
                    + key + " is " + type(key).declared() + ", not an integer", "use an integer key (the primary "
                    + "key, often), or distribution none");
        }
        String k = quote(key);
        long rows = estimatedRows();
        if (method == DistributionMethod.MODULO) {
            return io.sluice.toolkit.plan.KeyRanges.modulo(k, request.degree()).stream()
                    .map(b -> (SourcePartition) new MySqlPartition(b.id(), b.predicate(), rows / request.degree()))
                    .toList();
        }
        if (method != DistributionMethod.RANGE) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY110, describe() + " cannot plan "
                    + "distribution " + method, "use none, range or modulo");
        }
        BigInteger min;
        BigInteger max;
        try (Connection c = settings.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(MIN(" + k + ") AS CHAR), CAST(MAX(" + k + ") AS CHAR) FROM "
                     + relation())) {
            rs.next();
            if (rs.getString(1) == null) {
                return List.of(new MySqlPartition("all", "TRUE", 0));
            }
            min = new BigInteger(rs.getString(1));
            max = new BigInteger(rs.getString(2));
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot plan " + describe(), settings.redactor());
        }
        long wanted = Math.max(request.degree(), (rows + request.rowsPerPartition() - 1) / request.rowsPerPartition());
        List<SourcePartition> partitions = new ArrayList<>();
        for (io.sluice.toolkit.plan.KeyRanges.Range range : io.sluice.toolkit.plan.KeyRanges.split(min, max,
                wanted)) {
            partitions.add(new MySqlPartition(range.id(), range.predicate(k), rows / Math.max(1, wanted)));
        }
        return partitions;
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
        int bar = checkpoint.indexOf('|');
        return bar < 0 ? Optional.empty() : Optional.of(new MySqlPartition(checkpoint.substring(0, bar),
                checkpoint.substring(bar + 1), 0));
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

    /** A partition: its predicate over the key, what it restores from. */
    record MySqlPartition(String id, String predicate, long estimatedRows) implements SourcePartition {
        MySqlPartition {
            requireNonNull(id, "id is null");
            requireNonNull(predicate, "predicate is null");
        }

        @Override
        public long estimatedBytes() {
            return estimatedRows * 100;
        }

        @Override
        public Optional<String> checkpoint() {
            return Optional.of(id + "|" + predicate);
        }
    }

    /** Each column's encoder, and the column list the reader selects. */
    record MySqlProjection(List<ValueEncoder> encoders, List<String> expressions) implements SourceProjection {
        MySqlProjection {
            encoders = List.copyOf(encoders);
            expressions = List.copyOf(expressions);
        }

        @Override
        public CopyFormat format() {
            return CopyFormat.BINARY;
        }
    }
}

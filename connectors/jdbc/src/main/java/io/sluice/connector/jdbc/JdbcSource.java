package io.sluice.connector.jdbc;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopyFormat;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.copy.BinaryCopyEncoder;
import io.sluice.toolkit.plan.KeyBuckets;
import io.sluice.toolkit.plan.KeyRanges;
import io.sluice.toolkit.plan.KeyValues;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A table or query of any database with a JDBC driver. Standard SQL only: columns from the driver's metadata,
 * partitions by predicates on an integer key, every partition on a connection of its own (no snapshot is shared:
 * JDBC has no way to export one, and {@code sluice plan} says so).
 */
final class JdbcSource implements Source {
    private final JdbcDatabase database;
    private final Optional<String> table;
    private final Optional<String> query;
    private volatile Map<String, JdbcType> types;
    /** The database's own name of each column, by the name Sluice gives it (lower case where it folds to upper). */
    private volatile Map<String, String> sqlNames;
    private volatile List<Column> columns;

    JdbcSource(JdbcDatabase database, Optional<String> table, Optional<String> query) {
        this.database = requireNonNull(database, "database is null");
        this.table = requireNonNull(table, "table is null");
        this.query = requireNonNull(query, "query is null");
    }

    @Override
    public String describe() {
        return table.map(t -> "table " + t).orElse("query");
    }

    private String relation() {
        return table.orElseGet(() -> "(" + query.orElseThrow() + ") sluice_q");
    }

    @Override
    public List<Column> columns() throws ConnectorException {
        List<Column> known = columns;
        if (known != null) {
            return known;
        }
        Map<String, JdbcType> described = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        List<Column> list = new ArrayList<>();
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + relation() + " WHERE 1 = 0")) {
            // A database that folds unquoted names to upper case (H2, Oracle, DB2) shows ORDERS.ID for what its users
            // wrote as id: PostgreSQL's users expect id, as its own folding gives.
            boolean upper = c.getMetaData().storesUpperCaseIdentifiers();
            ResultSetMetaData meta = rs.getMetaData();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                JdbcType type = new JdbcType(meta.getColumnType(i), meta.getColumnTypeName(i), meta.getPrecision(i),
                        meta.getScale(i));
                String original = meta.getColumnLabel(i);
                String name = upper && original.matches("[A-Z_][A-Z0-9_$]*")
                        ? original.toLowerCase(java.util.Locale.ROOT) : original;
                names.put(name, original);
                described.put(name, type);
                list.add(new Column(name, meta.getColumnTypeName(i), 0,
                        meta.isNullable(i) != ResultSetMetaData.columnNoNulls, Column.Generation.NONE));
            }
        } catch (SQLException e) {
            throw database.failure(e, "cannot describe " + describe());
        }
        types = described;
        sqlNames = names;
        columns = List.copyOf(list);
        return columns;
    }

    private JdbcType type(String column) throws ConnectorException {
        columns();
        JdbcType type = types.get(column);
        if (type == null) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC102, describe() + " has no column "
                    + column, "name a column of the source");
        }
        return type;
    }

    @Override
    public Column copyColumn(Column column) throws ConnectorException {
        JdbcType type = type(column.renamedFrom().orElse(column.name()));
        return new Column(column.name(), type.postgresType(), type.postgresOid(), column.nullable(),
                Column.Generation.NONE);
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        List<JdbcEncoder> encoders = new ArrayList<>();
        List<String> expressions = new ArrayList<>();
        for (ColumnPair pair : pairs) {
            if (pair.source().expression().isPresent() && pair.source().renamedFrom().isEmpty()) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, SpiCode.SPI009, describe()
                        + " cannot compute columns from expressions", "compute it in a query: source");
            }
            String name = pair.source().renamedFrom().orElse(pair.source().name());
            encoders.add(JdbcEncoder.plan(encoders.size() + 1, name, type(name), pair.target()));
            expressions.add(quoted(sqlNames.get(name)));
        }
        return new JdbcProjection(encoders, expressions);
    }

    /** SQL's standard quoting (what most databases accept; the core quotes keys so too). */
    private static String quoted(String name) {
        if (name.length() > 1 && name.startsWith("\"") && name.endsWith("\"")) {
            return name;
        }
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private static String bare(String name) {
        return name.length() > 1 && name.startsWith("\"") && name.endsWith("\"")
                ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name;
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        DistributionMethod method = request.distribution().method();
        if (method == DistributionMethod.NONE) {
            return List.of(new JdbcPartition("all", "1 = 1"));
        }
        String key = bare(request.distribution().key().orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, JdbcCode.JDBC110, describe() + ": distribution " + method + " needs a key",
                "set distribution.key to a column")));
        type(key); // refuses a key the source does not have
        String k = quoted(sqlNames.get(key));
        if (method == DistributionMethod.NTILE || method == DistributionMethod.DATA_DRIVEN) {
            return planValues(request, key, k);
        }
        JdbcType.Kind kind = type(key).kind();
        if (kind != JdbcType.Kind.INT2 && kind != JdbcType.Kind.INT4 && kind != JdbcType.Kind.INT8
                && !(kind == JdbcType.Kind.NUMERIC && type(key).scale() == 0)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC110, describe() + ": distribution key "
                    + key + " is " + type(key).typeName() + ", not an integer", "use an integer key, or ntile (any "
                    + "key that sorts exactly)");
        }
        if (method == DistributionMethod.MODULO) {
            return KeyRanges.modulo(k, request.degree()).stream()
                    .map(b -> (SourcePartition) new JdbcPartition(b.id(), b.predicate())).toList();
        }
        if (method != DistributionMethod.RANGE) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC110, describe() + " cannot plan "
                    + "distribution " + method, "use none, range, ntile, modulo or data-driven");
        }
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT MIN(" + k + "), MAX(" + k + ") FROM " + relation())) {
            rs.next();
            BigDecimal min = rs.getBigDecimal(1);
            BigDecimal max = rs.getBigDecimal(2);
            if (min == null) {
                return List.of(new JdbcPartition("all", "1 = 1"));
            }
            List<SourcePartition> partitions = new ArrayList<>();
            for (KeyRanges.Range range : KeyRanges.split(min.toBigIntegerExact(), max.toBigIntegerExact(),
                    request.degree())) {
                partitions.add(new JdbcPartition(range.id(), range.predicate(k)));
            }
            return partitions;
        } catch (SQLException e) {
            throw database.failure(e, "cannot plan " + describe());
        }
    }

    /**
     * ntile (degree equal-count ranges; a JDBC source gives no row estimate to size them by) and data-driven, with
     * SQL:2003's NTILE and GROUP BY: the database sorts and compares, the driver reads the values back.
     */
    private List<SourcePartition> planValues(PlanRequest request, String key, String k) throws ConnectorException {
        JdbcType type = type(key);
        JdbcKeyLiteral form = JdbcKeyLiteral.of(type).orElseThrow(() -> new ConnectorException(
                ErrorKind.INVALID_SPEC, JdbcCode.JDBC111, describe() + ": distribution key " + key + " is "
                + type.typeName() + ", which has no exact literal", "use a key of an integer, decimal, string, date "
                + "or timestamp type"));
        boolean nullable = columns().stream().filter(c -> c.name().equals(key)).findFirst().map(Column::nullable)
                .orElse(true);
        List<KeyRanges.Bucket> buckets;
        try (Connection c = database.connect()) {
            JdbcKeyLiteral literal = form.on(c.getMetaData().getDatabaseProductName());
            if (request.distribution().method() == DistributionMethod.NTILE) {
                buckets = KeyBuckets.between("ntile", k, KeyValues.ntileBoundaries(c, relation(), k,
                        request.degree(), v -> v, literal::read).stream().map(KeyValues.KeyValue::literal).toList(),
                        nullable);
            } else {
                Optional<String> valuesQuery = request.distribution().valuesQuery();
                KeyValues.Counted values = valuesQuery.isPresent()
                        ? KeyValues.queried(c, relation(), k, valuesQuery.get(), KeyRanges.MAX_RANGES, v -> v,
                        literal::read, literal::read)
                        : KeyValues.distinct(c, relation(), k, KeyRanges.MAX_RANGES, v -> v, literal::read);
                buckets = KeyBuckets.perValue(k, values.values().stream().map(KeyValues.KeyValue::literal).toList(),
                        values.values().stream().map(KeyValues.KeyValue::text).toList(), valuesQuery.isPresent(),
                        nullable);
            }
        } catch (KeyValues.TooManyValues e) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, JdbcCode.JDBC112, describe() + ": distribution "
                    + "data-driven: key " + key + " has " + e.getMessage(), "use ntile or modulo, or a values-query "
                    + "listing the values worth a partition of their own");
        } catch (SQLException e) {
            throw database.failure(e, "cannot plan " + describe() + " by key " + key);
        }
        return buckets.stream().map(b -> (SourcePartition) new JdbcPartition(b.id(), b.predicate())).toList();
    }

    @Override
    public Optional<SourcePartition> restore(String checkpoint) {
        return KeyRanges.restore(checkpoint).map(b -> new JdbcPartition(b.id(), b.predicate()));
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        return "SELECT " + String.join(", ", projection.expressions()) + " FROM " + relation() + " WHERE "
                + partition.predicate();
    }

    @Override
    public SourceSession openSession(Consistency consistency) {
        return new SourceSession() {
            @Override
            public String snapshotMode() {
                return "none (a JDBC source shares no snapshot: each partition reads what is there when it starts)";
            }

            @Override
            public PartitionReader openReader(SourcePartition partition, SourceProjection projection)
                    throws ConnectorException {
                return new JdbcReader(database, readStatement(partition, projection), (JdbcProjection) projection,
                        partition.predicate());
            }

            @Override
            public void close() {
            }
        };
    }

    record JdbcPartition(String id, String predicate) implements SourcePartition {
        @Override
        public long estimatedRows() {
            return 0;
        }

        @Override
        public long estimatedBytes() {
            return 0;
        }

        @Override
        public Optional<String> checkpoint() {
            return Optional.of(KeyRanges.checkpoint(id, predicate));
        }
    }

    record JdbcProjection(List<JdbcEncoder> encoders, List<String> expressions) implements SourceProjection {
        JdbcProjection {
            encoders = List.copyOf(encoders);
            expressions = List.copyOf(expressions);
        }

        @Override
        public CopyFormat format() {
            return CopyFormat.BINARY;
        }
    }

    /** One partition's rows, streamed by the driver (fetch size) and encoded as they come. */
    static final class JdbcReader implements PartitionReader {
        private final JdbcDatabase database;
        private final String sql;
        /** An array: a list's iterator would be an object per row. */
        private final JdbcEncoder[] encoders;
        private final String predicate;
        private volatile Statement statement;

        JdbcReader(JdbcDatabase database, String sql, JdbcProjection projection, String predicate) {
            this.database = database;
            this.sql = sql;
            this.encoders = projection.encoders().stream().map(JdbcEncoder::forReader).toArray(JdbcEncoder[]::new);
            this.predicate = predicate;
        }

        @Override
        public long transferTo(CopySink sink) throws ConnectorException {
            BinaryCopyEncoder out = new BinaryCopyEncoder(sink);
            try (Connection c = database.connect()) {
                // Drivers that stream only inside a transaction (PostgreSQL's, for one) need autocommit off.
                c.setAutoCommit(false);
                try (Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                    statement = s;
                    s.setFetchSize(database.fetchSize());
                    try (ResultSet rs = s.executeQuery(sql)) {
                        while (rs.next()) {
                            out.startRow(encoders.length);
                            for (JdbcEncoder encoder : encoders) {
                                encoder.encode(rs, out);
                            }
                        }
                    }
                } finally {
                    statement = null;
                    c.rollback(); // read only: nothing to keep
                }
                return out.finish();
            } catch (SQLException e) {
                throw database.failure(e, "cannot read " + predicate);
            }
        }

        @Override
        public void cancel() {
            Statement s = statement;
            if (s != null) {
                try {
                    s.cancel();
                } catch (SQLException | RuntimeException ignored) {
                    // the read ends with its own error, or already ended
                }
            }
        }

        @Override
        public void close() {
        }
    }
}

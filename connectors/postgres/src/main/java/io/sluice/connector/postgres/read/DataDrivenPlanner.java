package io.sluice.connector.postgres.read;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.toolkit.plan.KeyBuckets;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG308;
import static io.sluice.connector.postgres.catalog.PostgresCode.PG309;

/**
 * One partition per distinct value of the key ({@code k = 'v'::type}, the value as a quoted literal), or per row of
 * a values-query run on the source. Values are compared in the key's own type, so {@code 1.0} and {@code 1.00} are
 * one value, as GROUP BY sees them. With a values-query, a last partition takes the keys it did not list, so no row
 * is lost; NULL keys always have their own partition.
 */
public final class DataDrivenPlanner implements PartitionPlanner {
    private final String keyText;
    private final Optional<String> valuesQuery;

    DataDrivenPlanner(String keyText, Optional<String> valuesQuery) {
        this.keyText = keyText;
        this.valuesQuery = valuesQuery;
    }

    @Override
    public List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException {
        PartitionKey key = PartitionKey.resolve(context, keyText);
        List<String> values = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        long nullCount = -1;
        String sql = valuesQuery
                .map(q -> "SELECT DISTINCT (vq.v)::" + key.baseTypeName() + " AS x, ((vq.v)::" + key.baseTypeName()
                        + ")::text, -1 FROM (" + SourceQuery.strip(q) + ") AS vq(v) WHERE vq.v IS NOT NULL ORDER BY x")
                .orElse("SELECT s.k, (s.k)::text, count(*) FROM (SELECT " + key.expression() + " AS k FROM "
                        + context.relation().fromClause() + ") AS s GROUP BY s.k ORDER BY s.k NULLS LAST");
        try (Statement s = context.catalog().connection().createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    String value = rs.getString(2);
                    if (value == null) {
                        nullCount = rs.getLong(3);
                        continue;
                    }
                    if (values.size() == MAX_PARTITIONS) {
                        throw new ConnectorException(ErrorKind.INVALID_SPEC, PG308, "key '" + keyText
                                + "' has more than " + MAX_PARTITIONS + " distinct values",
                                "use ntile or modulo, or a coarser key expression (e.g. date_trunc('month', ts))");
                    }
                    values.add(value);
                    counts.add(rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            if (valuesQuery.isEmpty() || e.getSQLState() == null || !(e.getSQLState().startsWith("42")
                    || e.getSQLState().startsWith("22"))) {
                throw e;
            }
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG309, "values-query failed on the source: "
                    + PartitionKey.firstLine(e.getMessage()), "make it return one value of the key's type per row");
        }
        List<String> ids = new ArrayList<>();
        List<Optional<String>> conditions = new ArrayList<>();
        for (String value : values) {
            ids.add("value='" + KeyBuckets.readable(value) + "'");
            conditions.add(Optional.of(key.expression() + " = " + key.literal(value)));
        }
        if (valuesQuery.isPresent()) {
            ids.add("value-others");
            conditions.add(Optional.of(values.isEmpty() ? key.expression() + " IS NOT NULL"
                    : key.expression() + " IS NOT NULL AND " + key.expression() + " NOT IN ("
                    + String.join(", ", values.stream().map(key::literal).toList()) + ")"));
        }
        if (!key.notNull()) {
            ids.add("value-null");
            conditions.add(Optional.of(key.isNull()));
        }
        if (valuesQuery.isPresent()) {
            return KeyBoundaries.withEstimates(context, key, ids, conditions);
        }
        // Exact counts came with the values; bytes follow the average row.
        double bytesPerRow = context.total().rows() > 0
                ? (double) context.total().bytes() / context.total().rows() : -1;
        List<PgPartition> partitions = new ArrayList<>();
        String from = context.relation().fromClause();
        for (int i = 0; i < conditions.size(); i++) {
            long rows = i < counts.size() ? counts.get(i) : Math.max(nullCount, 0);
            long bytes = bytesPerRow < 0 ? -1 : Math.round(rows * bytesPerRow);
            partitions.add(PgPartition.of(ids.get(i), from, conditions.get(i), rows, bytes, key.portable()));
        }
        return partitions;
    }
}

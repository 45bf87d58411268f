package io.sluice.connector.postgres.read;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG306;

/**
 * Equal-width ranges between the minimum and maximum of a numeric, date or timestamp key. Boundaries are computed
 * by the server in the key's own type; infinities and NaN are left out of min/max (they fall in the open outer
 * ranges).
 */
public final class RangePlanner implements PartitionPlanner {
    private final String keyText;

    RangePlanner(String keyText) {
        this.keyText = keyText;
    }

    @Override
    public List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException {
        PartitionKey key = PartitionKey.resolve(context, keyText);
        if (key.category() == PartitionKey.Category.OTHER) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PG306, "distribution range needs a numeric, "
                    + "date or timestamp key, but '" + keyText + "' is " + key.baseTypeName(),
                    "use ntile (any sortable type) or modulo (any type), or a key expression of a numeric type");
        }
        String from = context.relation().fromClause();
        String keyed = "(SELECT " + key.expression() + " AS k FROM " + from + ") AS s";
        String[] bounds = minMax(context, "SELECT min(k)::text, max(k)::text FROM " + keyed);
        if (bounds[0] != null && !(finite(bounds[0]) && finite(bounds[1]))) {
            String finiteOnly = key.category() == PartitionKey.Category.DECIMAL
                    ? "k::text NOT IN ('NaN', 'Infinity', '-Infinity')" : "isfinite(k)";
            bounds = minMax(context, "SELECT min(k)::text, max(k)::text FROM " + keyed + " WHERE " + finiteOnly);
        }
        List<String> boundaries = new ArrayList<>();
        int ranges = context.partitionsWanted();
        if (bounds[0] != null && ranges > 1) {
            String lo = key.literal(bounds[0]);
            String hi = key.literal(bounds[1]);
            String step = switch (key.category()) {
                case INTEGER -> "(" + lo + "::numeric + floor((" + hi + "::numeric - " + lo + "::numeric) * i / "
                        + ranges + "))::" + key.baseTypeName();
                case DECIMAL -> "(" + lo + "::numeric + (" + hi + "::numeric - " + lo + "::numeric) * i / "
                        + ranges + ")::" + key.baseTypeName();
                case DATE -> "(" + lo + " + ((" + hi + " - " + lo + ") * i / " + ranges + "))";
                case TIMESTAMP -> "(" + lo + " + (" + hi + " - " + lo + ") * (i::float8 / " + ranges + "))";
                case OTHER -> throw new IllegalStateException("checked above");
            };
            String sql = "SELECT DISTINCT v, v::text AS v_text FROM (SELECT " + step + " AS v FROM generate_series(1, "
                    + (ranges - 1) + ") AS g(i)) AS b WHERE v > " + lo + " AND v <= " + hi + " ORDER BY v";
            try (Statement s = context.catalog().connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    boundaries.add(rs.getString(2));
                }
            }
        }
        return KeyBoundaries.partitions("range", context, key, boundaries);
    }

    private static boolean finite(String value) {
        String v = value.toLowerCase(java.util.Locale.ROOT);
        return !(v.equals("nan") || v.endsWith("infinity"));
    }

    private static String[] minMax(PlanContext context, String sql) throws SQLException {
        try (Statement s = context.catalog().connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG307;

/**
 * Equal-count ranges from the key's distribution: boundaries are {@code percentile_disc} at 1/n, 2/n, ... in one
 * sorted pass, for any type with an ordering. Repeated values collapse boundaries, so a heavily skewed key yields
 * fewer, larger ranges rather than a row in two places.
 */
public final class NtilePlanner implements PartitionPlanner {
    private final String keyText;

    NtilePlanner(String keyText) {
        this.keyText = keyText;
    }

    @Override
    public List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException {
        PartitionKey key = PartitionKey.resolve(context, keyText);
        int tiles = context.partitionsWanted();
        List<String> boundaries = new ArrayList<>();
        if (tiles > 1) {
            StringBuilder fractions = new StringBuilder("'{0");
            for (int i = 1; i < tiles; i++) {
                fractions.append(',').append((double) i / tiles);
            }
            fractions.append("}'::float8[]");
            String sql = "WITH p AS (SELECT percentile_disc(" + fractions + ") WITHIN GROUP (ORDER BY k) AS a "
                    + "FROM (SELECT " + key.expression() + " AS k FROM " + context.relation().fromClause() + ") AS s) "
                    + "SELECT DISTINCT b, b::text AS b_text FROM p, unnest(p.a) AS b WHERE b > p.a[1] ORDER BY b";
            try (Statement s = context.catalog().connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    boundaries.add(rs.getString(2));
                }
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("42")) {
                    throw e;
                }
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG307, "distribution ntile cannot sort key '"
                        + keyText + "' of type " + key.baseTypeName() + ": " + PartitionKey.firstLine(e.getMessage()),
                        "use modulo, or a key expression of a sortable type");
            }
        }
        return KeyBoundaries.partitions("ntile", context, key, boundaries);
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.spi.error.ConnectorException;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code degree} buckets: {@code abs(mod(k, n))} for integer keys (abs keeps negative keys in 0..n-1), and a hash
 * of the key's text form for any other type. Each bucket scans the whole source, so there are exactly degree of
 * them, plus one for NULL keys.
 */
public final class ModuloPlanner implements PartitionPlanner {
    private final String keyText;

    ModuloPlanner(String keyText) {
        this.keyText = keyText;
    }

    @Override
    public List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException {
        PartitionKey key = PartitionKey.resolve(context, keyText);
        int buckets = context.request().degree();
        List<String> ids = new ArrayList<>();
        List<Optional<String>> conditions = new ArrayList<>();
        if (buckets == 1) {
            ids.add("modulo:0/1");
            conditions.add(Optional.of(key.expression() + " IS NOT NULL"));
        } else {
            String bucket = key.category() == PartitionKey.Category.INTEGER
                    ? "abs(mod(" + key.expression() + ", " + buckets + "))"
                    : "abs(hashtextextended(" + key.expression() + "::text, 0) % " + buckets + ")";
            for (int i = 0; i < buckets; i++) {
                ids.add("modulo:" + i + "/" + buckets);
                conditions.add(Optional.of(bucket + " = " + i));
            }
        }
        if (!key.notNull()) {
            ids.add("modulo:null");
            conditions.add(Optional.of(key.isNull()));
        }
        return KeyBoundaries.withEstimates(context, key, ids, conditions);
    }
}

package io.sluice.connector.postgres;

import io.sluice.spi.SourcePartition;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A partition of a PostgreSQL source: what to read from (the stream's table or query, or one leaf with ONLY) and
 * the WHERE condition, if any.
 */
record PgPartition(String id, String fromClause, Optional<String> where, long estimatedRows, long estimatedBytes,
                   boolean fromOtherRelation) implements SourcePartition {
    PgPartition {
        requireNonNull(id, "id is null");
        requireNonNull(fromClause, "fromClause is null");
        requireNonNull(where, "where is null");
    }

    @Override
    public String predicate() {
        String condition = where.orElse("all rows");
        return fromOtherRelation ? "FROM " + fromClause + " WHERE " + where.orElse("true") : condition;
    }

    /** The SELECT of this partition for the given select list. */
    String select(String selectList) {
        return "SELECT " + selectList + " FROM " + fromClause + where.map(w -> " WHERE " + w).orElse("");
    }
}

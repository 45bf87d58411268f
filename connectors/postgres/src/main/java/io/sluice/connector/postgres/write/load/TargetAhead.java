package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.TablesAhead;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A target table as read ahead of its stream's planning, with the other tables of its pattern: the table (with the
 * INSERT privilege, its owner and whether it has foreign keys), its indexes when it exists, and when it is to be
 * created, the names its schema has; {@code deadChecked}: the sessions a dead Sluice process of this host left on it
 * were looked for (and ended) with the others'.
 */
public record TargetAhead(TablesAhead.Table table, List<IndexDefinition> indexes,
                          Optional<TablesAhead.SchemaNames> schema, boolean deadChecked) {
    public TargetAhead {
        requireNonNull(table, "table is null");
        indexes = List.copyOf(requireNonNull(indexes, "indexes is null"));
        requireNonNull(schema, "schema is null");
    }
}

package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.catalog.IndexDefinition;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.TablesAhead;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.session.LeftoverSessions;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.write.load.PostgresLoad;
import io.sluice.connector.postgres.write.load.TargetAhead;

import io.sluice.spi.data.LockWaits;
import io.sluice.spi.error.ConnectorException;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * A connector's target tables as read ahead of their planning ({@link io.sluice.spi.connector.Connector#describeAhead}), until
 * the target made for each takes its entry: the table with the INSERT privilege and its columns, its indexes when it
 * exists, and the names of its schema when it is to be created. The sessions dead Sluice processes of this host left
 * on those tables are ended here, once for them all, as the planning of each would have.
 */
public final class TargetsAhead {
    private final PostgresConnections connections;
    private final Map<QualifiedName, TargetAhead> read = new ConcurrentHashMap<>();

    public TargetsAhead(PostgresConnections connections) {
        this.connections = requireNonNull(connections, "connections is null");
    }

    /** Reads {@code names} ({@code created}: those the load creates when missing) on {@code c}. */
    public void read(Connection c, List<QualifiedName> names, Set<QualifiedName> created)
            throws SQLException, ConnectorException {
        read.putAll(readNow(c, names, created));
    }

    /** What was read of {@code name}, once. */
    public Optional<TargetAhead> take(QualifiedName name) {
        return Optional.ofNullable(read.remove(requireNonNull(name, "name is null")));
    }

    private Map<QualifiedName, TargetAhead> readNow(Connection c, List<QualifiedName> names, Set<QualifiedName> created)
            throws SQLException, ConnectorException {
        Map<QualifiedName, TablesAhead.Table> tables = TablesAhead.tables(c, names, "INSERT");
        List<Long> existing = new ArrayList<>();
        Map<String, List<String>> relationsBySchema = new LinkedHashMap<>();
        Set<String> createdIn = new HashSet<>();
        tables.forEach((name, t) -> {
            if (t.table().isPresent()) {
                existing.add(t.table().get().oid());
                relationsBySchema.computeIfAbsent(t.table().get().schema(), k -> new ArrayList<>())
                        .addAll(PostgresLoad.relationsOf(t.table().get().name()));
            } else if (created.contains(name)) {
                createdIn.add(name.schema().orElse(""));
            }
        });
        Map<Long, List<IndexDefinition>> indexes = new TargetCatalog(c).indexes(existing);
        Map<String, TablesAhead.SchemaNames> schemas = new HashMap<>();
        for (String schema : createdIn) {
            if (!schema.isEmpty()) { // an unqualified name's schema is the session's: the per-table way finds it
                schemas.put(schema, TablesAhead.schemaNames(c, schema));
            }
        }
        // One look for the sessions of dead processes on all the tables of a schema, as planning each would do.
        for (Map.Entry<String, List<String>> schema : relationsBySchema.entrySet()) {
            LeftoverSessions.endOfDeadProcesses(connections, schema.getKey(), schema.getValue(),
                    LockWaits.DEFAULT_TIMEOUT);
        }
        Map<QualifiedName, TargetAhead> ahead = new LinkedHashMap<>();
        tables.forEach((name, t) -> {
            Optional<TablesAhead.SchemaNames> schema = t.table().isEmpty()
                    ? name.schema().map(schemas::get) : Optional.empty();
            if (t.table().isPresent() || schema.isPresent()) {
                ahead.put(name, new TargetAhead(t, t.table().map(r -> indexes.getOrDefault(r.oid(), List.of()))
                        .orElse(List.of()), schema, t.table().isPresent()));
            }
        });
        return ahead;
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;

import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * A connector's source tables as read ahead of their planning ({@link io.sluice.spi.connector.Connector#describeAhead}), in the
 * pattern's order, until the source made for each takes its entry ({@link SourceAhead}). A table's definition, asked
 * for when its copy is created, is read with those of the next tables of the pattern not planned yet, fifty a round
 * trip, and kept for them until their planning asks.
 */
public final class SourcesAhead {
    /** How many tables' definitions one ask reads: this one's and the next ones'. */
    private static final int DEFINITIONS_AHEAD = 100;

    private final PostgresConnections connections;
    private final Map<QualifiedName, SourceAhead> read = new LinkedHashMap<>();
    private final Map<QualifiedName, TableDefinition> definitions = new ConcurrentHashMap<>();

    public SourcesAhead(PostgresConnections connections) {
        this.connections = requireNonNull(connections, "connections is null");
    }

    /** Reads {@code names} on {@code c} ({@link SourceAhead#read}). */
    public void read(Connection c, List<QualifiedName> names, Map<QualifiedName, Boolean> inherited,
                     Set<QualifiedName> estimated) throws SQLException {
        Map<QualifiedName, SourceAhead> tables = SourceAhead.read(c, names, inherited, estimated);
        synchronized (read) {
            read.putAll(tables);
        }
    }

    /** What was read of {@code name}, once. */
    public Optional<SourceAhead> take(QualifiedName name) {
        requireNonNull(name, "name is null");
        synchronized (read) {
            return Optional.ofNullable(read.remove(name));
        }
    }

    /**
     * The definition of {@code table} (named {@code name}, read ahead), with those of the pattern's next tables; empty
     * when they cannot be read so (the source then reads its own, which says what failed).
     */
    Optional<TableDefinition> definition(QualifiedName name, ResolvedTable table) {
        TableDefinition known = definitions.remove(name);
        if (known != null) {
            return Optional.of(known);
        }
        List<QualifiedName> names = new ArrayList<>(List.of(name));
        List<ResolvedTable> tables = new ArrayList<>(List.of(table));
        synchronized (read) {
            for (Map.Entry<QualifiedName, SourceAhead> next : read.entrySet()) {
                if (tables.size() >= DEFINITIONS_AHEAD) {
                    break;
                }
                if (!definitions.containsKey(next.getKey())) {
                    names.add(next.getKey());
                    tables.add(next.getValue().table());
                }
            }
        }
        Map<Long, TableDefinition> read;
        try (ControlConnection qualifying = connections.qualifying("reading the definitions of " + tables.size()
                + " tables")) {
            read = SourceDefinitions.readAll(qualifying.connection(), tables);
        } catch (SQLException | ConnectorException e) {
            return Optional.empty();
        }
        for (int i = 1; i < names.size(); i++) {
            TableDefinition next = read.get(tables.get(i).oid());
            if (next != null) {
                definitions.put(names.get(i), next);
            }
        }
        return Optional.ofNullable(read.get(table.oid()));
    }
}

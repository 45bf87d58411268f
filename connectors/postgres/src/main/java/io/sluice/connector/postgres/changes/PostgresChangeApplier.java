package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.spi.changes.ChangeApplier;
import io.sluice.spi.changes.ChangeBatch;
import io.sluice.spi.changes.ChangeRelation;
import io.sluice.spi.changes.RowChange;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.LedgerWork;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Applies change batches to PostgreSQL tables of one database, each batch in one transaction with the ledger's
 * position: a crash before the commit applies the batch again from the recorded position, after it never.
 */
public final class PostgresChangeApplier implements ChangeApplier {
    /** Where one source table's changes go, by the source's name for it (as {@link ChangeRelation#name()}). */
    public record Route(String source, String target, Map<String, String> columns,
                        Map<String, Column> sourceColumns, SchemaChanges schemaChanges) {
        public Route {
            requireNonNull(source, "source is null");
            requireNonNull(target, "target is null");
            columns = Map.copyOf(requireNonNull(columns, "columns is null"));
            sourceColumns = Map.copyOf(requireNonNull(sourceColumns, "sourceColumns is null"));
            requireNonNull(schemaChanges, "schemaChanges is null");
        }

        Route carrying(String column, String type) {
            Map<String, String> more = new HashMap<>(columns);
            more.put(column, column);
            Map<String, Column> known = new HashMap<>(sourceColumns);
            known.putIfAbsent(column, Column.of(column, type));
            return new Route(source, target, more, known, schemaChanges);
        }

        /**
         * The statements that add a source column (typed {@code type}) to the target as {@code to}: the rows there
         * already get {@code earlier}, the value the source's rows from before hold, and the default that gave it goes.
         */
        List<String> adding(String to, String type, java.util.Optional<String> earlier) {
            String quoted = SqlQuote.identifier(to);
            List<String> statements = new ArrayList<>();
            statements.add("ALTER TABLE " + target + " ADD COLUMN IF NOT EXISTS " + quoted + " " + type
                    + earlier.map(v -> " DEFAULT " + SqlQuote.literal(v)).orElse(""));
            earlier.ifPresent(v -> statements.add("ALTER TABLE " + target + " ALTER COLUMN " + quoted
                    + " DROP DEFAULT"));
            return statements;
        }
    }

    private final PostgresConnections connections;
    private final PostgresLedgerStore ledger;
    private final AppliedTables tables;
    private final Connection connection;
    private final ChangeStage stage;
    /** Parts of a big source transaction were applied and wait for its last part's commit. */
    private boolean partsOpen;
    /** The target table whose changes were being applied, for a failure's message. */
    private String applyingTo = "";
    private final List<java.util.Set<String>> tied;

    public PostgresChangeApplier(PostgresConnections connections, PostgresLedgerStore ledger, List<Route> routes)
            throws ConnectorException {
        this.connections = requireNonNull(connections, "connections is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        requireNonNull(routes, "routes is null");
        this.connection = connections.open("applying changes");
        this.stage = new ChangeStage(connection);
        try {
            connection.setAutoCommit(false);
            applyAsReplica();
            this.tables = new AppliedTables(connection, routes, this::flush);
            this.tied = tied(routes);
            connection.commit();
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot describe the tables the "
                    + "changes go to");
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(connection);
            throw e;
        }
    }

    /**
     * As PostgreSQL's own subscriptions apply: with {@code session_replication_role = replica}, so the target's
     * foreign keys (checked at the source already) do not see a batch's rows in the per-table order they are applied
     * in, and the target's ordinary triggers do not fire again for rows a source wrote (ENABLE ALWAYS ones do). A role
     * that may not set it (not a superuser, no SET privilege on it) applies with the keys checked.
     */
    private void applyAsReplica() throws SQLException {
        try (java.sql.Statement s = connection.createStatement()) {
            s.execute("SET session_replication_role = replica");
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (!"42501".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    /**
     * The routes in groups joined by foreign keys between their targets: a child's insert must not commit before
     * its parent's, so such tables apply through one connection, in the order of the source's transactions.
     */
    private List<java.util.Set<String>> tied(List<Route> routes) throws SQLException {
        Map<Long, String> byOid = new HashMap<>();
        Map<String, String> parent = new HashMap<>();
        try (PreparedStatement p = connection.prepareStatement("SELECT to_regclass(?)::oid")) {
            for (Route route : routes) {
                p.setString(1, route.target());
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next() && rs.getObject(1) != null) {
                        byOid.put(rs.getLong(1), route.source());
                    }
                }
                parent.put(route.source(), route.source());
            }
        }
        Long[] oids = byOid.keySet().toArray(Long[]::new);
        try (PreparedStatement p = connection.prepareStatement("SELECT conrelid::bigint, confrelid::bigint FROM "
                + "pg_constraint WHERE contype = 'f' AND conrelid = ANY (?::oid[]) AND confrelid = ANY (?::oid[])")) {
            java.sql.Array array = connection.createArrayOf("int8", oids);
            p.setArray(1, array);
            p.setArray(2, array);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String a = root(parent, byOid.get(rs.getLong(1)));
                    String b = root(parent, byOid.get(rs.getLong(2)));
                    parent.put(a, b);
                }
            }
        }
        Map<String, java.util.Set<String>> groups = new LinkedHashMap<>();
        for (Route route : routes) {
            groups.computeIfAbsent(root(parent, route.source()), r -> new java.util.LinkedHashSet<>())
                    .add(route.source());
        }
        return groups.values().stream().map(java.util.Set::copyOf).toList();
    }

    private static String root(Map<String, String> parent, String table) {
        String at = table;
        while (!parent.get(at).equals(at)) {
            at = parent.get(at);
        }
        return at;
    }

    @Override
    public List<java.util.Set<String>> tiedTables() {
        return tied;
    }

    @Override
    public Applied apply(ChangeBatch batch, LedgerWork<?> withPosition) throws ConnectorException {
        requireNonNull(batch, "batch is null");
        requireNonNull(withPosition, "withPosition is null");
        // The parts of a big transaction share one target transaction: none of them can be applied again alone, so
        // their inserts upsert from the start, as a replay's do (after a resumed copy). Another batch inserts
        // plainly; when a row is there already it rolls back and is applied again with upserts.
        boolean upsert = partsOpen || batch.partial() || batch.replay();
        while (true) {
            try {
                Applied applied = applyOnce(batch, withPosition, upsert);
                partsOpen = batch.partial();
                return applied;
            } catch (SQLException e) {
                rollbackQuietly();
                if (!upsert && "23505".equals(e.getSQLState())) {
                    upsert = true;
                    continue;
                }
                throw connections.errors().translate(e, PostgresErrors.Phase.CHANGES, "cannot apply " + batch
                        .changes().size() + " changes (" + batch.transactions() + " source transactions up to "
                        + batch.end() + ")" + (applyingTo.isEmpty() ? "" : " to " + applyingTo));
            } catch (ConnectorException | RuntimeException e) {
                rollbackQuietly();
                throw e;
            }
        }
    }

    private Applied applyOnce(ChangeBatch batch, LedgerWork<?> withPosition, boolean upsert)
            throws SQLException, ConnectorException {
        applyingTo = "";
        long inserts = 0;
        long updates = 0;
        long deletes = 0;
        long truncates = 0;
        Map<String, TableChanges> pending = new LinkedHashMap<>();
        for (RowChange change : batch.changes()) {
            String source = change.relation().name();
            if (!tables.carries(source)) {
                continue; // a table the publication holds and no stream of the run copied
            }
            TableChanges.Mapping mapping = tables.mapping(change.relation(), pending);
            TableChanges changes = pending.computeIfAbsent(source, s -> new TableChanges(tables.table(s), connection,
                    stage, upsert));
            applyingTo = changes.quoted();
            switch (change.kind()) {
                case INSERT -> {
                    changes.add(change, mapping);
                    inserts++;
                }
                case DELETE -> {
                    changes.add(change, mapping);
                    deletes++;
                }
                case UPDATE -> {
                    if (movesKey(change, mapping)) {
                        flush(pending);
                        changes.moveKey(change, mapping);
                    } else {
                        changes.add(change, mapping);
                    }
                    updates++;
                }
                case TRUNCATE -> {
                    flush(pending);
                    changes.truncate();
                    truncates++;
                }
            }
        }
        flush(pending);
        if (batch.partial()) {
            return new Applied(inserts, updates, deletes, truncates); // the transaction's last part commits
        }
        withPosition.apply(ledger.rowsOn(connection));
        connection.commit();
        tables.committed();
        return new Applied(inserts, updates, deletes, truncates);
    }

    @Override
    public int resetSequences(Map<String, Map<String, Long>> sourceValues) throws ConnectorException {
        requireNonNull(sourceValues, "sourceValues is null");
        int reset = 0;
        try (PreparedStatement sequence = connection.prepareStatement("SELECT pg_get_serial_sequence(?, ?)")) {
            for (Route route : tables.routes()) {
                for (Map.Entry<String, Long> value : sourceValues.getOrDefault(route.source(), Map.of()).entrySet()) {
                    String column = route.columns().get(value.getKey());
                    if (column == null) {
                        continue;
                    }
                    sequence.setString(1, route.target());
                    sequence.setString(2, column);
                    String name;
                    try (ResultSet rs = sequence.executeQuery()) {
                        rs.next();
                        name = rs.getString(1);
                    }
                    if (name == null) {
                        continue; // the target's column has no sequence: nothing hands out values there
                    }
                    try (PreparedStatement set = connection.prepareStatement("SELECT setval(?::regclass, "
                            + "greatest(?, (SELECT max(" + SqlQuote.identifier(
                            column) + ") FROM " + route.target() + ")::bigint, 1))")) {
                        set.setString(1, name);
                        set.setLong(2, value.getValue());
                        set.execute();
                    }
                    reset++;
                }
            }
            connection.commit();
            return reset;
        } catch (SQLException e) {
            rollbackQuietly();
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "cannot set the target's sequences "
                    + "past the source's");
        }
    }

    private static boolean movesKey(RowChange change, TableChanges.Mapping mapping) {
        if (change.oldKey().isEmpty()) {
            return false;
        }
        for (int k : mapping.keySource()) {
            if (!change.keeps(k)) {
                return true;
            }
        }
        return false;
    }

    private void flush(Map<String, TableChanges> pending) throws SQLException {
        String at = applyingTo;
        for (TableChanges changes : pending.values()) {
            applyingTo = changes.quoted();
            changes.flush();
        }
        applyingTo = at;
    }

    private void rollbackQuietly() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is closed with the applier
        }
        stage.forget();
        partsOpen = false;
        tables.rolledBack();
    }

    @Override
    public void close() {
        rollbackQuietly();
        PostgresConnections.closeQuietly(connection);
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SnapshotGroup;
import io.sluice.spi.read.SourceSession;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A PostgreSQL source as a member of the sources that read one server database: one snapshot, exported once with
 * every member's tables locked, read by each of their sessions.
 */
final class PostgresSnapshotGroup implements SnapshotGroup {
    private final PostgresSource source;

    PostgresSnapshotGroup(PostgresSource source) {
        this.source = requireNonNull(source, "source is null");
    }

    @Override
    public String toString() {
        return source.describe();
    }

    @Override
    public Object key() {
        return source.connections();
    }

    @Override
    public SharedSnapshot exportSnapshot(List<SnapshotGroup> sources) throws ConnectorException {
        requireNonNull(sources, "sources is null");
        java.util.Set<String> tables = new java.util.LinkedHashSet<>();
        for (SnapshotGroup member : sources) {
            if (!(member instanceof PostgresSnapshotGroup g) || g.source.connections() != source.connections()) {
                throw new IllegalArgumentException(member + " is not of this source's snapshot group");
            }
            g.source.lockableTables().stream().map(ResolvedTable::quoted).forEach(tables::add);
        }
        requireLockRoom(source.connections(), tables.size(), sources.size());
        PostgresSourceSession.Exported exported = PostgresSourceSession.export(source.connections(), sources.size()
                + " streams", List.copyOf(tables), new TableLocks(source.connections(), source.lockWaits()));
        return new SharedSnapshot() {
            @Override
            public String id() {
                return exported.id();
            }

            @Override
            public void close() {
                PostgresConnections.closeQuietly(exported.coordinator()); // ends the transaction and the snapshot
            }
        };
    }


    /**
     * One transaction locks every table of the group; a server whose lock table is smaller would fail midway with
     * "out of shared memory" (pg_dump's known limit), so it is refused first, saying what to raise.
     */
    static void requireLockRoom(PostgresConnections connections, int tables, int streams)
            throws ConnectorException {
        long room;
        int perTransaction;
        try (ControlConnection control = connections.control("reading the source's lock settings");
             java.sql.Statement s = control.connection().createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('max_locks_per_transaction')::int, "
                     + "current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int")) {
            rs.next();
            perTransaction = rs.getInt(1);
            room = (long) perTransaction * rs.getInt(2);
        } catch (java.sql.SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the source's lock "
                    + "settings");
        }
        if (tables > room) {
            long sessions = Math.max(1, room / perTransaction);
            long needed = (tables + sessions - 1) / sessions + perTransaction; // and room for the other sessions
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG223, "one snapshot for the " + streams
                    + " streams reading this connection locks " + tables + " tables in one transaction, and the "
                    + "server's lock table holds about " + room + " (max_locks_per_transaction " + perTransaction
                    + " x connections); nothing was locked or written", "raise max_locks_per_transaction on the "
                    + "source to " + needed + " or more and restart it (pg_dump needs the same), or set consistency: "
                    + "none under defaults: (each table then reads its own moment)");
        }
    }


    @Override
    public SourceSession openSession(SharedSnapshot shared) throws ConnectorException {
        requireNonNull(shared, "shared is null");
        List<String> tables = source.lockableTables().stream().map(ResolvedTable::quoted).toList();
        return PostgresSourceSession.sharing(source.connections(), shared.id(), PostgresSource::copyStatement,
                source.describe(), tables, new TableLocks(source.connections(), source.lockWaits()),
                source.maskKeys());
    }
}

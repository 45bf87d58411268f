package io.sluice.connector.postgres.changes;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * A logical replication slot ({@code pgoutput}) and the publication it reads, as {@code changes:} names them: the
 * checks before a feed starts or goes on, the publication made when missing, the slot made with the snapshot the copy
 * reads in.
 */
public final class ChangeSlot {
    private final String slot;
    private final String publication;

    public ChangeSlot(String slot, String publication) {
        this.slot = requireNonNull(slot, "slot is null");
        this.publication = requireNonNull(publication, "publication is null");
    }

    public String slot() {
        return slot;
    }

    public String publication() {
        return publication;
    }

    /** What the server says about the slot; empty when it does not exist in this database. */
    public record State(boolean active, Optional<Integer> activePid, String walStatus, String confirmedFlush,
                        long retainedBytes, long behindBytes) {
    }

    /** The slot as the server holds it now. */
    public Optional<State> state(Connection control) throws SQLException {
        try (PreparedStatement p = control.prepareStatement("SELECT active, active_pid, coalesce(wal_status, ''), "
                + "coalesce(confirmed_flush_lsn::text, ''), "
                + "coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn), 0)::bigint, "
                + "coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint "
                + "FROM pg_replication_slots WHERE slot_name = ? AND database = current_database()")) {
            p.setString(1, slot);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                int pid = rs.getInt(2);
                return Optional.of(new State(rs.getBoolean(1), rs.wasNull() ? Optional.empty() : Optional.of(pid),
                        rs.getString(3), rs.getString(4), rs.getLong(5), rs.getLong(6)));
            }
        }
    }

    /**
     * The server can feed changes and the user may take them: {@code wal_level = logical}, a free slot, the
     * REPLICATION attribute, and a key on every table (an UPDATE or DELETE on a published table without one fails
     * on the source). {@code established}: the slot must exist and not have lost WAL.
     */
    public void check(Connection control, List<ResolvedTable> tables, boolean established)
            throws SQLException, ConnectorException {
        // The feed's own slot, left by a copy that never finished, is dropped and made again: it takes no new one.
        try (PreparedStatement s = control.prepareStatement("SELECT current_setting('wal_level'), "
                     + "current_setting('max_replication_slots')::int, "
                     + "(SELECT count(*) FROM pg_replication_slots WHERE slot_name <> ?)::int, "
                     + "(SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user)")) {
            s.setString(1, slot);
            ResultSet rs = s.executeQuery();
            rs.next();
            if (!"logical".equals(rs.getString(1))) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG601, "the source's wal_level is "
                        + rs.getString(1) + "; following changes (changes: slot " + slot + ") needs logical",
                        "set wal_level = logical on the source (ALTER SYSTEM SET wal_level = logical) and restart "
                                + "it, or remove changes: from the stream");
            }
            if (!established && rs.getInt(3) >= rs.getInt(2)) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG601, "the source has no free "
                        + "replication slot: " + rs.getInt(3) + " of max_replication_slots " + rs.getInt(2)
                        + " are taken", "drop a slot nobody reads (SELECT slot_name, active FROM "
                        + "pg_replication_slots), or raise max_replication_slots and restart the source");
            }
            if (!rs.getBoolean(4)) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG605, "the source user may not "
                        + "read changes: following changes (changes: slot " + slot + ") needs the REPLICATION "
                        + "attribute", "ALTER ROLE <user> REPLICATION on the source, or remove changes: from the "
                        + "stream");
            }
        }
        List<String> keyless = new ArrayList<>();
        try (PreparedStatement p = control.prepareStatement("SELECT c.relreplident, EXISTS (SELECT 1 FROM "
                + "pg_index i WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident)) FROM pg_class c "
                + "WHERE c.oid = ?")) {
            for (ResolvedTable table : tables) {
                p.setLong(1, table.oid());
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next() && !"f".equals(rs.getString(1)) && !rs.getBoolean(2)) {
                        keyless.add(table.quoted());
                    }
                }
            }
        }
        if (!keyless.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG602, "changes cannot be applied by "
                    + "row to " + String.join(", ", keyless) + ": no primary key and no replica identity, so the "
                    + "source sends nothing that names a changed row", "add a primary key (ALTER TABLE ... ADD "
                    + "PRIMARY KEY (...)), or ALTER TABLE ... REPLICA IDENTITY USING INDEX <unique index>, or "
                    + "leave the table out of the stream");
        }
        if (established) {
            Optional<State> state = state(control);
            if (state.isEmpty() || "lost".equals(state.get().walStatus())) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG603, "the slot " + slot + " of "
                        + "this spec's change feed " + (state.isEmpty() ? "no longer exists on the source"
                        : "lost the WAL since its position (wal_status lost: max_slot_wal_keep_size)")
                        + "; the changes since the last run cannot be read, and the target may miss them",
                        "copy again from a new slot: sluice run <spec> --restart-changes (it drops the feed's "
                                + "ledger row, creates the slot and copies every table afresh)");
            }
            if (state.get().active()) {
                throw inUse(state.get());
            }
        }
    }

    private ConnectorException inUse(State state) {
        return new ConnectorException(ErrorKind.FAILED, PostgresCode.PG608, "the slot " + slot + " is in use by "
                + "another session" + state.activePid().map(pid -> " (pid " + pid + ")").orElse("")
                + ": another run of this spec is following its changes", "let that run finish (a --follow run "
                + "stops on SIGTERM)" + state.activePid().map(pid -> ", or end it: SELECT pg_terminate_backend("
                + pid + ")").orElse(""));
    }

    /**
     * Creates the publication for {@code tables} when it does not exist; an existing one must publish every one of
     * them (the user's own, say with row filters, is used as it is).
     */
    public void ensurePublication(Connection control, List<ResolvedTable> tables)
            throws SQLException, ConnectorException {
        boolean exists;
        boolean allTables;
        try (PreparedStatement p = control.prepareStatement("SELECT puballtables FROM pg_publication WHERE "
                + "pubname = ?")) {
            p.setString(1, publication);
            try (ResultSet rs = p.executeQuery()) {
                exists = rs.next();
                allTables = exists && rs.getBoolean(1);
            }
        }
        if (!exists) {
            String list = String.join(", ", tables.stream().map(ResolvedTable::quoted).toList());
            try (Statement s = control.createStatement()) {
                s.execute("CREATE PUBLICATION " + SqlQuote.identifier(publication) + " FOR TABLE " + list);
            } catch (SQLException e) {
                if ("42501".equals(e.getSQLState())) {
                    throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG605, "the source user may not "
                            + "create publication " + publication + ": " + e.getMessage(), "create it as the "
                            + "tables' owner: CREATE PUBLICATION " + SqlQuote.identifier(publication)
                            + " FOR TABLE " + list + "; then run again");
                }
                throw e;
            }
            return;
        }
        if (allTables) {
            return;
        }
        List<String> missing = unpublished(control, tables).stream().map(ResolvedTable::quoted).toList();
        if (!missing.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG604, "publication " + publication
                    + " does not publish " + String.join(", ", missing) + ", which the stream reads: their "
                    + "changes would never reach the target", "ALTER PUBLICATION " + SqlQuote.identifier(publication)
                    + " ADD TABLE " + String.join(", ", missing) + ", or name another publication in changes:");
        }
    }

    /**
     * Of {@code tables}, those the publication does not publish (none when it publishes all tables, or does not
     * exist: the feed then cannot tell which tables it carries).
     */
    public Set<ResolvedTable> unpublished(Connection control, java.util.Collection<ResolvedTable> tables)
            throws SQLException {
        try (PreparedStatement p = control.prepareStatement("SELECT puballtables FROM pg_publication WHERE "
                + "pubname = ?")) {
            p.setString(1, publication);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next() || rs.getBoolean(1)) {
                    return Set.of();
                }
            }
        }
        Set<String> published = new TreeSet<>();
        try (PreparedStatement p = control.prepareStatement("SELECT format('%I.%I', schemaname, tablename) FROM "
                + "pg_publication_tables WHERE pubname = ?")) {
            p.setString(1, publication);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    published.add(rs.getString(1));
                }
            }
        }
        Set<ResolvedTable> missing = new java.util.LinkedHashSet<>();
        for (ResolvedTable table : tables) {
            if (!published.contains(SqlQuote.identifier(table.schema()) + "." + SqlQuote.identifier(table.name()))
                    && !published.contains(table.schema() + "." + table.name())) {
                missing.add(table);
            }
        }
        return missing;
    }

    /**
     * Adds {@code tables} to the publication when it is the one Sluice makes (named as the slot); another one is the
     * user's, perhaps read by others too: refused with the statement that adds them (PG604).
     */
    public void publish(Connection control, java.util.Collection<ResolvedTable> tables)
            throws SQLException, ConnectorException {
        Set<ResolvedTable> missing = unpublished(control, tables);
        if (missing.isEmpty()) {
            return;
        }
        String list = String.join(", ", missing.stream().map(ResolvedTable::quoted).toList());
        String statement = "ALTER PUBLICATION " + SqlQuote.identifier(publication) + " ADD TABLE " + list;
        if (!publication.equals(slot)) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG604, "publication " + publication
                    + " does not publish " + list + ", which the stream reads since the feed started: their "
                    + "changes would never reach the target", statement + "; the next run copies them into the "
                    + "feed (or leave them out of the stream's pattern)");
        }
        try (Statement s = control.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            if ("42501".equals(e.getSQLState())) {
                throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG605, "the source user may not "
                        + "add " + list + " to publication " + publication + ": " + e.getMessage(), "as the "
                        + "tables' owner: " + statement + "; then run again");
            }
            throw e;
        }
    }

    /** Drops the slot when it exists and nobody reads it (a copy that never finished left it). */
    public void dropIfIdle(Connection control) throws SQLException, ConnectorException {
        Optional<State> state = state(control);
        if (state.isEmpty()) {
            return;
        }
        if (state.get().active()) {
            throw inUse(state.get());
        }
        try (PreparedStatement p = control.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            p.setString(1, slot);
            p.execute();
        }
    }

    /** The slot just made: where its changes start, and the snapshot that sees everything before. */
    public record Created(String consistentPoint, String snapshot) {
    }

    /**
     * Creates the slot on {@code replication} (a replication connection) exporting its snapshot, which other
     * sessions import as long as that connection runs no other command.
     */
    public Created create(Connection replication, int serverMajor) throws SQLException {
        String command = "CREATE_REPLICATION_SLOT " + SqlQuote.identifier(slot) + " LOGICAL pgoutput "
                + (serverMajor >= 15 ? "(SNAPSHOT 'export')" : "EXPORT_SNAPSHOT");
        try (Statement s = replication.createStatement(); ResultSet rs = s.executeQuery(command)) {
            rs.next();
            return new Created(rs.getString("consistent_point"), rs.getString("snapshot_name"));
        }
    }
}

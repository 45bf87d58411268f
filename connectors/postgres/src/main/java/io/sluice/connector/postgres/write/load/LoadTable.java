package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.DerivedName;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.data.Column;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.write.LoadRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG218;
import static java.util.Objects.requireNonNull;

/**
 * The table one stream's load writes, and what every step of that load shares: the request, the table's names and
 * the names derived from it (shadow, keys table, kept old table), the connections, the ledger and the lock patience;
 * and the one way a step changes the database: a transaction of its own that also writes the step's marks.
 */
public final class LoadTable {
    /** Comments on the tables Sluice makes for itself: only a table that bears one is ever dropped as left over. */
    static final String OWN_TABLE_COMMENT = "sluice: ";
    private static final String SHADOW_SUFFIX = "_sluice_shadow";
    private static final String KEYS_SUFFIX = "_sluice_keys";

    private final PostgresConnections connections;
    private final PostgresLedgerStore ledger;
    private final LoadRequest request;
    private final String schema;
    private final String name;
    private final Optional<ResolvedTable> existing;
    private final List<Column> columns;
    private volatile TableLocks locks;

    /**
     * {@code existing}: the table as the plan found it (empty: the load creates it); {@code columns}: the columns it
     * has, or gets.
     */
    LoadTable(PostgresConnections connections, PostgresLedgerStore ledger, LoadRequest request, String schema,
              String name, Optional<ResolvedTable> existing, List<Column> columns, TableLocks locks) {
        this.connections = requireNonNull(connections, "connections is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.request = requireNonNull(request, "request is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.name = requireNonNull(name, "name is null");
        this.existing = requireNonNull(existing, "existing is null");
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
        this.locks = requireNonNull(locks, "locks is null");
    }

    PostgresConnections connections() {
        return connections;
    }

    PostgresLedgerStore ledger() {
        return ledger;
    }

    LoadRequest request() {
        return request;
    }

    String schema() {
        return schema;
    }

    String name() {
        return name;
    }

    Optional<ResolvedTable> existing() {
        return existing;
    }

    List<Column> columns() {
        return columns;
    }

    TableLocks locks() {
        return locks;
    }

    /** The stream's lock-timeout as the run gives it (the plan's may differ). */
    void waitForLocks(TableLocks locks) {
        this.locks = requireNonNull(locks, "locks is null");
    }

    // ---- names

    String quoted() {
        return qualified(name);
    }

    /** {@code relation} of the table's schema, quoted. */
    String qualified(String relation) {
        return SqlQuote.identifier(schema) + "." + SqlQuote.identifier(relation);
    }

    /** The table and the tables a load derives from it (shadow, keys): what a run's sessions lock. */
    static List<String> relationsOf(String table) {
        return List.of(table, DerivedName.of(table, SHADOW_SUFFIX), DerivedName.of(table, KEYS_SUFFIX));
    }

    String shadowName() {
        return DerivedName.of(name, SHADOW_SUFFIX);
    }

    QualifiedName shadow() {
        return QualifiedName.of(schema, shadowName());
    }

    String shadowQuoted() {
        return qualified(shadowName());
    }

    /** The name keep-previous gives the old table. */
    String keptName() {
        return DerivedName.of(name, "_old");
    }

    String keysName() {
        return DerivedName.of(name, KEYS_SUFFIX);
    }

    String keysQuoted() {
        return qualified(keysName());
    }

    // ---- changes

    Map<String, String> read(LoadMarks marks) throws ConnectorException {
        return ledger.inTransaction(marks.reading());
    }

    /** One step's change and its marks, which commit together. */
    @FunctionalInterface
    interface Change {
        void run(Connection c, LedgerTransaction tx) throws SQLException, ConnectorException;
    }

    /**
     * Runs {@code change} in one transaction on a control session (kept for the next use once it committed; one
     * that failed is closed), with the ledger's rows on it.
     */
    void inTransaction(String what, Change change) throws ConnectorException {
        inTransaction(connections, ledger, what, change);
    }

    /** {@link #inTransaction(String, Change)} on {@code connections}, with {@code ledger}'s rows. */
    static void inTransaction(PostgresConnections connections, PostgresLedgerStore ledger, String what, Change change)
            throws ConnectorException {
        try (ControlConnection control = connections.control(what)) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                change.run(c, ledger.rowsOn(c));
                c.commit();
            } catch (SQLException | ConnectorException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // closing rolls back too
                }
                throw e;
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what);
        }
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * A table of the name Sluice needs, left by an earlier run that failed and was not resumed, is dropped; one that
     * is not Sluice's (no comment of its own) is refused instead.
     */
    void dropOwnLeftover(Connection c, TargetCatalog target, String relation)
            throws SQLException, ConnectorException {
        if (!target.relationExists(schema, relation)) {
            return;
        }
        String quotedName = qualified(relation);
        if (!target.comment(schema, relation).orElse("").startsWith(OWN_TABLE_COMMENT)) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG218, "the load needs the name " + quotedName
                    + ", and a table that is not Sluice's has it", "rename or drop " + quotedName);
        }
        execute(c, "DROP TABLE " + quotedName);
    }

    /** Refuses {@code column}, named by the spec's {@code key}, when the table's columns {@code names} lack it. */
    void requireColumn(java.util.Set<String> names, String column, String key) throws ConnectorException {
        if (!names.contains(column)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, PostgresCode.PG219, key + " names column " + column
                    + ", which " + quoted() + " does not have (columns: " + String.join(", ",
                    new java.util.TreeSet<>(names)) + ")", "name columns as the table spells them (case matters)");
        }
    }
}

package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.copy.RejectsTable;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG228;
import static java.util.Objects.requireNonNull;

/**
 * {@code rejects:}: the table rows that cannot be loaded go to. Checked at plan time (not the target, a rejects
 * table's shape when it exists) and created, when missing, in the transaction that prepares the load.
 */
final class RejectsStep implements LoadStep {
    private final String quoted;
    private final boolean exists;
    private final Optional<RelationIdentity> identity;

    private RejectsStep(String quoted, boolean exists, Optional<RelationIdentity> identity) {
        this.quoted = requireNonNull(quoted, "quoted is null");
        this.exists = exists;
        this.identity = requireNonNull(identity, "identity is null");
    }

    /** The rejects table {@code written} names, an unqualified name in the target table's schema. */
    static RejectsStep plan(String written, String targetSchema, String targetName, boolean beforeHook, Connection c)
            throws SQLException, ConnectorException {
        QualifiedName name;
        try {
            name = QualifiedName.parse(written);
        } catch (IllegalArgumentException e) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG228, "rejects table: " + e.getMessage(),
                    "write schema.table, e.g. public.orders_rejects");
        }
        String schema = name.schema().orElse(targetSchema);
        String quoted = SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name.name());
        if (schema.equals(targetSchema) && name.name().equals(targetName)) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG228, "rejects table " + quoted + " is the target "
                    + "table: rejected rows would land among the loaded ones", "name a table of its own, e.g. "
                    + SqlQuote.identifier(schema) + "." + SqlQuote.identifier(targetName + "_rejects"));
        }
        Optional<String> differences = RejectsTable.differences(c, schema, name.name());
        if (differences.isPresent()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG228, "rejects table " + quoted + " exists with "
                    + "another shape: " + differences.get(), "name another table (the run creates it), or make it "
                    + "the shape a rejects table has: " + RejectsTable.createStatement(quoted));
        }
        Optional<Long> oid = oid(c, schema, name.name());
        if (oid.isEmpty() && !beforeHook && !schemaExists(c, schema)) { // a before hook may create it first
            throw new ConnectorException(ErrorKind.PREFLIGHT, PG228, "rejects table " + quoted + ": the target "
                    + "database has no schema " + SqlQuote.identifier(schema) + " to create it in", "CREATE SCHEMA "
                    + SqlQuote.identifier(schema) + " in the target database first (or in the stream's before: "
                    + "hook), or name a schema that exists");
        }
        Optional<RelationIdentity> identity = oid.isEmpty() ? Optional.empty() : Optional.of(new RelationIdentity(
                new PostgresCatalog(c).relationKey(oid.get()), quoted));
        return new RejectsStep(quoted, oid.isPresent(), identity);
    }

    /** The rejects table {@code written} names, quoted: an unqualified name is in {@code targetSchema}. */
    static String quotedName(String written, String targetSchema) {
        QualifiedName name = QualifiedName.parse(written);
        return SqlQuote.identifier(name.schema().orElse(targetSchema)) + "." + SqlQuote.identifier(name.name());
    }

    private static boolean schemaExists(Connection c, String schema) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)")) {
            p.setString(1, schema);
            try (java.sql.ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static Optional<Long> oid(Connection c, String schema, String name) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT t.oid FROM pg_class t JOIN pg_namespace n ON n.oid = "
                + "t.relnamespace WHERE n.nspname = ? AND t.relname = ?")) {
            p.setString(1, schema);
            p.setString(2, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        }
    }

    String quoted() {
        return quoted;
    }

    /** The table as the planner compares it with what the source reads: only when it exists already. */
    Optional<RelationIdentity> identity() {
        return identity;
    }

    @Override
    public void describe(List<String> statements) {
        if (!exists) {
            statements.add(RejectsTable.createStatement(quoted));
        }
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(RejectsTable.createStatement(quoted)); // if not exists: a resumed run finds it made
        }
    }
}

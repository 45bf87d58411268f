package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SchemaObjects;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The objects of the schema a PostgreSQL source table is in ({@link SourceObjects}). */
final class PostgresSchemaObjects implements SchemaObjects {
    private final PostgresConnections connections;
    private final ResolvedTable table;
    private final String schemaKey;
    private final Optional<String> feedPublication;

    /** {@code feedPublication}: the change feed's own publication, which is not carried. */
    PostgresSchemaObjects(PostgresConnections connections, ResolvedTable table, String databaseKey,
                          Optional<String> feedPublication) {
        this.connections = requireNonNull(connections, "connections is null");
        this.table = requireNonNull(table, "table is null");
        this.feedPublication = requireNonNull(feedPublication, "feedPublication is null");
        this.schemaKey = requireNonNull(databaseKey, "databaseKey is null") + ":schema:" + table.schema();
    }

    @Override
    public String schemaKey() {
        return schemaKey;
    }

    @Override
    public String schema() {
        return table.schema();
    }

    @Override
    public Contents read() throws ConnectorException {
        try (ControlConnection control = connections.qualifying("reading the objects of schema " + table.schema())) {
            long schemaOid;
            try (PreparedStatement p = control.connection().prepareStatement("SELECT relnamespace FROM pg_class "
                    + "WHERE oid = ?")) {
                p.setLong(1, table.oid());
                try (ResultSet rs = p.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("relation " + table.quoted() + " does not exist", "42P01");
                    }
                    schemaOid = rs.getLong(1);
                }
            }
            return SourceObjects.read(control.connection(), schemaOid, table.schema(), feedPublication);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the objects of "
                    + "schema " + table.schema());
        }
    }
}

package io.sluice.connector.postgres.session;

import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.error.ConnectorException;

import org.postgresql.Driver;

import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * OpenLineage's names for this connection's tables: namespace {@code postgres://host:port} from the JDBC URL (its
 * first host, where a URL lists several), name {@code database.schema.table}. Only host, port and database are read
 * from the URL, so no credential it may carry reaches a name.
 */
public final class LineageNames {
    private LineageNames() {
    }

    public static LineageDataset table(PostgresConnections connections, String schema, String table)
            throws ConnectorException {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        Properties parsed = Driver.parseURL(connections.endpoint().jdbcUrl(), null);
        String host = parsed == null ? "localhost" : parsed.getProperty("PGHOST", "localhost").split(",")[0];
        String port = parsed == null ? "5432" : parsed.getProperty("PGPORT", "5432").split(",")[0];
        String database = parsed == null ? "postgres" : parsed.getProperty("PGDBNAME", "postgres");
        return new LineageDataset("postgres://" + host + ":" + port, database + "." + schema + "." + table);
    }
}

package io.sluice.connector.postgres.copy;

import io.sluice.spi.error.ConnectorException;

import java.sql.Connection;
import java.sql.SQLException;

/** What runs in a partition's transaction before its COPY starts: taking the table's lock (see {@link TableLocks}). */
public @FunctionalInterface
interface BeforeCopy {
    BeforeCopy NOTHING = c -> {
    };

    void run(Connection c) throws SQLException, ConnectorException;
}

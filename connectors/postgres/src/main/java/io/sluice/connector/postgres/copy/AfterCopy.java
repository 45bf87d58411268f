package io.sluice.connector.postgres.copy;

import io.sluice.spi.ConnectorException;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What runs in a partition's transaction after its COPY and before its ledger rows and commit: a merge applies the
 * staged rows to the target there, so they commit together with the partition's DONE row.
 */
public @FunctionalInterface
interface AfterCopy {
    AfterCopy NOTHING = c -> {
    };

    void run(Connection c) throws SQLException, ConnectorException;
}

package io.sluice.connector.postgres.copy;

import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;

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

    /**
     * With {@code rejects:}, before the partition's counts are taken: moves rows the load will not take into the
     * rejects table as {@code origin}'s and returns how many (a merge's rows of a duplicated key under
     * {@code on-duplicate: reject}). Nothing by default.
     */
    default long setAside(Connection c, RejectedRow.Origin origin)
            throws SQLException, ConnectorException {
        return 0;
    }
}

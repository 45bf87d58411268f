package io.sluice.connector.postgres.read;

import io.sluice.spi.error.ConnectorException;

import java.sql.SQLException;
import java.util.List;

/** Splits a PostgreSQL source into partitions for one distribution method; every row lands in exactly one. */
public interface PartitionPlanner {
    /** An upper bound that keeps plans printable and catalogs small. */
    int MAX_PARTITIONS = 10_000;

    List<PgPartition> plan(PlanContext context) throws SQLException, ConnectorException;
}

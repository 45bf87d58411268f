package io.sluice.spi.write;

import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;

/**
 * A writer's ability to set rows aside into the load's rejects table, in the partition's transaction
 * ({@link PartitionWriter#rejects()}): present for a load whose request names a rejects table.
 */
public interface WriterRejects {
    /** Names the rows this writer sets aside: called once, right after the writer opened. */
    void rejectsOf(RejectedRow.Origin origin) throws ConnectorException;

    /** Keeps {@code row}, which the reader set aside, to be written with the partition's rows. */
    void reject(RejectedRow row) throws ConnectorException;
}

package io.sluice.spi.changes;

import io.sluice.spi.error.ConnectorException;

import java.util.List;

/** A target's ability to apply a source's row changes after its copy ({@link io.sluice.spi.write.Target#changeSink()}). */
@FunctionalInterface
public interface ChangeSink {
    /**
     * Opens one applier for the changes of {@code routes}, whose targets are this one and others of its connector
     * that share its database, so a batch that touches several tables commits once.
     */
    ChangeApplier openChangeApplier(List<ChangeRoute> routes) throws ConnectorException;
}

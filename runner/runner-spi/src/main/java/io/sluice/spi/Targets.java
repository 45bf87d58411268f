package io.sluice.spi;

import io.sluice.spi.error.ConnectorException;

/** A connection's ability to be a stream's target ({@link Connector#targets()}). */
@FunctionalInterface
public interface Targets {
    /** The target side of a stream, from the stream's validated {@code target:} options. */
    Target open(Options targetOptions) throws ConnectorException;
}

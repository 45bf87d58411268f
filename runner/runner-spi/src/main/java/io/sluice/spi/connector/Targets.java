package io.sluice.spi.connector;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.write.Target;

/** A connection's ability to be a stream's target ({@link Connector#targets()}). */
@FunctionalInterface
public interface Targets {
    /** The target side of a stream, from the stream's validated {@code target:} options. */
    Target open(Options targetOptions) throws ConnectorException;
}

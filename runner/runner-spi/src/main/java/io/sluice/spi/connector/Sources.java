package io.sluice.spi.connector;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Source;

/** A connection's ability to be a stream's source ({@link Connector#sources()}). */
@FunctionalInterface
public interface Sources {
    /** The source side of a stream, from the stream's validated {@code source:} options. */
    Source open(Options sourceOptions) throws ConnectorException;
}

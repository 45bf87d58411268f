package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.connector.Options;

import static java.util.Objects.requireNonNull;

/** A stream's {@code source:} or {@code target:}: the connection it names and the connector's options for it. */
public record EndpointSpec(String connection, Options options, Position position) {
    public EndpointSpec {
        requireNonNull(connection, "connection is null");
        requireNonNull(options, "options is null");
        requireNonNull(position, "position is null");
    }
}

package io.sluice.core.spec;

import io.sluice.core.diag.Position;
import io.sluice.spi.connector.Options;

import static java.util.Objects.requireNonNull;

/** A {@code connections:} entry: its name, connector type and the connector's validated options. */
public record ConnectionSpec(String name, String type, Options options, Position position) {
    public ConnectionSpec {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(options, "options is null");
        requireNonNull(position, "position is null");
    }
}

package io.sluice.spi.connector;

import io.sluice.spi.read.Distribution;
import static java.util.Objects.requireNonNull;

/**
 * What offline lint knows of a stream side handled by this connector: its validated options and the distribution
 * the stream asks for (for a source side). Values from unset environment variables are empty strings here.
 */
public record StreamShape(String streamName, Role role, Options options, Distribution distribution) {
    public StreamShape {
        requireNonNull(streamName, "streamName is null");
        requireNonNull(role, "role is null");
        requireNonNull(options, "options is null");
        requireNonNull(distribution, "distribution is null");
    }
}

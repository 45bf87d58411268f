package io.sluice.spi.connector;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * Everything a factory gets to create a connector: the connection's name in the spec, its validated options, the
 * folder the spec lives in (relative paths resolve against it) and a folder for local state such as an embedded
 * server's data.
 */
public record ConnectionConfig(String connectionName, Options options, Path specDirectory, Path stateDirectory) {
    public ConnectionConfig {
        requireNonNull(connectionName, "connectionName is null");
        requireNonNull(options, "options is null");
        requireNonNull(specDirectory, "specDirectory is null");
        requireNonNull(stateDirectory, "stateDirectory is null");
    }
}

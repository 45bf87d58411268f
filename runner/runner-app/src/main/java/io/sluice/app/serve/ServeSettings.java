package io.sluice.app.serve;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * How {@code sluice serve} runs: the folder specs are taken from (nothing outside it can be run), the token, where
 * to listen, the state folder for embedded servers, and how many runs may go at once (the rest queue).
 *
 * @param port 0 picks a free port (tests)
 */
public record ServeSettings(Path specsFolder, ApiToken token, String bindAddress, int port, Path stateDirectory,
                            int maxConcurrentRuns) {
    public ServeSettings {
        requireNonNull(specsFolder, "specsFolder is null");
        requireNonNull(token, "token is null");
        requireNonNull(bindAddress, "bindAddress is null");
        requireNonNull(stateDirectory, "stateDirectory is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        if (maxConcurrentRuns < 1) {
            throw new IllegalArgumentException("maxConcurrentRuns must be at least 1, got " + maxConcurrentRuns);
        }
    }
}

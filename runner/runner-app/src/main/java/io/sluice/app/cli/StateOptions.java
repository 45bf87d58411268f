package io.sluice.app.cli;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.service.Sluice;
import picocli.CommandLine;

import java.nio.file.Path;

/**
 * Where Sluice keeps local state (an embedded server's data): {@code --state-dir} (or $SLUICE_STATE_DIR, through
 * {@link EnvironmentDefaults}), $SLUICE_HOME, or ./.sluice.
 */
final class StateOptions {
    @CommandLine.Option(names = "--state-dir", paramLabel = "DIR",
            description = "Folder for local state such as the embedded PostgreSQL's data "
                    + "(default: $SLUICE_STATE_DIR, $SLUICE_HOME or ./.sluice).")
    Path stateDirectory;

    Path resolve() {
        if (stateDirectory != null) {
            return stateDirectory.toAbsolutePath();
        }
        String home = System.getenv("SLUICE_HOME");
        return (home != null && !home.isBlank() ? Path.of(home) : Path.of(".sluice")).toAbsolutePath();
    }

    /** The application service over the installed connectors, with this state folder. */
    Sluice sluice() {
        return Sluice.onThisMachine(ConnectorRegistry.fromClassPath(), resolve());
    }
}

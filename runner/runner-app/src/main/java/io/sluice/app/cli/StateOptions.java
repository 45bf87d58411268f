package io.sluice.app.cli;

import picocli.CommandLine;

import java.nio.file.Path;

/** Where Sluice keeps local state (an embedded server's data): {@code --state-dir}, $SLUICE_HOME, or ./.sluice. */
final class StateOptions {
    @CommandLine.Option(names = "--state-dir", paramLabel = "DIR",
            description = "Folder for local state such as the embedded PostgreSQL's data "
                    + "(default: $SLUICE_HOME or ./.sluice).")
    Path stateDirectory;

    Path resolve() {
        if (stateDirectory != null) {
            return stateDirectory.toAbsolutePath();
        }
        String home = System.getenv("SLUICE_HOME");
        return (home != null && !home.isBlank() ? Path.of(home) : Path.of(".sluice")).toAbsolutePath();
    }
}

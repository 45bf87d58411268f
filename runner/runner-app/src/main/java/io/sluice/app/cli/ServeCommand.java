package io.sluice.app.cli;

import io.sluice.app.serve.ApiToken;
import io.sluice.app.serve.ServeSettings;
import io.sluice.app.serve.SluiceServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sluice serve}: the HTTP service. Parsed in plain picocli like {@code lint}; the command itself starts the
 * Spring web application (the batch commands' context has no web server) and blocks until it stops.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run specs from a folder on request over HTTP: POST /api/runs, GET /api/runs/{id}, "
                + "GET /api/specs, /actuator/health, /actuator/prometheus. Every /api call needs "
                + "'Authorization: Bearer TOKEN' (token from $SLUICE_API_TOKEN or --token-file).")
final class ServeCommand implements Callable<Integer> {
    static final String TOKEN_VARIABLE = "SLUICE_API_TOKEN";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--specs", required = true, paramLabel = "DIR",
            description = "The folder of spec files; nothing outside it can be run.")
    Path specsFolder;

    @CommandLine.Option(names = "--port", defaultValue = "8080", paramLabel = "N",
            description = "Port to listen on (default: ${DEFAULT-VALUE}).")
    int port;

    @CommandLine.Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
            description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 in a container).")
    String bindAddress;

    @CommandLine.Option(names = "--token-file", paramLabel = "FILE",
            description = "Read the API token from this file instead of $" + TOKEN_VARIABLE + ".")
    Path tokenFile;

    @CommandLine.Option(names = "--max-concurrent-runs", defaultValue = "2", paramLabel = "N",
            description = "Runs that may copy at once; more wait in a queue (default: ${DEFAULT-VALUE}).")
    int maxConcurrentRuns;

    @CommandLine.Mixin
    StateOptions state = new StateOptions();

    @Override
    public Integer call() throws Exception {
        ServeSettings settings = settings();
        PrintWriter err = spec.commandLine().getErr();
        try (SluiceServer server = SluiceServer.start(settings)) {
            err.println("sluice serve: listening on http://" + settings.bindAddress() + ":" + server.port()
                    + ", specs from " + settings.specsFolder());
            err.flush();
            server.awaitStop();
        }
        return ExitCodes.OK;
    }

    private ServeSettings settings() {
        if (!Files.isDirectory(specsFolder)) {
            throw usage("--specs " + specsFolder + " is not a folder");
        }
        if (maxConcurrentRuns < 1) {
            throw usage("--max-concurrent-runs must be at least 1");
        }
        if (port < 0 || port > 65535) {
            throw usage("--port must be 0..65535");
        }
        try {
            return new ServeSettings(specsFolder.toAbsolutePath(), ApiToken.of(token()), bindAddress, port,
                    state.resolve(), maxConcurrentRuns);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private String token() {
        if (tokenFile != null) {
            try {
                return Files.readString(tokenFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw usage("cannot read --token-file " + tokenFile + ": " + e.getClass().getSimpleName());
            }
        }
        String token = System.getenv(TOKEN_VARIABLE);
        if (token == null || token.isBlank()) {
            throw usage("an API token is required: set $" + TOKEN_VARIABLE + " or pass --token-file FILE");
        }
        return token;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}

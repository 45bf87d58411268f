package io.sluice.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * {@code psql -c "COPY ... TO STDOUT (FORMAT binary)" | psql -c "COPY ... FROM STDIN (FORMAT binary)"}: what a DBA
 * types. Client CPU is both psql processes (the shell waits for them, so {@code time} counts them).
 */
final class PsqlPipeScenario implements Scenario {
    private final ScenarioInfo info;
    private final Optional<ClientTool> psql;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final String sourceTable;
    private final Path logDirectory;

    PsqlPipeScenario(ScenarioInfo info, Optional<ClientTool> psql, PgEndpoint source, PgEndpoint target,
                     String sourceTable, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.psql = requireNonNull(psql, "psql is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.sourceTable = requireNonNull(sourceTable, "sourceTable is null");
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return psql.isPresent() ? Optional.empty() : Optional.of("psql is not on the PATH");
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        String p = psql.orElseThrow().path().toString();
        // Passwords travel in the environment, never on a command line.
        String script = "set -o pipefail; "
                + "PGPASSWORD=\"$SRC_PASSWORD\" " + p + " -X -q -v ON_ERROR_STOP=1 " + connection(source)
                + " -c 'COPY " + sourceTable + " TO STDOUT (FORMAT binary)' | "
                + "PGPASSWORD=\"$DST_PASSWORD\" " + p + " -X -q -v ON_ERROR_STOP=1 " + connection(target)
                + " -c 'COPY " + info.target().qualifiedTable() + " FROM STDIN (FORMAT binary)'";
        return TimedProcess.runTool("psql pipe", info, runNumber, List.of("bash", "-c", script),
                Map.of("SRC_PASSWORD", source.password(), "DST_PASSWORD", target.password()), logDirectory);
    }

    static String connection(PgEndpoint e) {
        return "-h " + e.host() + " -p " + e.port() + " -U " + e.user() + " -d " + e.database();
    }
}

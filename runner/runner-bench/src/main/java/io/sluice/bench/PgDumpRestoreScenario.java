package io.sluice.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * {@code pg_dump -Fc --data-only -t TABLE | pg_restore --data-only}. Runs only where the client tools' major version
 * equals both servers': pg_dump refuses a server newer than itself, and an older server would measure another
 * protocol. The target table must have the source table's name (pg_restore cannot rename).
 */
final class PgDumpRestoreScenario implements Scenario {
    private final ScenarioInfo info;
    private final Optional<ClientTool> pgDump;
    private final Optional<ClientTool> pgRestore;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final int sourceMajor;
    private final int targetMajor;
    private final String table;
    private final Path logDirectory;

    PgDumpRestoreScenario(ScenarioInfo info, Optional<ClientTool> pgDump, Optional<ClientTool> pgRestore,
                          PgEndpoint source, PgEndpoint target, int sourceMajor, int targetMajor, String table,
                          Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.pgDump = requireNonNull(pgDump, "pgDump is null");
        this.pgRestore = requireNonNull(pgRestore, "pgRestore is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.sourceMajor = sourceMajor;
        this.targetMajor = targetMajor;
        this.table = requireNonNull(table, "table is null");
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        if (pgDump.isEmpty() || pgRestore.isEmpty()) {
            return Optional.of("pg_dump or pg_restore is not on the PATH");
        }
        int dump = pgDump.get().majorVersion();
        int restore = pgRestore.get().majorVersion();
        if (dump != sourceMajor || restore != targetMajor) {
            return Optional.of("client tools are PostgreSQL " + dump + " (pg_dump) / " + restore
                    + " (pg_restore), servers are " + sourceMajor + " / " + targetMajor
                    + "; pg_dump refuses a newer server. Put the matching client tools on the PATH to include it");
        }
        if (!info.target().table().equals(table.substring(table.indexOf('.') + 1))) {
            return Optional.of("pg_restore cannot restore into a table of another name");
        }
        return Optional.empty();
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        String script = "set -o pipefail; "
                + "PGPASSWORD=\"$SRC_PASSWORD\" " + pgDump.orElseThrow().path() + " -Fc --data-only -t " + table
                + " " + PsqlPipeScenario.connection(source) + " | "
                + "PGPASSWORD=\"$DST_PASSWORD\" " + pgRestore.orElseThrow().path() + " --data-only --exit-on-error "
                + PsqlPipeScenario.connection(target);
        return TimedProcess.runTool("pg_dump | pg_restore", info, runNumber, List.of("bash", "-c", script),
                Map.of("SRC_PASSWORD", source.password(), "DST_PASSWORD", target.password()), logDirectory);
    }
}

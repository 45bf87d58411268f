package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A merge as a DBA writes it by hand: {@code psql -c "COPY ... TO STDOUT (FORMAT binary)" | psql -1 -f merge.sql},
 * the script copying stdin into a temporary staging table ({@code \copy ... FROM pstdin}) and applying it with
 * {@code INSERT ... ON CONFLICT (key) DO UPDATE}, all in one transaction. What Sluice's merge is measured against.
 */
final class PsqlMergeScenario implements Scenario {
    private final ScenarioInfo info;
    private final Optional<ClientTool> psql;
    private final PgEndpoint source;
    private final PgEndpoint target;
    private final String sourceTable;
    private final List<String> key;
    private final List<String> columns;
    private final Path logDirectory;

    PsqlMergeScenario(ScenarioInfo info, Optional<ClientTool> psql, PgEndpoint source, PgEndpoint target,
                      String sourceTable, List<String> key, List<String> columns, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.psql = requireNonNull(psql, "psql is null");
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.sourceTable = requireNonNull(sourceTable, "sourceTable is null");
        this.key = List.copyOf(requireNonNull(key, "key is null"));
        this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
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
        String table = info.target().qualifiedTable();
        String updates = columns.stream().filter(c -> !key.contains(c)).map(c -> c + " = EXCLUDED." + c)
                .collect(Collectors.joining(", "));
        String sql = "CREATE TEMP TABLE staging (LIKE " + table + ") ON COMMIT DROP;\n"
                + "\\copy staging FROM pstdin (FORMAT binary)\n"
                + "INSERT INTO " + table + " SELECT * FROM staging ON CONFLICT (" + String.join(", ", key)
                + ") DO UPDATE SET " + updates + ";\n";
        Path script = logDirectory.resolve(info.id().replace('/', '-') + ".sql");
        try {
            Files.createDirectories(logDirectory);
            Files.writeString(script, sql);
        } catch (IOException e) {
            throw new ScenarioFailure("cannot write " + script + ": " + e.getMessage(), e);
        }
        String p = psql.orElseThrow().path().toString();
        String shell = "set -o pipefail; "
                + "PGPASSWORD=\"$SRC_PASSWORD\" " + p + " -X -q -v ON_ERROR_STOP=1 " + PsqlPipeScenario.connection(source)
                + " -c 'COPY " + sourceTable + " TO STDOUT (FORMAT binary)' | "
                + "PGPASSWORD=\"$DST_PASSWORD\" " + p + " -X -q -1 -v ON_ERROR_STOP=1 "
                + PsqlPipeScenario.connection(target) + " -f '" + script + "'";
        return TimedProcess.runTool("psql merge", info, runNumber, List.of("bash", "-c", shell),
                Map.of("SRC_PASSWORD", source.password(), "DST_PASSWORD", target.password()), logDirectory);
    }
}

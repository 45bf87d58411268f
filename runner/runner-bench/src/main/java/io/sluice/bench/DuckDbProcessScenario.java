package io.sluice.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * DuckDB as a user runs it, a whole process with the same engine version Sluice embeds (PyPI's {@code duckdb==1.5.5}
 * in a venv the harness provisions): either its {@code postgres_scanner} ({@code ATTACH} the target and
 * {@code INSERT INTO dst... SELECT ...} with {@code SET threads=N}), or the CSV pipe people write by hand,
 * {@code COPY (SELECT ...) TO '/dev/stdout' (FORMAT csv, HEADER false)} into
 * {@code psql -c "COPY ... FROM STDIN (FORMAT csv)"}.
 * Timed from the process's start to its end, like Sluice's CLI; the client CPU and peak RSS are the processes'.
 * Passwords and S3 keys reach the processes through the environment only.
 */
final class DuckDbProcessScenario implements Scenario {
    enum Mode { SCANNER, CSV_PIPE }

    /** Runs the statements given as a JSON list in the environment, on a DuckDB that loads extensions offline. */
    private static final String SCRIPT = String.join("\n",
            "import duckdb, json, os",
            "con = duckdb.connect(config={'extension_directory': os.environ['EXTENSIONS'],",
            "    'autoinstall_known_extensions': 'false', 'autoload_known_extensions': 'true',",
            "    'threads': int(os.environ['THREADS'])})",
            // Its progress bar writes carriage returns to stdout, into the CSV stream of the pipe (PostgreSQL then
            // refuses "unquoted carriage return found in data"), as anyone piping DuckDB's output finds out. It is
            // a session setting: connect() refuses it as a global option.
            "con.execute('SET enable_progress_bar = false')",
            "for statement in json.loads(os.environ['STATEMENTS']):",
            "    con.execute(statement)");

    private final ScenarioInfo info;
    private final Mode mode;
    private final Optional<Path> python;
    private final Optional<ClientTool> psql;
    private final Path extensionDirectory;
    private final PgEndpoint target;
    private final List<String> setupSql;
    private final String selectSql;
    private final int threads;
    private final Optional<String> skipReason;
    private final Path logDirectory;

    DuckDbProcessScenario(ScenarioInfo info, Mode mode, Optional<Path> python, Optional<ClientTool> psql,
                          Path extensionDirectory, PgEndpoint target, List<String> setupSql, String selectSql,
                          int threads, Optional<String> skipReason, Path logDirectory) {
        this.info = requireNonNull(info, "info is null");
        this.mode = requireNonNull(mode, "mode is null");
        this.python = requireNonNull(python, "python is null");
        this.psql = requireNonNull(psql, "psql is null");
        this.extensionDirectory = requireNonNull(extensionDirectory, "extensionDirectory is null");
        this.target = requireNonNull(target, "target is null");
        this.setupSql = List.copyOf(requireNonNull(setupSql, "setupSql is null"));
        this.selectSql = requireNonNull(selectSql, "selectSql is null");
        this.threads = threads;
        this.skipReason = requireNonNull(skipReason, "skipReason is null");
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        if (python.isEmpty()) {
            return Optional.of("no Python with duckdb==1.5.5 (runner/runner-bench/provision-duckdb-python.sh failed)");
        }
        if (mode == Mode.CSV_PIPE && psql.isEmpty()) {
            return Optional.of("psql is not on the PATH");
        }
        return skipReason;
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure, InterruptedException {
        List<String> statements = new ArrayList<>(setupSql);
        String table = info.target().qualifiedTable();
        String shell;
        if (mode == Mode.SCANNER) {
            statements.addFirst("LOAD postgres_scanner");
            statements.add("ATTACH " + literal(withoutPassword(target)) + " AS dst (TYPE postgres)");
            statements.add("INSERT INTO dst." + table + " " + selectSql);
            shell = "\"$PYTHON\" -c \"$SCRIPT\"";
        } else {
            statements.add("COPY (" + selectSql + ") TO '/dev/stdout' (FORMAT csv, HEADER false)");
            shell = "set -o pipefail; \"$PYTHON\" -c \"$SCRIPT\" | " + psql.orElseThrow().path() + " -X -q "
                    + "-v ON_ERROR_STOP=1 " + PsqlPipeScenario.connection(target) + " -c 'COPY " + table
                    + " FROM STDIN (FORMAT csv)'";
        }
        Map<String, String> environment = Map.of("PYTHON", python.orElseThrow().toString(), "SCRIPT", SCRIPT,
                "EXTENSIONS", extensionDirectory.toString(), "THREADS", Integer.toString(threads),
                "STATEMENTS", json(statements), "PGPASSWORD", target.password());
        return TimedProcess.runTool(mode == Mode.SCANNER ? "duckdb (python) postgres_scanner" : "duckdb | psql",
                info, runNumber, List.of("bash", "-c", shell), environment, logDirectory);
    }

    private static String withoutPassword(PgEndpoint e) {
        return "host=" + e.host() + " port=" + e.port() + " dbname=" + e.database() + " user=" + e.user();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String json(List<String> statements) {
        return statements.stream().map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"")
                .replace("\n", "\\n") + "\"").collect(Collectors.joining(", ", "[", "]"));
    }
}

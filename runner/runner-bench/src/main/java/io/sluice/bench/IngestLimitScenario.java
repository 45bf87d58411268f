package io.sluice.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The target's ingest limit: the target server reads the pre-dumped binary COPY file itself ({@code COPY t FROM
 * 'file' (FORMAT binary)}), so no client and no source take part. Needs the file on the target's host and a
 * superuser (or pg_read_server_files); a remote target fails here with the server's message. In one transaction
 * with a TRUNCATE and FREEZE it measures the ceiling of the shape Sluice's truncate load by one worker uses, which
 * PostgreSQL ingests faster (no WAL on wal_level=minimal, rows written frozen).
 */
final class IngestLimitScenario implements Scenario {
    private final ScenarioInfo info;
    private final PgEndpoint target;
    private final TableData data;
    private final boolean truncatingTransaction;

    IngestLimitScenario(ScenarioInfo info, PgEndpoint target, TableData data, boolean truncatingTransaction) {
        this.info = requireNonNull(info, "info is null");
        this.target = requireNonNull(target, "target is null");
        this.data = requireNonNull(data, "data is null");
        this.truncatingTransaction = truncatingTransaction;
    }

    @Override
    public ScenarioInfo info() {
        return info;
    }

    @Override
    public Optional<String> skipReason() {
        return Optional.empty();
    }

    @Override
    public ToolRun run(int runNumber) throws ScenarioFailure {
        String sql = "COPY " + info.target().qualifiedTable() + " FROM '"
                + data.binaryFile().toAbsolutePath().toString().replace("'", "''") + "' (FORMAT binary"
                + (truncatingTransaction ? ", FREEZE)" : ")");
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            long start = System.nanoTime();
            if (truncatingTransaction) {
                c.setAutoCommit(false);
                s.execute("TRUNCATE " + info.target().qualifiedTable());
            }
            s.execute(sql);
            if (truncatingTransaction) {
                c.commit();
            }
            return ToolRun.serverOnly((System.nanoTime() - start) / 1e9);
        } catch (SQLException e) {
            throw new ScenarioFailure("server-side COPY FROM file failed: " + e.getMessage(), e);
        }
    }
}

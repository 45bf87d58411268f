package io.sluice.connector.postgres;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import io.sluice.spi.ledger.StreamKey;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The run ledger in the target database: tables in the connection's {@code ledger-schema} (default {@code sluice}),
 * shared by every stream and run that loads into this database, bound here to one target table (which
 * {@link #truncateOnce} empties). Each call other than the writer's commit runs on a connection and transaction of
 * its own, so the ledger holds no state and is thread-safe.
 *
 * <p>Versioned: {@code ledger_version} holds one row per applied version; {@link #ensureReady()} applies the
 * missing steps of {@link #MIGRATIONS} under an advisory lock, so two runs starting at once neither race the DDL
 * nor see half-made tables. A ledger of a newer release is refused rather than misread.
 *
 * <p>Text stored here (definitions, predicates, errors) passes through the connection's secret scrubber as a last
 * guard: the runner hands it over redacted, and no URL or password may ever sit in a table others can read.
 */
final class PostgresRunLedger implements RunLedger {
    static final String LEDGER_UNUSABLE = "PG501";
    static final String LEDGER_TOO_NEW = "PG502";
    static final String DUPLICATE_COMMIT = "PG503";
    static final String NOT_STARTED = "PG504";
    static final String RUN_ID_TAKEN = "PG505";

    private static final String LEDGER_FIX_TAIL = "or set ledger-schema: to a schema this user may create tables in, "
            + "or ledger: off in the spec (no resume)";
    /** PostgreSQL keeps NAMEDATALEN - 1 bytes of a name and silently cuts longer ones. */
    private static final int MAX_NAME_BYTES = 63;

    private final PostgresConnections connections;
    private final String schema;
    private final String quotedSchema;
    private final QualifiedName targetName;
    private final java.util.function.Supplier<TableLocks> locks;

    PostgresRunLedger(PostgresConnections connections, String schema, QualifiedName targetName,
                      java.util.function.Supplier<TableLocks> locks) {
        this.connections = requireNonNull(connections, "connections is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.targetName = requireNonNull(targetName, "targetName is null");
        this.locks = requireNonNull(locks, "locks is null");
        // Validated on use rather than here so a bad name surfaces as a ConnectorException from ensureReady().
        this.quotedSchema = validName(schema) ? SqlQuote.identifier(schema) : "\"?\"";
    }

    private static boolean validName(String schema) {
        return !schema.isEmpty() && schema.indexOf('\0') < 0
                && schema.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES;
    }

    String schema() {
        return schema;
    }

    private String table(String name) {
        return quotedSchema + "." + name;
    }

    /**
     * The DDL of each ledger version, by version (index 0 is version 1). A later release appends a step (ALTER
     * TABLE ... ADD COLUMN, say) and bumps {@link RunLedger#VERSION}; older ledgers get the missing steps.
     */
    private List<List<String>> migrations() {
        String version = table("ledger_version");
        String streams = table("run_streams");
        String partitions = table("run_partitions");
        String attempts = table("run_attempts");
        return List.of(List.of(
                "CREATE TABLE IF NOT EXISTS " + version + " (version integer PRIMARY KEY, "
                        + "applied_at timestamptz NOT NULL DEFAULT now(), "
                        + "applied_by text NOT NULL DEFAULT current_user)",
                "CREATE TABLE IF NOT EXISTS " + streams + " ("
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "spec_name text NOT NULL, "
                        + "spec_checksum text NOT NULL, "
                        + "definition text NOT NULL, "
                        + "target_table text NOT NULL, "
                        + "state text NOT NULL CHECK (state IN ('running', 'done', 'failed', 'interrupted')), "
                        + "snapshot_mode text NOT NULL, "
                        + "started_at timestamptz NOT NULL, "
                        + "finished_at timestamptz, "
                        + "truncated_at timestamptz, "
                        + "row_count bigint NOT NULL DEFAULT 0, "
                        + "starts integer NOT NULL DEFAULT 1, "
                        + "error text, "
                        + "PRIMARY KEY (run_id, stream))",
                "CREATE INDEX IF NOT EXISTS run_streams_by_spec ON " + streams + " (spec_name, started_at DESC)",
                "CREATE TABLE IF NOT EXISTS " + partitions + " ("
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "partition_index integer, "
                        + "partition_id text NOT NULL, "
                        + "predicate text NOT NULL, "
                        + "checkpoint text NOT NULL, "
                        + "state text NOT NULL CHECK (state IN ('planned', 'done')), "
                        + "row_count bigint NOT NULL DEFAULT 0, "
                        + "byte_count bigint NOT NULL DEFAULT 0, "
                        + "attempts integer NOT NULL DEFAULT 0, "
                        + "started_at timestamptz, "
                        + "finished_at timestamptz, "
                        + "PRIMARY KEY (run_id, stream, partition_id))",
                "CREATE TABLE IF NOT EXISTS " + attempts + " ("
                        + "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                        + "run_id text NOT NULL, "
                        + "stream text NOT NULL, "
                        + "partition_id text NOT NULL, "
                        + "attempt integer NOT NULL, "
                        + "started_at timestamptz NOT NULL, "
                        + "finished_at timestamptz NOT NULL, "
                        + "outcome text NOT NULL CHECK (outcome IN ('retried', 'failed', 'cancelled')), "
                        + "error_code text, "
                        + "message text)",
                "CREATE INDEX IF NOT EXISTS run_attempts_by_partition ON " + attempts
                        + " (run_id, stream, partition_id)",
                "COMMENT ON TABLE " + streams + " IS 'Sluice run ledger: one row per stream of a run'",
                "COMMENT ON TABLE " + partitions + " IS 'Sluice run ledger: one row per planned partition; "
                        + "state done commits with the partition''s rows'",
                "COMMENT ON TABLE " + attempts + " IS 'Sluice run ledger: failed or cancelled partition attempts'"));
    }

    /** The statements that create the current ledger, for people who create it by hand ({@code docs/postgres.md}). */
    List<String> ddl() {
        List<String> all = new ArrayList<>();
        all.add("CREATE SCHEMA IF NOT EXISTS " + quotedSchema);
        migrations().forEach(all::addAll);
        all.add("INSERT INTO " + table("ledger_version") + " (version) VALUES (" + VERSION + ")");
        return all;
    }

    @Override
    public void ensureReady() throws ConnectorException {
        try (ControlConnection control = control()) {
            Connection c = control.connection();
            // Fast path without DDL: a user who may not CREATE can still use a ledger an administrator made.
            if (installedVersion(c) == VERSION) {
                checkPrivileges(c);
                return;
            }
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement(
                        "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                    lock.setString(1, "sluice ledger " + schema);
                    lock.execute();
                }
                if (!schemaExists(c)) {
                    execute(c, "CREATE SCHEMA IF NOT EXISTS " + quotedSchema);
                }
                int installed = installedVersion(c); // again: another run may have finished it while we waited
                List<List<String>> steps = migrations();
                for (int v = installed + 1; v <= VERSION; v++) {
                    for (String sql : steps.get(v - 1)) {
                        execute(c, sql);
                    }
                    execute(c, "INSERT INTO " + table("ledger_version") + " (version) VALUES (" + v + ")");
                }
                c.commit();
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
            checkPrivileges(c);
        } catch (SQLException e) {
            throw failure(e, "cannot set up the run ledger in schema " + quotedSchema);
        }
    }

    /** 0 when there is no ledger yet; refuses a ledger a newer release wrote. */
    private int installedVersion(Connection c) throws SQLException, ConnectorException {
        // CASE, not AND: the privilege functions fail on a schema that does not exist.
        try (PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL, "
                + "CASE WHEN to_regnamespace(?) IS NULL THEN false WHEN NOT has_schema_privilege(to_regnamespace(?), "
                + "'USAGE') THEN false ELSE has_table_privilege(to_regclass(?), 'SELECT') END")) {
            p.setString(1, table("ledger_version"));
            p.setString(2, quotedSchema);
            p.setString(3, quotedSchema);
            p.setString(4, table("ledger_version"));
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return 0;
                }
                if (!rs.getBoolean(2)) {
                    checkPrivileges(c); // names every missing grant at once
                }
            }
        }
        int version;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + table("ledger_version"))) {
            rs.next();
            version = rs.getInt(1);
        }
        if (version > VERSION) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, LEDGER_TOO_NEW, "the run ledger in schema "
                    + quotedSchema + " has version " + version + ", written by a newer Sluice; this release knows "
                    + "version " + VERSION + " and will not guess at it", "run the newer Sluice, "
                    + LEDGER_FIX_TAIL);
        }
        return version;
    }

    private boolean schemaExists(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
            p.setString(1, schema);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    /** Every privilege a run needs, checked up front: a writer must not find out only when its commit fails. */
    private void checkPrivileges(Connection c) throws SQLException, ConnectorException {
        String[][] needed = {
                {"run_streams", "SELECT"}, {"run_streams", "INSERT"}, {"run_streams", "UPDATE"},
                {"run_partitions", "SELECT"}, {"run_partitions", "INSERT"}, {"run_partitions", "UPDATE"},
                {"run_attempts", "INSERT"}, {"ledger_version", "SELECT"}};
        List<String> missing = new ArrayList<>();
        try (PreparedStatement usage = c.prepareStatement("SELECT has_schema_privilege(?, 'USAGE')")) {
            usage.setString(1, schema);
            try (ResultSet rs = usage.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    missing.add("USAGE ON SCHEMA " + quotedSchema);
                }
            }
        }
        if (missing.isEmpty()) {
            try (PreparedStatement p = c.prepareStatement("SELECT has_table_privilege(?, ?)")) {
                for (String[] need : needed) {
                    p.setString(1, table(need[0]));
                    p.setString(2, need[1]);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        if (!rs.getBoolean(1)) {
                            missing.add(need[1] + " ON TABLE " + table(need[0]));
                        }
                    }
                }
            }
        }
        if (!missing.isEmpty()) {
            String user = SqlQuote.identifier(new PostgresCatalog(c).currentUser());
            throw new ConnectorException(ErrorKind.PREFLIGHT, LEDGER_UNUSABLE, "user " + user + " may not use the "
                    + "run ledger in schema " + quotedSchema + ": lacks " + String.join(", ", missing),
                    String.join("; ", missing.stream().map(m -> "GRANT " + m + " TO " + user).toList()) + "; "
                            + LEDGER_FIX_TAIL);
        }
    }

    @Override
    public void startStream(LedgerStream stream) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        String sql = "INSERT INTO " + table("run_streams") + " AS r (run_id, stream, spec_name, spec_checksum, "
                + "definition, target_table, state, snapshot_mode, started_at, row_count, starts) "
                + "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, 0, 1) "
                + "ON CONFLICT (run_id, stream) DO UPDATE SET starts = r.starts + 1, state = 'running', "
                + "finished_at = NULL, error = NULL, spec_checksum = EXCLUDED.spec_checksum, "
                + "definition = EXCLUDED.definition, snapshot_mode = EXCLUDED.snapshot_mode "
                + "WHERE r.spec_name = EXCLUDED.spec_name RETURNING r.starts";
        try (ControlConnection control = control();
                PreparedStatement p = control.connection().prepareStatement(sql)) {
            p.setString(1, stream.runId());
            p.setString(2, stream.stream());
            p.setString(3, stream.specName());
            p.setString(4, stream.specChecksum());
            p.setString(5, scrub(stream.definition()));
            p.setString(6, targetName.quoted());
            p.setString(7, scrub(stream.snapshotMode()));
            p.setObject(8, timestamp(stream.startedAt()));
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new ConnectorException(ErrorKind.INVALID_SPEC, RUN_ID_TAKEN, "run id '"
                            + stream.runId() + "' already belongs to another spec in the run ledger " + quotedSchema
                            + " (stream " + stream.stream() + ")", "give this run another --run-id");
                }
            }
        } catch (SQLException e) {
            throw failure(e, "cannot record the start of stream " + stream.stream() + " of run " + stream.runId());
        }
    }

    private String streamSelect() {
        return "SELECT r.run_id, r.spec_name, r.spec_checksum, r.stream, r.definition, r.state, r.snapshot_mode, "
                + "r.started_at, r.finished_at, r.truncated_at, r.row_count, r.starts, r.error, "
                + "(SELECT count(*) FROM " + table("run_partitions") + " p WHERE p.run_id = r.run_id "
                + "AND p.stream = r.stream), "
                + "(SELECT count(*) FROM " + table("run_partitions") + " p WHERE p.run_id = r.run_id "
                + "AND p.stream = r.stream AND p.state = 'done') "
                + "FROM " + table("run_streams") + " r ";
    }

    @Override
    public Optional<LedgerStream> findStream(String runId, String stream) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        List<LedgerStream> found = streams(streamSelect() + "WHERE r.run_id = ? AND r.stream = ?",
                "cannot read stream " + stream + " of run " + runId, runId, stream);
        return found.stream().findFirst();
    }

    @Override
    public List<LedgerStream> streamsOfSpec(String specName, int limit) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        if (limit <= 0) {
            return List.of();
        }
        String sql = "WITH runs AS (SELECT run_id, min(started_at) AS run_started FROM " + table("run_streams")
                + " WHERE spec_name = ? GROUP BY run_id ORDER BY run_started DESC, run_id DESC LIMIT ?) "
                + streamSelect() + "JOIN runs USING (run_id) ORDER BY runs.run_started DESC, r.run_id DESC, "
                + "r.started_at, r.stream";
        return streams(sql, "cannot read the runs of spec " + specName, specName, limit);
    }

    @Override
    public List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        return streams(streamSelect() + "WHERE r.run_id = ? ORDER BY r.started_at, r.stream",
                "cannot read run " + runId, runId);
    }

    private List<LedgerStream> streams(String sql, String what, Object... parameters) throws ConnectorException {
        try (ControlConnection control = control();
                PreparedStatement p = control.connection().prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                p.setObject(i + 1, parameters[i]);
            }
            List<LedgerStream> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new LedgerStream(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), LedgerStream.State.valueOf(rs.getString(6).toUpperCase(Locale.ROOT)),
                            rs.getString(7), instant(rs, 8).orElseThrow(), instant(rs, 9), instant(rs, 10),
                            rs.getLong(11), rs.getInt(12), Optional.ofNullable(rs.getString(13)),
                            rs.getInt(14), rs.getInt(15)));
                }
            }
            return out;
        } catch (SQLException e) {
            if (noLedger(e)) {
                return List.of();
            }
            throw failure(e, what);
        }
    }

    @Override
    public void recordPlan(String runId, String stream, List<LedgerPartition> partitions) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(partitions, "partitions is null");
        try (ControlConnection control = control()) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                lockStream(c, runId, stream); // serializes two recordPlan calls of one stream
                try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM " + table("run_partitions")
                        + " WHERE run_id = ? AND stream = ? AND partition_index IS NOT NULL")) {
                    p.setString(1, runId);
                    p.setString(2, stream);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) > 0) {
                            c.rollback();
                            return; // planned before: a resume keeps the first plan
                        }
                    }
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table("run_partitions")
                        + " AS p (run_id, stream, partition_index, partition_id, predicate, checkpoint, state, "
                        + "row_count, byte_count, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (run_id, stream, partition_id) DO UPDATE SET "
                        + "partition_index = EXCLUDED.partition_index, predicate = EXCLUDED.predicate, "
                        + "checkpoint = EXCLUDED.checkpoint")) {
                    int batched = 0;
                    for (LedgerPartition partition : partitions) {
                        p.setString(1, runId);
                        p.setString(2, stream);
                        p.setInt(3, partition.index());
                        p.setString(4, partition.partitionId());
                        p.setString(5, scrub(partition.predicate()));
                        p.setString(6, partition.checkpoint());
                        p.setString(7, partition.state().name().toLowerCase(Locale.ROOT));
                        p.setLong(8, partition.rows());
                        p.setLong(9, partition.bytes());
                        p.setInt(10, partition.attempts());
                        p.addBatch();
                        if (++batched % 1000 == 0) {
                            p.executeBatch();
                        }
                    }
                    p.executeBatch();
                }
                c.commit();
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(e, "cannot record the plan of stream " + stream + " of run " + runId);
        }
    }

    @Override
    public List<LedgerPartition> partitions(String runId, String stream) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        String sql = "SELECT partition_index, partition_id, predicate, checkpoint, state, row_count, byte_count, "
                + "attempts FROM " + table("run_partitions") + " WHERE run_id = ? AND stream = ? "
                + "ORDER BY partition_index NULLS LAST, partition_id";
        try (ControlConnection control = control();
                PreparedStatement p = control.connection().prepareStatement(sql)) {
            p.setString(1, runId);
            p.setString(2, stream);
            List<LedgerPartition> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    int index = rs.getInt(1);
                    out.add(new LedgerPartition(rs.wasNull() ? -1 : index, rs.getString(2), rs.getString(3),
                            rs.getString(4), LedgerPartition.State.valueOf(rs.getString(5).toUpperCase(Locale.ROOT)),
                            rs.getLong(6), rs.getLong(7), rs.getInt(8)));
                }
            }
            return out;
        } catch (SQLException e) {
            if (noLedger(e)) {
                return List.of();
            }
            throw failure(e, "cannot read the partitions of stream " + stream + " of run " + runId);
        }
    }

    @Override
    public boolean truncateOnce(String runId, String stream) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        try (ControlConnection control = control()) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                boolean truncated = truncateOnce(c, new StreamKey(runId, stream));
                c.commit();
                return truncated;
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(e, "cannot truncate " + targetName.quoted() + " for stream " + stream + " of run " + runId);
        }
    }

    /**
     * {@link #truncateOnce(String, String)} in the caller's transaction on {@code c}, which must not autocommit: the
     * truncation and its record commit or roll back with whatever else that transaction writes.
     */
    boolean truncateOnce(Connection c, StreamKey key) throws SQLException, ConnectorException {
        requireNonNull(c, "c is null");
        requireNonNull(key, "key is null");
        checkName();
        // The stream's row lock first, the table's ACCESS EXCLUSIVE second: a racing resume of the same run waits
        // here and then sees truncated_at set.
        if (lockStream(c, key.runId(), key.stream()).isPresent()) {
            return false;
        }
        PostgresTarget.truncate(c, targetName, locks.get());
        try (PreparedStatement p = c.prepareStatement("UPDATE " + table("run_streams")
                + " SET truncated_at = clock_timestamp() WHERE run_id = ? AND stream = ?")) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            p.executeUpdate();
        }
        return true;
    }

    /** Locks the stream's row for this transaction and returns when it was truncated; fails if never started. */
    private Optional<Instant> lockStream(Connection c, String runId, String stream)
            throws SQLException, ConnectorException {
        try (PreparedStatement p = c.prepareStatement("SELECT truncated_at FROM " + table("run_streams")
                + " WHERE run_id = ? AND stream = ? FOR UPDATE")) {
            p.setString(1, runId);
            p.setString(2, stream);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw notStarted(runId, stream);
                }
                return instant(rs, 1);
            }
        }
    }

    private ConnectorException notStarted(String runId, String stream) {
        return new ConnectorException(ErrorKind.FAILED, NOT_STARTED, "the run ledger " + quotedSchema + " has no "
                + "stream " + stream + " of run " + runId, "the runner must record the stream's start first; "
                + "report this as a bug");
    }

    @Override
    public void recordAttempt(AttemptRecord attempt) throws ConnectorException {
        requireNonNull(attempt, "attempt is null");
        try (ControlConnection control = control()) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table("run_attempts")
                        + " (run_id, stream, partition_id, attempt, started_at, finished_at, outcome, error_code, "
                        + "message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    p.setString(1, attempt.runId());
                    p.setString(2, attempt.stream());
                    p.setString(3, attempt.partitionId());
                    p.setInt(4, attempt.attempt());
                    p.setObject(5, timestamp(attempt.startedAt()));
                    p.setObject(6, timestamp(attempt.finishedAt()));
                    p.setString(7, attempt.outcome().name().toLowerCase(Locale.ROOT));
                    setNullable(p, 8, attempt.errorCode().map(this::scrub));
                    setNullable(p, 9, attempt.message().map(this::scrub));
                    p.executeUpdate();
                }
                // The partition row shows how often it was tried, for status; a done row keeps its commit's count.
                try (PreparedStatement p = c.prepareStatement("UPDATE " + table("run_partitions") + " SET "
                        + "attempts = greatest(attempts, ?), started_at = coalesce(started_at, ?) "
                        + "WHERE run_id = ? AND stream = ? AND partition_id = ? AND state = 'planned'")) {
                    p.setInt(1, attempt.attempt());
                    p.setObject(2, timestamp(attempt.startedAt()));
                    p.setString(3, attempt.runId());
                    p.setString(4, attempt.stream());
                    p.setString(5, attempt.partitionId());
                    p.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(e, "cannot record attempt " + attempt.attempt() + " of partition " + attempt.partitionId()
                    + " of stream " + attempt.stream());
        }
    }

    @Override
    public void finishStream(String runId, String stream, LedgerStream.State state, long rows, Optional<String> error)
            throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(state, "state is null");
        requireNonNull(error, "error is null");
        try (ControlConnection control = control();
                PreparedStatement p = control.connection().prepareStatement("UPDATE " + table("run_streams")
                + " SET state = ?, row_count = ?, error = ?, finished_at = CASE WHEN ? THEN NULL "
                + "ELSE clock_timestamp() END WHERE run_id = ? AND stream = ?")) {
            p.setString(1, state.name().toLowerCase(Locale.ROOT));
            p.setLong(2, rows);
            setNullable(p, 3, error.map(this::scrub));
            p.setBoolean(4, state == LedgerStream.State.RUNNING);
            p.setString(5, runId);
            p.setString(6, stream);
            if (p.executeUpdate() == 0) {
                throw notStarted(runId, stream);
            }
        } catch (SQLException e) {
            throw failure(e, "cannot record the end of stream " + stream + " of run " + runId);
        }
    }

    /**
     * Marks a partition done on the writer's connection, inside the transaction that holds its rows, after the
     * COPY ended. The upsert only takes a row that is not done yet (it waits for a concurrent commit of the same
     * partition and then sees it done), so a second commit of one partition is caught here instead of doubling
     * its rows. The caller commits, or rolls back on an exception.
     */
    void markDone(Connection writer, PartitionDone done) throws SQLException, ConnectorException {
        checkName();
        String sql = "INSERT INTO " + table("run_partitions") + " AS p (run_id, stream, partition_id, predicate, "
                + "checkpoint, state, row_count, byte_count, attempts, started_at, finished_at) "
                + "VALUES (?, ?, ?, '', '', 'done', ?, ?, ?, ?, clock_timestamp()) "
                + "ON CONFLICT (run_id, stream, partition_id) DO UPDATE SET state = 'done', "
                + "row_count = EXCLUDED.row_count, byte_count = EXCLUDED.byte_count, attempts = EXCLUDED.attempts, "
                + "started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at "
                + "WHERE p.state <> 'done' RETURNING 1";
        try (PreparedStatement p = writer.prepareStatement(sql)) {
            p.setString(1, done.runId());
            p.setString(2, done.stream());
            p.setString(3, done.partitionId());
            p.setLong(4, done.rows());
            p.setLong(5, done.bytes());
            p.setInt(6, done.attempts());
            p.setObject(7, timestamp(done.startedAt()));
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new ConnectorException(ErrorKind.FAILED, DUPLICATE_COMMIT, "partition "
                            + done.partitionId() + " of stream " + done.stream() + " of run " + done.runId()
                            + " is already done in the run ledger " + quotedSchema + "; committing it again would "
                            + "copy its rows twice, so this attempt was rolled back",
                            "nothing to repair: the partition's rows are in the target once. If the runner retried "
                                    + "after a commit whose answer was lost, report it as a bug");
                }
            }
        }
    }

    private ControlConnection control() throws ConnectorException {
        checkName();
        return connections.control("the run ledger in schema " + quotedSchema);
    }

    private void checkName() throws ConnectorException {
        if (!validName(schema)) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, LEDGER_UNUSABLE, "ledger-schema '"
                    + connections.errors().scrub(schema) + "' is not a usable schema name (empty, NUL, or longer "
                    + "than " + MAX_NAME_BYTES + " bytes)", "set ledger-schema: to a shorter name");
        }
    }

    /** Reading a ledger that was never created finds nothing recorded, rather than failing {@code sluice status}. */
    private static boolean noLedger(SQLException e) {
        return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
    }

    private ConnectorException failure(SQLException e, String what) {
        ConnectorException translated = connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, what);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        // Cannot create the schema or use its tables: the user can fix that only by grants or by spec.
        if (state.equals("42501") || state.equals("3F000") || state.equals("42P01")) {
            return new ConnectorException(ErrorKind.PREFLIGHT, LEDGER_UNUSABLE, translated.getMessage(),
                    "let an administrator run CREATE SCHEMA " + quotedSchema + " AUTHORIZATION <this user> "
                            + "(or GRANT CREATE ON DATABASE to this user), " + LEDGER_FIX_TAIL,
                    translated.getCause());
        }
        return translated;
    }

    private String scrub(String text) {
        return connections.errors().scrub(text);
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void setNullable(PreparedStatement p, int index, Optional<String> value) throws SQLException {
        if (value.isPresent()) {
            p.setString(index, value.get());
        } else {
            p.setNull(index, Types.VARCHAR);
        }
    }

    private static OffsetDateTime timestamp(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private static Optional<Instant> instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return Optional.ofNullable(value).map(OffsetDateTime::toInstant);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            if (!c.isClosed() && !c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException | RuntimeException ignored) {
            // a broken connection rolled back on the server already
        }
    }
}

package io.sluice.connector.postgres;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ErrorKind;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionDone;
import io.sluice.spi.ledger.RunLedger;
import io.sluice.spi.ledger.StreamKey;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static io.sluice.connector.postgres.LedgerTables.instant;
import static io.sluice.connector.postgres.LedgerTables.rollbackQuietly;
import static io.sluice.connector.postgres.LedgerTables.setNullable;
import static io.sluice.connector.postgres.LedgerTables.timestamp;
import static java.util.Objects.requireNonNull;

/**
 * The run ledger in the target database: tables in the connection's {@code ledger-schema} (default {@code sluice}),
 * shared by every stream and run that loads into this database, bound here to one target table (which
 * {@link #truncateOnce} empties). Each call other than the writer's commit runs on a connection and transaction of
 * its own, so the ledger holds no state and is thread-safe.
 * The tables and their versions are {@link LedgerSchema}'s, the reads {@link LedgerQueries}'; this class writes.
 *
 * <p>Text stored here (definitions, predicates, errors) passes through the connection's secret scrubber as a last
 * guard: the runner hands it over redacted, and no URL or password may ever sit in a table others can read.
 */
final class PostgresRunLedger implements RunLedger {
    static final String LEDGER_UNUSABLE = PostgresCode.PG501.name();
    static final String LEDGER_TOO_NEW = PostgresCode.PG502.name();
    static final String DUPLICATE_COMMIT = PostgresCode.PG503.name();
    static final String NOT_STARTED = PostgresCode.PG504.name();
    static final String RUN_ID_TAKEN = PostgresCode.PG505.name();

    private final LedgerTables tables;
    private final LedgerSchema ddl;
    private final LedgerQueries queries;
    private final String quotedSchema;
    private final QualifiedName targetName;
    private final java.util.function.Supplier<TableLocks> locks;

    PostgresRunLedger(PostgresConnections connections, String schema, QualifiedName targetName,
                      java.util.function.Supplier<TableLocks> locks) {
        this.tables = new LedgerTables(connections, schema);
        this.ddl = new LedgerSchema(tables);
        this.queries = new LedgerQueries(tables);
        this.quotedSchema = tables.quotedSchema();
        this.targetName = requireNonNull(targetName, "targetName is null");
        this.locks = requireNonNull(locks, "locks is null");
    }

    String schema() {
        return tables.schema();
    }

    private String table(String name) {
        return tables.table(name);
    }

    @Override
    public void ensureReady() throws ConnectorException {
        ddl.ensureReady();
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
        try (ControlConnection control = tables.control();
                PreparedStatement p = control.connection().prepareStatement(sql)) {
            p.setString(1, stream.runId());
            p.setString(2, stream.stream());
            p.setString(3, stream.specName());
            p.setString(4, stream.specChecksum());
            p.setString(5, tables.scrub(stream.definition()));
            p.setString(6, targetName.quoted());
            p.setString(7, tables.scrub(stream.snapshotMode()));
            p.setObject(8, timestamp(stream.startedAt()));
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new ConnectorException(ErrorKind.INVALID_SPEC, RUN_ID_TAKEN, "run id '"
                            + stream.runId() + "' already belongs to another spec in the run ledger " + quotedSchema
                            + " (stream " + stream.stream() + ")", "give this run another --run-id");
                }
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record the start of stream " + stream.stream() + " of run " + stream.runId());
        }
    }

    @Override
    public Optional<LedgerStream> findStream(String runId, String stream) throws ConnectorException {
        return queries.findStream(runId, stream);
    }

    @Override
    public List<LedgerStream> streamsOfSpec(String specName, int limit) throws ConnectorException {
        return queries.streamsOfSpec(specName, limit);
    }

    @Override
    public List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        return queries.streamsOfRun(runId);
    }

    @Override
    public void recordPlan(String runId, String stream, List<LedgerPartition> partitions) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(partitions, "partitions is null");
        try (ControlConnection control = tables.control()) {
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
                        p.setString(5, tables.scrub(partition.predicate()));
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
            throw tables.failure(e, "cannot record the plan of stream " + stream + " of run " + runId);
        }
    }

    @Override
    public List<LedgerPartition> partitions(String runId, String stream) throws ConnectorException {
        return queries.partitions(runId, stream);
    }

    @Override
    public boolean truncateOnce(String runId, String stream) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        try (ControlConnection control = tables.control()) {
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
            throw tables.failure(e, "cannot truncate " + targetName.quoted() + " for stream " + stream + " of run " + runId);
        }
    }

    /**
     * {@link #truncateOnce(String, String)} in the caller's transaction on {@code c}, which must not autocommit: the
     * truncation and its record commit or roll back with whatever else that transaction writes.
     */
    boolean truncateOnce(Connection c, StreamKey key) throws SQLException, ConnectorException {
        requireNonNull(c, "c is null");
        requireNonNull(key, "key is null");
        tables.checkName();
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
        try (ControlConnection control = tables.control()) {
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
                    setNullable(p, 8, attempt.errorCode().map(tables::scrub));
                    setNullable(p, 9, attempt.message().map(tables::scrub));
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
            throw tables.failure(e, "cannot record attempt " + attempt.attempt() + " of partition " + attempt.partitionId()
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
        try (ControlConnection control = tables.control();
                PreparedStatement p = control.connection().prepareStatement("UPDATE " + table("run_streams")
                + " SET state = ?, row_count = ?, error = ?, finished_at = CASE WHEN ? THEN NULL "
                + "ELSE clock_timestamp() END WHERE run_id = ? AND stream = ?")) {
            p.setString(1, state.name().toLowerCase(Locale.ROOT));
            p.setLong(2, rows);
            setNullable(p, 3, error.map(tables::scrub));
            p.setBoolean(4, state == LedgerStream.State.RUNNING);
            p.setString(5, runId);
            p.setString(6, stream);
            if (p.executeUpdate() == 0) {
                throw notStarted(runId, stream);
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record the end of stream " + stream + " of run " + runId);
        }
    }

    /**
     * Marks a partition done on the writer's connection, inside the transaction that holds its rows, after the
     * COPY ended. The upsert only takes a row that is not done yet (it waits for a concurrent commit of the same
     * partition and then sees it done), so a second commit of one partition is caught here instead of doubling
     * its rows. The caller commits, or rolls back on an exception.
     */
    void markDone(Connection writer, PartitionDone done) throws SQLException, ConnectorException {
        tables.checkName();
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
}

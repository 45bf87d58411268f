package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.QualifiedName;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.TableLocks;
import io.sluice.connector.postgres.session.TargetOwnership;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.StreamInRun;
import io.sluice.spi.ledger.StreamKey;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static io.sluice.connector.postgres.ledger.LedgerTables.rollbackQuietly;
import static java.util.Objects.requireNonNull;

/**
 * The run ledger's rows in the target database: tables in the connection's {@code ledger-schema} (default
 * {@code sluice}), shared by every stream and run that loads into this database. {@link LedgerSchema} creates and
 * migrates them, {@link LedgerQueries} reads them, {@link LedgerRows} reads and writes them inside a transaction: one
 * of the store's own on the control connection, or a writer's (the target's transactions reach the runner's ledger
 * work through {@link #rowsOn}). What the rows mean is the runner's ({@code io.sluice.core.ledger.Ledger}).
 */
public final class PostgresLedgerStore implements LedgerStore {
    public static final String LEDGER_UNUSABLE = PostgresCode.PG501.name();
    public static final String LEDGER_TOO_NEW = PostgresCode.PG502.name();

    private final LedgerTables tables;
    private final LedgerSchema ddl;
    private final LedgerQueries queries;
    private final QualifiedName targetName;
    private final PostgresConnections connections;

    public PostgresLedgerStore(PostgresConnections connections, String schema, QualifiedName targetName) {
        this.tables = new LedgerTables(connections, requireNonNull(schema, "schema is null"));
        this.ddl = new LedgerSchema(tables);
        this.queries = new LedgerQueries(tables);
        this.targetName = requireNonNull(targetName, "targetName is null");
        this.connections = connections;
    }

    /** The stream's lock-timeout and wait reports apply to the ledger's own transactions too. */
    public void waitForLocks(TableLocks locks) {
        tables.waitForLocks(requireNonNull(locks, "locks is null"));
    }

    String schema() {
        return tables.schema();
    }

    @Override
    public String describe() {
        return "the run ledger in schema " + tables.quotedSchema();
    }

    @Override
    public void ensureReady() throws ConnectorException {
        ddl.ensureReady();
    }

    @Override
    public <T> T inTransaction(LedgerWork<T> work) throws ConnectorException {
        requireNonNull(work, "work is null");
        return tables.waitingForLocks(lockTimeout -> attempt(work, lockTimeout));
    }

    private <T> T attempt(LedgerWork<T> work, java.time.Duration lockTimeout)
            throws ConnectorException, LedgerTables.LockedLedger {
        try (ControlConnection control = tables.control()) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                LedgerTables.waitAtMost(c, lockTimeout);
                T result = work.apply(rowsOn(c));
                c.commit();
                return result;
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
                if (LedgerTables.lockTimedOut(e)) {
                    throw new LedgerTables.LockedLedger();
                }
                throw e;
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot write " + describe());
        }
    }

    /**
     * The ledger's rows inside the open transaction of {@code connection} (which must not autocommit): what the
     * runner's work writes there commits or rolls back with whatever else that transaction holds.
     */
    public LedgerRows rowsOn(Connection connection) throws ConnectorException {
        tables.checkName();
        return new LedgerRows(tables, requireNonNull(connection, "connection is null"), targetName);
    }

    /**
     * Finds the lockers by the rows' {@code xmax}: a row locked or updated by a transaction still open carries its
     * id, and that transaction holds the lock on its own id, which names its session. Only sessions named for this run
     * ({@link TargetOwnership#sessionTag}) are ended, never this process's own.
     */
    @Override
    public int endStalledLocks(StreamKey key, String holder, java.time.Duration patience) throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(holder, "holder is null");
        requireNonNull(patience, "patience is null");
        String sql = "SELECT count(pg_terminate_backend(a.pid)) FROM " + tables.table("run_partitions") + " r "
                + "JOIN pg_locks l ON l.locktype = 'transactionid' AND l.granted AND l.transactionid = r.xmax "
                + "JOIN pg_stat_activity a ON a.pid = l.pid "
                + "WHERE r.run_id = ? AND r.stream = ? AND r.state = 'planned' "
                + "AND (r.lease_until IS NULL OR r.lease_until < now()) "
                + "AND a.application_name LIKE ? AND a.application_name <> ? AND a.pid <> pg_backend_pid() "
                + "AND a.xact_start < now() - make_interval(secs => ?)";
        try (ControlConnection control = connections.control("ending stalled locks on " + describe());
             java.sql.PreparedStatement p = control.connection().prepareStatement(sql)) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            p.setString(3, TargetOwnership.runToken(key.runId()) + "%");
            p.setString(4, TargetOwnership.sessionTag(key.runId(), holder));
            p.setDouble(5, patience.toMillis() / 1000.0);
            try (java.sql.ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot end the sessions holding locks on " + describe());
        }
    }

    @Override
    public List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        return queries.streamsOfRun(runId);
    }

    @Override
    public List<LedgerStream> streamsOfSpec(String specName, int runs) throws ConnectorException {
        return queries.streamsOfSpec(specName, runs);
    }

    @Override
    public java.util.Optional<java.util.Set<String>> unfinishedRuns(String specName) throws ConnectorException {
        return java.util.Optional.of(queries.unfinishedRuns(specName));
    }

    @Override
    public List<StreamInRun> streamInRuns(String specName, String stream, int runs)
            throws ConnectorException {
        return queries.streamInRuns(specName, stream, runs);
    }

    @Override
    public List<LedgerPartition> partitions(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        return queries.partitions(key.runId(), key.stream());
    }

    @Override
    public List<AttemptRecord> attempts(StreamKey key) throws ConnectorException {
        return queries.attempts(requireNonNull(key, "key is null"));
    }

    @Override
    public java.util.Map<String, String> marks(StreamKey key) throws ConnectorException {
        return queries.marks(key);
    }

    @Override
    public java.util.Map<String, String> changeFeedTables(String specName, String feed) throws ConnectorException {
        return queries.changeFeedTables(specName, feed);
    }

    @Override
    public List<ChangeFeedRecord> changeFeeds(String specName) throws ConnectorException {
        return queries.changeFeeds(specName);
    }
}

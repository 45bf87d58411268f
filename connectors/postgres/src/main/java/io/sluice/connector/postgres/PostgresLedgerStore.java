package io.sluice.connector.postgres;

import io.sluice.spi.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStore;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerWork;
import io.sluice.spi.ledger.StreamKey;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static io.sluice.connector.postgres.LedgerTables.rollbackQuietly;
import static java.util.Objects.requireNonNull;

/**
 * The run ledger's rows in the target database: tables in the connection's {@code ledger-schema} (default
 * {@code sluice}), shared by every stream and run that loads into this database. {@link LedgerSchema} creates and
 * migrates them, {@link LedgerQueries} reads them, {@link LedgerRows} reads and writes them inside a transaction: one
 * of the store's own on the control connection, or a writer's (the target's transactions reach the runner's ledger
 * work through {@link #rowsOn}). What the rows mean is the runner's ({@code io.sluice.core.ledger.Ledger}).
 */
final class PostgresLedgerStore implements LedgerStore {
    static final String LEDGER_UNUSABLE = PostgresCode.PG501.name();
    static final String LEDGER_TOO_NEW = PostgresCode.PG502.name();

    private final LedgerTables tables;
    private final LedgerSchema ddl;
    private final LedgerQueries queries;
    private final QualifiedName targetName;

    PostgresLedgerStore(PostgresConnections connections, String schema, QualifiedName targetName) {
        this.tables = new LedgerTables(connections, requireNonNull(schema, "schema is null"));
        this.ddl = new LedgerSchema(tables);
        this.queries = new LedgerQueries(tables);
        this.targetName = requireNonNull(targetName, "targetName is null");
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
        try (ControlConnection control = tables.control()) {
            Connection c = control.connection();
            c.setAutoCommit(false);
            try {
                T result = work.apply(rowsOn(c));
                c.commit();
                return result;
            } catch (SQLException | ConnectorException | RuntimeException e) {
                rollbackQuietly(c);
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
    LedgerRows rowsOn(Connection connection) throws ConnectorException {
        tables.checkName();
        return new LedgerRows(tables, requireNonNull(connection, "connection is null"), targetName);
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
}

package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.CopyOutReader;
import io.sluice.connector.postgres.session.ConnectionSlot;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PartitionReaders;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceRows;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.compare.MergedRows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

import static java.util.Objects.requireNonNull;

/**
 * What the readers of one stream share. With SNAPSHOT a coordinator connection holds a REPEATABLE READ transaction
 * that exported its snapshot ({@code pg_export_snapshot()}); it stays open until the session closes, since an
 * exported snapshot can be imported only while its transaction lives. Every reader imports it, so all partitions
 * see the same rows: none inserted during the copy, none twice. NONE: each reader sees what is committed when it
 * starts.
 */
public final class PostgresSourceSession implements SourceSession {
    private final PostgresConnections connections;
    private final Connection coordinator;
    private final Optional<String> snapshot;
    private final BiFunction<PgPartition, SourceProjection, String> statements;
    private final String description;
    private final List<String> tablesRead;
    private final TableLocks locks;
    private final MaskKeys keys;

    private PostgresSourceSession(PostgresConnections connections, Connection coordinator, Optional<String> snapshot,
                                  BiFunction<PgPartition, SourceProjection, String> statements, String description,
                                  List<String> tablesRead, TableLocks locks, MaskKeys keys) {
        this.connections = requireNonNull(connections, "connections is null");
        this.keys = requireNonNull(keys, "keys is null");
        this.tablesRead = List.copyOf(tablesRead);
        this.locks = requireNonNull(locks, "locks is null");
        this.coordinator = coordinator;
        this.snapshot = requireNonNull(snapshot, "snapshot is null");
        this.statements = requireNonNull(statements, "statements is null");
        this.description = requireNonNull(description, "description is null");
    }

    static PostgresSourceSession open(PostgresConnections connections, Consistency consistency,
                                      BiFunction<PgPartition, SourceProjection, String> statements,
                                      String description, List<String> tablesToLock, TableLocks locks,
                                      MaskKeys keys) throws ConnectorException {
        if (consistency == Consistency.NONE) {
            return new PostgresSourceSession(connections, null, Optional.empty(), statements, description,
                    tablesToLock, locks, keys);
        }
        Exported exported = export(connections, description, tablesToLock, locks);
        return new PostgresSourceSession(connections, exported.coordinator(), Optional.of(exported.id()), statements,
                description, tablesToLock, locks, keys);
    }

    /** A session reading in a snapshot exported for several streams ({@link #export}), which it does not own. */
    static PostgresSourceSession sharing(PostgresConnections connections, String snapshotId,
                                         BiFunction<PgPartition, SourceProjection, String> statements,
                                         String description, List<String> tablesRead, TableLocks locks,
                                         MaskKeys keys) {
        return new PostgresSourceSession(connections, null, Optional.of(snapshotId), statements, description,
                tablesRead, locks, keys);
    }

    /** A snapshot and the connection whose open transaction keeps it importable. */
    record Exported(Connection coordinator, String id) {
    }

    /**
     * Exports a snapshot of {@code tablesToLock}, taken after ACCESS SHARE on every one of them, on a coordinator
     * connection whose REPEATABLE READ transaction stays open until the caller closes it.
     */
    static Exported export(PostgresConnections connections, String description, List<String> tablesToLock,
                           TableLocks locks) throws ConnectorException {
        Connection coordinator = connections.open("the snapshot of " + description);
        try {
            coordinator.setAutoCommit(false);
            coordinator.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            coordinator.setReadOnly(true);
            // ACCESS SHARE on every table read, before the snapshot is taken, held with it (as pg_dump does): a
            // TRUNCATE, DROP or ALTER by someone else now waits for the run instead of emptying what later
            // partitions read (TRUNCATE is not MVCC-safe: an older snapshot sees the table empty).
            locks.lock(coordinator, tablesToLock, TableLocks.Mode.ACCESS_SHARE, "read it", ErrorKind.PREFLIGHT);
            try (Statement s = coordinator.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_export_snapshot()")) {
                rs.next();
                return new Exported(coordinator, rs.getString(1));
            }
        } catch (ConnectorException | RuntimeException e) {
            PostgresConnections.closeQuietly(coordinator);
            throw e;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(coordinator);
            ConnectorException translated = connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE,
                    "cannot export a snapshot of " + description);
            throw new ConnectorException(translated.kind(), translated.code(), translated.getMessage(),
                    "set consistency: none (e.g. on a standby that cannot export snapshots)", translated.getCause());
        }
    }

    @Override
    public String snapshotMode() {
        return snapshot.map(id -> "snapshot " + id).orElse("none");
    }

    @Override
    public PartitionReader openReader(SourcePartition partition, SourceProjection projection)
            throws ConnectorException {
        return reader(ConnectionSlot.oneOff(connections), partition, projection);
    }

    /** The worker's readers share one connection; each partition still runs in its own transaction. */
    @Override
    public PartitionReaders openReaders(SourceProjection projection) {
        requireNonNull(projection, "projection is null");
        ConnectionSlot slot = ConnectionSlot.forWorker(connections, snapshot.isPresent()
                ? PostgresConnections.Use.SNAPSHOT_READER : PostgresConnections.Use.READER);
        return new PartitionReaders() {
            @Override
            public PartitionReader open(SourcePartition partition) throws ConnectorException {
                return reader(slot, partition, projection);
            }

            @Override
            public void close() {
                slot.close();
            }
        };
    }

    private CopyOutReader reader(ConnectionSlot slot, SourcePartition partition, SourceProjection projection)
            throws ConnectorException {
        if (!(partition instanceof PgPartition pg)) {
            throw new IllegalArgumentException("not a partition of a PostgreSQL source: " + partition.id());
        }
        // Each partition's transaction takes its ACCESS SHARE lock as a visible, bounded wait: a TRUNCATE or ALTER
        // queued behind the session's lock would otherwise hold this reader up silently, for the whole run.
        return CopyOutReader.open(slot, snapshot, statements.apply(pg, projection),
                description + " partition " + partition.id(),
                c -> {
                    locks.lock(c, tablesRead, TableLocks.Mode.ACCESS_SHARE, "read it", ErrorKind.FAILED);
                    keys.set(c);
                });
    }

    /**
     * Counts and hashes a partition's rows where they live, on a connection of its own that imports the session's
     * snapshot (so it sees exactly the rows the readers saw), with {@link DigestQuery#SETTINGS} so values render as
     * the target renders them. Values are taken as the target stores them (see
     * {@link PostgresProjection#digestExpressions()}).
     */
    @Override
    public Optional<Digest> digest(SourcePartition partition, SourceProjection projection, Digest.Level level)
            throws ConnectorException {
        requireNonNull(level, "level is null");
        return Optional.of(digest(partition, projection, level, RowHash.POSTGRES));
    }

    private Digest digest(SourcePartition partition, SourceProjection projection, Digest.Level level, RowHash hash)
            throws ConnectorException {
        String what = "the digest of " + description + " partition " + partition.id();
        Connection connection = snapshotConnection(what, partition);
        try {
            Digest digest = DigestQuery.run(connection, select(partition, DigestQuery.selectList(
                    digestExpressions(projection), level, hash)), level);
            connection.commit();
            return digest;
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing " + what);
        } finally {
            PostgresConnections.closeQuietly(connection);
        }
    }

    /**
     * Prepares a connection of its own to see what the readers see: {@link DigestQuery#SETTINGS}, a transaction that
     * imports the session's snapshot when it has one, the mask keys.
     */
    private void inSnapshot(Connection connection) throws SQLException {
        DigestQuery.prepare(connection);
        connection.setAutoCommit(false);
        if (snapshot.isPresent()) {
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            connection.setReadOnly(true);
            try (Statement s = connection.createStatement()) {
                s.execute("SET TRANSACTION SNAPSHOT " + SqlQuote.literal(snapshot.get()));
            }
        }
        keys.set(connection);
    }

    /** A partition's rows listed by key in the session's snapshot, values as {@link #digest} takes them. */
    @Override
    public Optional<SourceRows> rows() {
        return Optional.of(new SourceRows() {
            @Override
            public java.util.Set<RowHash> hashes() {
                return java.util.EnumSet.allOf(RowHash.class);
            }

            @Override
            public Digest digest(SourcePartition partition, SourceProjection projection, RowHash hash)
                    throws ConnectorException {
                return PostgresSourceSession.this.digest(partition, projection, Digest.Level.CHECKSUM, hash);
            }

            /** Each partition on a connection of its own in the snapshot, merged. */
            @Override
            public HashedRows list(List<SourcePartition> partitions, SourceProjection projection,
                                   List<Integer> keyColumns, Buckets buckets, RowHash hash) throws ConnectorException {
                List<HashedRows> opened = new java.util.ArrayList<>();
                try {
                    for (SourcePartition partition : partitions) {
                        opened.add(list(partition, projection, keyColumns, buckets, hash));
                    }
                    HashedRows rows = opened.size() == 1 ? opened.getFirst() : new MergedRows(opened);
                    opened.clear(); // closed with rows now
                    return rows;
                } finally {
                    opened.forEach(HashedRows::close);
                }
            }

            private HashedRows list(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                                    Buckets buckets, RowHash hash) throws ConnectorException {
                List<String> expressions = digestExpressions(projection);
                int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
                String what = "the rows of " + description + " partition " + partition.id();
                Connection connection = snapshotConnection(what, partition);
                return HashedRowsQuery.open(connections, connection, HashedRowsQuery.listing(inner(partition,
                        expressions, keyColumns, buckets.count(), hash), keyCount, expressions.size(), buckets), keyCount,
                        expressions.size(), what);
            }

            @Override
            public List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection,
                                              List<Integer> keyColumns, int count, RowHash hash)
                    throws ConnectorException {
                String what = "the bucket digests of " + description + " partition " + partition.id();
                Connection connection = snapshotConnection(what, partition);
                try {
                    return HashedRowsQuery.readBucketDigests(connection, HashedRowsQuery.bucketDigests(inner(
                            partition, digestExpressions(projection), keyColumns, count, hash)), count);
                } catch (SQLException e) {
                    throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "computing " + what);
                } finally {
                    PostgresConnections.closeQuietly(connection);
                }
            }
        });
    }

    private static List<String> digestExpressions(SourceProjection projection) {
        return projection instanceof PostgresProjection p ? p.digestExpressions() : projection.expressions();
    }

    private static String inner(SourcePartition partition, List<String> expressions, List<Integer> keyColumns,
                                int buckets, RowHash hash) {
        return select(partition, HashedRowsQuery.innerList(expressions, keyColumns, buckets, hash));
    }

    private static String select(SourcePartition partition, String selectList) {
        if (!(partition instanceof PgPartition pg)) {
            throw new IllegalArgumentException("not a partition of a PostgreSQL source: " + partition.id());
        }
        return pg.select(selectList);
    }

    /**
     * A connection of its own in the session's snapshot ({@link #inSnapshot}) to read {@code partition}, its scans
     * narrowed to the partition's predicate when it reads a table, not a query ({@link DigestQuery#narrowScans}); the
     * caller closes it.
     */
    private Connection snapshotConnection(String what, SourcePartition partition) throws ConnectorException {
        Connection connection = connections.open(what);
        try {
            inSnapshot(connection);
            if (partition instanceof PgPartition pg && pg.where().isPresent() && !pg.readsQuery()) {
                DigestQuery.narrowScans(connection);
            }
            return connection;
        } catch (SQLException e) {
            PostgresConnections.closeQuietly(connection);
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, "reading " + what);
        }
    }

    @Override
    public void close() {
        if (coordinator != null) {
            try {
                coordinator.rollback();
            } catch (SQLException | RuntimeException ignored) {
                // ending the session ends the transaction anyway
            }
            PostgresConnections.closeQuietly(coordinator);
        }
    }
}

package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.catalog.QualifiedName;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.ChangeFeedRows;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamKey;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static io.sluice.connector.postgres.ledger.LedgerTables.setNullable;
import static io.sluice.connector.postgres.ledger.LedgerTables.timestamp;
import static java.util.Objects.requireNonNull;

/**
 * The ledger's rows inside one open transaction on {@code connection}; locks are {@code FOR UPDATE} row locks. Text
 * passes the connection's secret scrubber on its way in, a last guard: the runner hands it over redacted, and no URL
 * or password may ever sit in a table others can read.
 */
public final class LedgerRows implements LedgerTransaction, ChangeFeedRows {
    private static final int BATCH_ROWS = 1000;

    private final LedgerTables tables;
    private final LedgerQueries shapes;
    private final Connection connection;
    private final QualifiedName targetName;

    LedgerRows(LedgerTables tables, Connection connection, QualifiedName targetName) {
        this.tables = requireNonNull(tables, "tables is null");
        this.shapes = new LedgerQueries(tables);
        this.connection = requireNonNull(connection, "connection is null");
        this.targetName = requireNonNull(targetName, "targetName is null");
    }

    @Override
    public boolean insertStream(LedgerStream stream) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        String sql = "INSERT INTO " + tables.table("run_streams") + " (run_id, stream, spec_name, spec_checksum, "
                + "definition, target_table, state, snapshot_mode, started_at, finished_at, truncated_at, row_count, "
                + "starts, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (run_id, stream) DO NOTHING RETURNING 1";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, stream.runId());
            p.setString(2, stream.stream());
            p.setString(3, stream.specName());
            p.setString(4, stream.specChecksum());
            p.setString(5, tables.scrub(stream.definition()));
            p.setString(6, targetName.quoted());
            setStreamState(p, 7, stream);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record stream " + stream.stream() + " of run " + stream.runId());
        }
    }

    /** state, snapshot_mode, started_at, finished_at, truncated_at, row_count, starts, error from {@code first}. */
    private void setStreamState(PreparedStatement p, int first, LedgerStream stream) throws SQLException {
        p.setString(first, stream.state().name().toLowerCase(Locale.ROOT));
        p.setString(first + 1, tables.scrub(stream.snapshotMode()));
        p.setObject(first + 2, timestamp(stream.startedAt()));
        setInstant(p, first + 3, stream.finishedAt());
        setInstant(p, first + 4, stream.truncatedAt());
        p.setLong(first + 5, stream.rows());
        p.setInt(first + 6, stream.starts());
        setNullable(p, first + 7, stream.error().map(tables::scrub));
    }

    @Override
    public Optional<LedgerStream> lockStream(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        try (PreparedStatement p = connection.prepareStatement(shapes.streamSelect()
                + "WHERE r.run_id = ? AND r.stream = ? FOR UPDATE OF r")) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(LedgerQueries.stream(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read stream " + key.stream() + " of run " + key.runId());
        }
    }

    @Override
    public void updateStream(LedgerStream stream) throws ConnectorException {
        requireNonNull(stream, "stream is null");
        String sql = "UPDATE " + tables.table("run_streams") + " SET spec_checksum = ?, definition = ?, state = ?, "
                + "snapshot_mode = ?, started_at = ?, finished_at = ?, truncated_at = ?, row_count = ?, starts = ?, "
                + "error = ? WHERE run_id = ? AND stream = ?";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, stream.specChecksum());
            p.setString(2, tables.scrub(stream.definition()));
            setStreamState(p, 3, stream);
            p.setString(11, stream.runId());
            p.setString(12, stream.stream());
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record stream " + stream.stream() + " of run " + stream.runId());
        }
    }

    @Override
    public List<LedgerPartition> partitions(StreamKey key) throws ConnectorException {
        return selectPartitions(key, Optional.empty());
    }

    @Override
    public Optional<LedgerPartition> lockPartition(StreamKey key, String partitionId) throws ConnectorException {
        return selectPartitions(key, Optional.of(requireNonNull(partitionId, "partitionId is null"))).stream()
                .findFirst();
    }

    private List<LedgerPartition> selectPartitions(StreamKey key, Optional<String> locked) throws ConnectorException {
        requireNonNull(key, "key is null");
        String sql = shapes.partitionSelect() + "WHERE run_id = ? AND stream = ?"
                + (locked.isPresent() ? " AND partition_id = ? FOR UPDATE" : LedgerQueries.PARTITION_ORDER);
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            if (locked.isPresent()) {
                p.setString(3, locked.get());
            }
            List<LedgerPartition> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(LedgerQueries.partition(rs));
                }
            }
            return out;
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read the partitions of stream " + key.stream() + " of run "
                    + key.runId());
        }
    }

    @Override
    public void writePartitions(StreamKey key, List<LedgerPartition> partitions) throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(partitions, "partitions is null");
        String sql = "INSERT INTO " + tables.table("run_partitions") + " (run_id, stream, partition_index, "
                + "partition_id, predicate, checkpoint, state, row_count, byte_count, attempts, started_at, "
                + "finished_at, claimed_by, lease_until, rows_rejected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (run_id, stream, partition_id) DO UPDATE SET "
                + "partition_index = EXCLUDED.partition_index, predicate = EXCLUDED.predicate, "
                + "checkpoint = EXCLUDED.checkpoint, state = EXCLUDED.state, row_count = EXCLUDED.row_count, "
                + "byte_count = EXCLUDED.byte_count, attempts = EXCLUDED.attempts, "
                + "started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, "
                + "claimed_by = EXCLUDED.claimed_by, lease_until = EXCLUDED.lease_until, "
                + "rows_rejected = EXCLUDED.rows_rejected";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            int batched = 0;
            for (LedgerPartition partition : partitions) {
                p.setString(1, key.runId());
                p.setString(2, key.stream());
                if (partition.index() < 0) {
                    p.setNull(3, Types.INTEGER);
                } else {
                    p.setInt(3, partition.index());
                }
                p.setString(4, partition.partitionId());
                p.setString(5, tables.scrub(partition.predicate()));
                p.setString(6, partition.checkpoint());
                p.setString(7, partition.state().name().toLowerCase(Locale.ROOT));
                p.setLong(8, partition.rows());
                p.setLong(9, partition.bytes());
                p.setInt(10, partition.attempts());
                setInstant(p, 11, partition.startedAt());
                setInstant(p, 12, partition.finishedAt());
                setNullable(p, 13, partition.claim().map(PartitionClaim::holder));
                setInstant(p, 14, partition.claim().map(PartitionClaim::leaseUntil));
                p.setLong(15, partition.rejected());
                p.addBatch();
                if (++batched % BATCH_ROWS == 0) {
                    p.executeBatch();
                }
            }
            p.executeBatch();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record the partitions of stream " + key.stream() + " of run "
                    + key.runId());
        }
    }

    @Override
    public Instant now() throws ConnectorException {
        try (PreparedStatement p = connection.prepareStatement("SELECT clock_timestamp()");
             ResultSet rs = p.executeQuery()) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read the server's clock");
        }
    }

    @Override
    public Optional<LedgerPartition> lockNextClaimable(StreamKey key, Instant now) throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(now, "now is null");
        String sql = shapes.partitionSelect() + "WHERE run_id = ? AND stream = ? AND state = 'planned' "
                + "AND partition_index IS NOT NULL AND (lease_until IS NULL OR lease_until < ?) "
                + "ORDER BY partition_index LIMIT 1 FOR UPDATE SKIP LOCKED";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            p.setObject(3, timestamp(now));
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(LedgerQueries.partition(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot claim a partition of stream " + key.stream() + " of run " + key.runId());
        }
    }

    @Override
    public void insertAttempt(AttemptRecord attempt) throws ConnectorException {
        requireNonNull(attempt, "attempt is null");
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + tables.table("run_attempts")
                + " (run_id, stream, partition_id, attempt, started_at, finished_at, outcome, error_code, message) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
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
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record attempt " + attempt.attempt() + " of partition "
                    + attempt.partitionId() + " of stream " + attempt.stream());
        }
    }

    @Override
    public java.util.Map<String, String> marks(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        try {
            return LedgerQueries.marks(connection, shapes.marksSelect(), key);
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read the marks of stream " + key.stream() + " of run " + key.runId());
        }
    }

    /** The stream's row locked and its marks read in one statement (a row of NULLs: locked, no mark). */
    @Override
    public Optional<java.util.Map<String, String>> lockedMarks(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        String sql = "SELECT m.name, m.value FROM (SELECT run_id, stream FROM " + tables.table("run_streams")
                + " WHERE run_id = ? AND stream = ? FOR UPDATE) s LEFT JOIN " + tables.table("run_marks")
                + " m ON m.run_id = s.run_id AND m.stream = s.stream ORDER BY m.name";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                java.util.Map<String, String> marks = new java.util.LinkedHashMap<>();
                do {
                    if (rs.getString(1) != null) {
                        marks.put(rs.getString(1), rs.getString(2));
                    }
                } while (rs.next());
                return Optional.of(marks);
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read the marks of stream " + key.stream() + " of run " + key.runId());
        }
    }

    @Override
    public void writeMark(StreamKey key, String name, String value) throws ConnectorException {
        requireNonNull(key, "key is null");
        requireNonNull(name, "name is null");
        requireNonNull(value, "value is null");
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + tables.table("run_marks")
                + " AS m (run_id, stream, name, value, updated_at) VALUES (?, ?, ?, ?, clock_timestamp()) "
                + "ON CONFLICT (run_id, stream, name) DO UPDATE SET value = EXCLUDED.value, "
                + "updated_at = EXCLUDED.updated_at")) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            p.setString(3, name);
            p.setString(4, tables.scrub(value));
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record mark " + name + " of stream " + key.stream() + " of run "
                    + key.runId());
        }
    }

    @Override
    public Optional<ChangeFeedRows> changeFeedRows() {
        return Optional.of(this);
    }

    @Override
    public Optional<ChangeFeedRecord> lockChangeFeed(String specName, String feed)
            throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        try (PreparedStatement p = connection.prepareStatement("SELECT spec_name, feed, state, position, run_id, "
                + "updated_at FROM " + tables.table("change_feeds") + " WHERE spec_name = ? AND feed = ? FOR UPDATE")) {
            p.setString(1, specName);
            p.setString(2, feed);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(LedgerQueries.changeFeed(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw tables.failure(e, "cannot read change feed " + feed + " of spec " + specName);
        }
    }

    @Override
    public void writeChangeFeed(ChangeFeedRecord feed) throws ConnectorException {
        requireNonNull(feed, "feed is null");
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + tables.table("change_feeds")
                + " (spec_name, feed, state, position, run_id, updated_at) VALUES (?, ?, ?, ?, ?, clock_timestamp()) "
                + "ON CONFLICT (spec_name, feed) DO UPDATE SET state = EXCLUDED.state, position = EXCLUDED.position, "
                + "run_id = EXCLUDED.run_id, updated_at = EXCLUDED.updated_at")) {
            p.setString(1, feed.specName());
            p.setString(2, feed.feed());
            p.setString(3, feed.state().name().toLowerCase(java.util.Locale.ROOT));
            p.setString(4, feed.position());
            p.setString(5, feed.runId());
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record change feed " + feed.feed() + " of spec " + feed.specName());
        }
    }

    @Override
    public void deleteChangeFeed(String specName, String feed) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        try (PreparedStatement p = connection.prepareStatement("DELETE FROM " + tables.table("change_feeds")
                + " WHERE spec_name = ? AND feed = ?")) {
            p.setString(1, specName);
            p.setString(2, feed);
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot remove change feed " + feed + " of spec " + specName);
        }
        deleteChangeFeedTables(specName, feed);
    }

    @Override
    public void writeChangeFeedTables(String specName, String feed, java.util.Map<String, String> positions)
            throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        requireNonNull(positions, "positions is null");
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + tables.table("change_feed_tables")
                + " (spec_name, feed, table_name, position) SELECT ?, ?, t, p FROM unnest(?::text[], ?::text[]) "
                + "AS u (t, p) ON CONFLICT (spec_name, feed, table_name) DO UPDATE SET position = EXCLUDED.position")) {
            p.setString(1, specName);
            p.setString(2, feed);
            p.setArray(3, connection.createArrayOf("text", positions.keySet().toArray()));
            p.setArray(4, connection.createArrayOf("text", positions.values().toArray()));
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot record how far the tables of change feed " + feed + " of spec "
                    + specName + " got");
        }
    }

    @Override
    public void deleteChangeFeedTables(String specName, String feed) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        try (PreparedStatement p = connection.prepareStatement("DELETE FROM " + tables.table("change_feed_tables")
                + " WHERE spec_name = ? AND feed = ?")) {
            p.setString(1, specName);
            p.setString(2, feed);
            p.executeUpdate();
        } catch (SQLException e) {
            throw tables.failure(e, "cannot forget the table positions of change feed " + feed + " of spec "
                    + specName);
        }
    }

    private static void setInstant(PreparedStatement p, int index, Optional<Instant> value) throws SQLException {
        if (value.isPresent()) {
            p.setObject(index, timestamp(value.get()));
        } else {
            p.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }
}

package io.sluice.connector.postgres.ledger;

import io.sluice.connector.postgres.session.ControlConnection;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.ledger.AttemptRecord;
import io.sluice.spi.ledger.ChangeFeedRecord;
import io.sluice.spi.ledger.LedgerPartition;
import io.sluice.spi.ledger.LedgerStream;
import io.sluice.spi.ledger.PartitionClaim;
import io.sluice.spi.ledger.StreamInRun;
import io.sluice.spi.ledger.StreamKey;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static io.sluice.connector.postgres.ledger.LedgerTables.instant;
import static java.util.Objects.requireNonNull;

/**
 * Reads of the run ledger, each on a connection of its own, and the row shapes {@link LedgerRows} reads too. A ledger that was never created reads as empty rather
 * than failing, so {@code sluice status} of a spec that never ran says so.
 */
public final class LedgerQueries {
    private final LedgerTables tables;

    LedgerQueries(LedgerTables tables) {
        this.tables = requireNonNull(tables, "tables is null");
    }

    private String table(String name) {
        return tables.table(name);
    }

    /** The columns of a stream's row, with its partition counts, from {@code run_streams r}. */
    String streamSelect() {
        return "SELECT r.run_id, r.spec_name, r.spec_checksum, r.stream, r.definition, r.state, r.snapshot_mode, "
                + "r.started_at, r.finished_at, r.truncated_at, r.row_count, r.starts, r.error, "
                + "(SELECT count(*) FROM " + table("run_partitions") + " p WHERE p.run_id = r.run_id "
                + "AND p.stream = r.stream), "
                + "(SELECT count(*) FROM " + table("run_partitions") + " p WHERE p.run_id = r.run_id "
                + "AND p.stream = r.stream AND p.state = 'done') "
                + "FROM " + table("run_streams") + " r ";
    }

    static LedgerStream stream(ResultSet rs) throws SQLException {
        return new LedgerStream(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getString(5), LedgerStream.State.valueOf(rs.getString(6).toUpperCase(Locale.ROOT)),
                rs.getString(7), instant(rs, 8).orElseThrow(), instant(rs, 9), instant(rs, 10),
                rs.getLong(11), rs.getInt(12), Optional.ofNullable(rs.getString(13)),
                rs.getInt(14), rs.getInt(15));
    }

    /** The columns of a partition's row; {@link #PARTITION_ORDER} is plan order. */
    String partitionSelect() {
        return "SELECT partition_index, partition_id, predicate, checkpoint, state, row_count, byte_count, "
                + "attempts, started_at, finished_at, claimed_by, lease_until, rows_rejected FROM "
                + table("run_partitions") + " ";
    }

    static final String PARTITION_ORDER = " ORDER BY partition_index NULLS LAST, partition_id";

    static LedgerPartition partition(ResultSet rs) throws SQLException {
        int index = rs.getInt(1);
        int position = rs.wasNull() ? -1 : index;
        String holder = rs.getString(11);
        Optional<PartitionClaim> claim = holder == null ? Optional.empty()
                : Optional.of(new PartitionClaim(holder, instant(rs, 12).orElseThrow()));
        return new LedgerPartition(position, rs.getString(2), rs.getString(3), rs.getString(4),
                LedgerPartition.State.valueOf(rs.getString(5).toUpperCase(Locale.ROOT)), rs.getLong(6),
                rs.getLong(7), rs.getInt(8), instant(rs, 9), instant(rs, 10), claim, rs.getLong(13));
    }

    List<LedgerStream> streamsOfSpec(String specName, int limit) throws ConnectorException {
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

    /** The runs of the spec with a stream not done (from the partial index of such streams). */
    java.util.Set<String> unfinishedRuns(String specName) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        String sql = "SELECT DISTINCT run_id FROM " + table("run_streams") + " WHERE state <> 'done' AND spec_name = ?";
        return tables.read("cannot read the unfinished runs of spec " + specName, java.util.Set.of(), c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setString(1, specName);
                java.util.Set<String> runs = new java.util.HashSet<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        runs.add(rs.getString(1));
                    }
                }
                return runs;
            }
        });
    }

    /** One stream's rows in the spec's newest runs that recorded it, each with whether its run is unfinished. */
    List<StreamInRun> streamInRuns(String specName, String stream, int limit)
            throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(stream, "stream is null");
        String sql = "SELECT s.*, EXISTS (SELECT 1 FROM " + table("run_streams") + " o WHERE o.run_id = s.run_id "
                + "AND o.state <> 'done') FROM (" + streamSelect() + "WHERE r.spec_name = ? AND r.stream = ? "
                + "ORDER BY r.started_at DESC LIMIT ?) s";
        return tables.read("cannot read the runs of stream " + stream, List.of(), c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setString(1, specName);
                p.setString(2, stream);
                p.setInt(3, Math.max(0, limit));
                List<StreamInRun> out = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(new StreamInRun(stream(rs), rs.getBoolean(
                                rs.getMetaData().getColumnCount())));
                    }
                }
                return out;
            }
        });
    }

    List<LedgerStream> streamsOfRun(String runId) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        return streams(streamSelect() + "WHERE r.run_id = ? ORDER BY r.started_at, r.stream",
                "cannot read run " + runId, runId);
    }

    private List<LedgerStream> streams(String sql, String what, Object... parameters) throws ConnectorException {
        return tables.read(what, List.of(), c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                for (int i = 0; i < parameters.length; i++) {
                    p.setObject(i + 1, parameters[i]);
                }
                List<LedgerStream> out = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(stream(rs));
                    }
                }
                return out;
            }
        });
    }

    List<LedgerPartition> partitions(String runId, String stream) throws ConnectorException {
        requireNonNull(runId, "runId is null");
        requireNonNull(stream, "stream is null");
        String sql = partitionSelect() + "WHERE run_id = ? AND stream = ?" + PARTITION_ORDER;
        return tables.read("cannot read the partitions of stream " + stream + " of run " + runId, List.of(), c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setString(1, runId);
                p.setString(2, stream);
                List<LedgerPartition> out = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(partition(rs));
                    }
                }
                return out;
            }
        });
    }

    List<AttemptRecord> attempts(StreamKey key) throws ConnectorException {
        String sql = "SELECT run_id, stream, partition_id, attempt, started_at, finished_at, outcome, error_code, "
                + "message FROM " + table("run_attempts") + " WHERE run_id = ? AND stream = ? ORDER BY id";
        return tables.read("cannot read the attempts of stream " + key.stream() + " of run " + key.runId(), List.of(), c -> {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                p.setString(1, key.runId());
                p.setString(2, key.stream());
                List<AttemptRecord> out = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(new AttemptRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
                                instant(rs, 5).orElseThrow(), instant(rs, 6).orElseThrow(),
                                AttemptRecord.Outcome.valueOf(rs.getString(7).toUpperCase(Locale.ROOT)),
                                Optional.ofNullable(rs.getString(8)), Optional.ofNullable(rs.getString(9))));
                    }
                }
                return out;
            }
        });
    }

    String marksSelect() {
        return "SELECT name, value FROM " + table("run_marks") + " WHERE run_id = ? AND stream = ? ORDER BY name";
    }

    static java.util.Map<String, String> marks(java.sql.Connection c, String sql, StreamKey key) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, key.runId());
            p.setString(2, key.stream());
            java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
            return out;
        }
    }

    java.util.Map<String, String> marks(StreamKey key) throws ConnectorException {
        requireNonNull(key, "key is null");
        return tables.read("cannot read the marks of stream " + key.stream() + " of run " + key.runId(),
                java.util.Map.of(), c -> marks(c, marksSelect(), key));
    }

    static ChangeFeedRecord changeFeed(ResultSet rs) throws SQLException {
        return new ChangeFeedRecord(rs.getString(1), rs.getString(2),
                ChangeFeedRecord.State.valueOf(rs.getString(3).toUpperCase(Locale.ROOT)),
                rs.getString(4), rs.getString(5), instant(rs, 6));
    }

    java.util.Map<String, String> changeFeedTables(String specName, String feed) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        requireNonNull(feed, "feed is null");
        return tables.read("cannot read the table positions of change feed " + feed + " of spec "
                    + specName, java.util.Map.of(), c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT table_name, position FROM "
                     + table("change_feed_tables") + " WHERE spec_name = ? AND feed = ?")) {
                p.setString(1, specName);
                p.setString(2, feed);
                java.util.Map<String, String> positions = new java.util.HashMap<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        positions.put(rs.getString(1), rs.getString(2));
                    }
                }
                return positions;
            }
        });
    }

    List<ChangeFeedRecord> changeFeeds(String specName) throws ConnectorException {
        requireNonNull(specName, "specName is null");
        return tables.read("cannot read the change feeds of spec " + specName, List.of(), c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT spec_name, feed, state, position, "
                     + "run_id, updated_at FROM " + table("change_feeds") + " WHERE spec_name = ? ORDER BY feed")) {
                p.setString(1, specName);
                List<ChangeFeedRecord> feeds = new ArrayList<>();
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        feeds.add(changeFeed(rs));
                    }
                }
                return feeds;
            }
        });
    }
}

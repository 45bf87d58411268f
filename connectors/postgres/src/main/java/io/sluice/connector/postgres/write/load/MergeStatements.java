package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.copy.AfterCopy;
import io.sluice.connector.postgres.copy.BeforeCopy;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.TableLocks;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.RejectedRow;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.LoadRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG219;
import static java.util.Objects.requireNonNull;

/**
 * A merge's statements for one target: each partition is copied into the worker session's temporary staging table
 * and applied with {@code INSERT ... ON CONFLICT (key) DO UPDATE} in the partition's own transaction, which also
 * holds its ledger row; with {@code delete-missing} its keys go into the run's keys table.
 */
public final class MergeStatements {
    static final String STAGING = "pg_temp.sluice_staging";
    /** Memory for a worker session's staging table (PostgreSQL allocates it as the table grows). */
    static final String STAGING_BUFFERS = "256MB";

    private final String target;
    private final String keys;
    private final List<String> mergeKey;
    private final List<String> nullableKey;
    private final LoadRequest request;
    private final Supplier<TableLocks> locks;

    /**
     * {@code target} and {@code keys} quoted; {@code nullableKey} the key columns the target lets hold NULL;
     * {@code locks} as the stream's lock-timeout says at the time.
     */
    MergeStatements(String target, String keys, List<String> mergeKey, List<String> nullableKey, LoadRequest request,
                    Supplier<TableLocks> locks, java.util.Optional<String> rejects, List<String> unfed) {
        this.rejects = requireNonNull(rejects, "rejects is null");
        this.unfed = List.copyOf(requireNonNull(unfed, "unfed is null"));
        this.target = requireNonNull(target, "target is null");
        this.keys = requireNonNull(keys, "keys is null");
        this.mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        this.nullableKey = List.copyOf(requireNonNull(nullableKey, "nullableKey is null"));
        this.request = requireNonNull(request, "request is null");
        this.locks = requireNonNull(locks, "locks is null");
    }

    private final java.util.Optional<String> rejects;
    /** Target columns no source column feeds and nothing fills: an updated row holds NULL there, as an inserted one. */
    private final List<String> unfed;

    String keyList(String prefix) {
        return mergeKey.stream().map(k -> prefix + SqlQuote.identifier(k)).collect(Collectors.joining(", "));
    }

    /** The statement that applies the staged rows of one partition to the target. */
    String applyStatement(List<Column> copied) {
        String list = columnList(copied);
        List<String> updated = copied.stream().map(Column::name).filter(n -> !mergeKey.contains(n))
                .map(SqlQuote::identifier).toList();
        List<String> nulled = unfed.stream().filter(n -> copied.stream().noneMatch(c -> c.name().equals(n)))
                .map(SqlQuote::identifier).toList();
        String select = request.onDuplicate() == LoadRequest.OnDuplicate.LAST
                // ctid order is the order COPY wrote the rows in: the staging table is emptied at each commit
                ? "SELECT DISTINCT ON (" + keyList("") + ") " + list + " FROM " + STAGING + " ORDER BY " + keyList("")
                + ", ctid DESC"
                : "SELECT " + list + " FROM " + STAGING;
        return "INSERT INTO " + target + " (" + list + ") " + select + " ON CONFLICT (" + keyList("") + ") DO "
                + (updated.isEmpty() && nulled.isEmpty() ? "NOTHING" : "UPDATE SET " + java.util.stream.Stream.concat(
                updated.stream().map(n -> n + " = EXCLUDED." + n), nulled.stream().map(n -> n + " = NULL"))
                .collect(Collectors.joining(", ")));
    }

    /** After the last partition: the target rows whose key no partition staged. */
    String deleteMissingStatement() {
        return "DELETE FROM " + target + " t WHERE NOT EXISTS (SELECT 1 FROM " + keys + " k WHERE "
                + mergeKey.stream().map(k -> "k." + SqlQuote.identifier(k) + " = t." + SqlQuote.identifier(k))
                .collect(Collectors.joining(" AND ")) + ")";
    }

    /** The merge's work in a partition's transaction before its COPY: the session's staging table, empty. */
    BeforeCopy before(List<Column> copied) {
        String list = columnList(copied);
        String create = "CREATE TEMP TABLE IF NOT EXISTS sluice_staging ON COMMIT DELETE ROWS AS SELECT " + list
                + " FROM " + target + " WITH NO DATA";
        return c -> {
            locks.get().lock(c, List.of(target), TableLocks.Mode.ROW_EXCLUSIVE, "merge into it", ErrorKind.FAILED);
            try (Statement s = c.createStatement()) {
                // Before the session's first temporary table (later, the same value is accepted and changes
                // nothing): with the default 8 MB a partition's staged rows spill to disk; in memory the merge of
                // 2 M rows took 0.67x the time (docs/benchmarks.md, "Load modes").
                s.execute("SET temp_buffers = '" + STAGING_BUFFERS + "'");
                s.execute(create);
            }
            PostgresConnections.madeTemporaryObjects(c);
        };
    }

    /**
     * The merge's work at the partition's commit: apply the staged rows (a duplicate key named when
     * {@code on-duplicate: error}), and keep their keys for {@code delete-missing}. {@code intoEmpty}: the target
     * held no row when the load began.
     */
    AfterCopy after(List<Column> copied, boolean intoEmpty) throws ConnectorException {
        Set<String> names = copied.stream().map(Column::name).collect(Collectors.toSet());
        for (String key : mergeKey) {
            if (!names.contains(key)) {
                throw new ConnectorException(ErrorKind.INVALID_SPEC, PG219, "merge-key column " + key + " of "
                        + target + " is not copied from the source", "map a source column to it");
            }
        }
        String apply = applyStatement(copied);
        String list = columnList(copied);
        String insert = "INSERT INTO " + target + " (" + list + ") SELECT " + list + " FROM " + STAGING;
        String keep = "INSERT INTO " + keys + " SELECT " + keyList("") + " FROM " + STAGING;
        String nullKeys = nullableKey.isEmpty() ? "" : "SELECT count(*) FROM " + STAGING + " WHERE "
                + nullableKey.stream().map(k -> SqlQuote.identifier(k) + " IS NULL").collect(Collectors.joining(" OR "));
        String duplicatesAside = request.onDuplicate() == LoadRequest.OnDuplicate.REJECT && rejects.isPresent()
                ? "WITH d AS (DELETE FROM " + STAGING + " s WHERE (" + keyList("s.") + ") IN (SELECT " + keyList("")
                + " FROM " + STAGING + " GROUP BY " + keyList("") + " HAVING count(*) > 1) RETURNING s.*) INSERT INTO "
                + rejects.get() + " (run_id, stream, partition_id, row_data, column_name, error_code, error_message) "
                + "SELECT ?, ?, ?, to_jsonb(d), " + SqlQuote.literal("merge-key (" + String.join(", ", mergeKey) + ")")
                + ", 'PG217', 'two or more source rows with this merge key in the partition (on-duplicate: reject)' "
                + "FROM d" : "";
        return new AfterCopy() {
            @Override
            public long setAside(Connection c, RejectedRow.Origin origin) throws SQLException {
                if (duplicatesAside.isEmpty()) {
                    return 0;
                }
                try (java.sql.PreparedStatement p = c.prepareStatement(duplicatesAside)) {
                    p.setString(1, origin.runId());
                    p.setString(2, origin.stream());
                    p.setString(3, origin.partitionId());
                    return p.executeUpdate();
                }
            }

            @Override
            public void run(Connection c) throws SQLException, ConnectorException {
                applyTo(c, insert, keep, nullKeys, apply, intoEmpty);
            }
        };
    }

    private void applyTo(Connection c, String insert, String keep, String nullKeys, String apply, boolean intoEmpty)
            throws SQLException, ConnectorException {
        {
            try (Statement s = c.createStatement()) {
                if (!nullKeys.isEmpty()) {
                    refuseNullKeys(s, nullKeys);
                }
                s.execute("SAVEPOINT sluice_merge");
                // Into a table that was empty, most partitions meet no key: a plain INSERT is then what ON CONFLICT
                // would do, at about twice its speed (2 M rows: 7.1 s against 18.3 s). A conflict (a key another
                // partition wrote, or a duplicate, which the merge below names) rolls it back to the savepoint.
                if (intoEmpty) {
                    try {
                        s.execute(insert);
                        s.execute("RELEASE SAVEPOINT sluice_merge");
                        if (request.deleteMissing()) {
                            s.execute(keep);
                        }
                        return;
                    } catch (SQLException e) {
                        if (!"23505".equals(e.getSQLState())) {
                            throw e;
                        }
                        s.execute("ROLLBACK TO SAVEPOINT sluice_merge");
                    }
                }
                try {
                    s.execute(apply);
                } catch (SQLException e) {
                    if (!"21000".equals(e.getSQLState())) {
                        throw e;
                    }
                    s.execute("ROLLBACK TO SAVEPOINT sluice_merge");
                    throw duplicate(s);
                }
                s.execute("RELEASE SAVEPOINT sluice_merge");
                if (request.deleteMissing()) {
                    s.execute(keep);
                }
            }
        }
    }

    /** A row whose key holds NULL matches no row: ON CONFLICT would insert it again on every run. */
    private void refuseNullKeys(Statement s, String count) throws SQLException, ConnectorException {
        try (java.sql.ResultSet rs = s.executeQuery(count)) {
            rs.next();
            long rows = rs.getLong(1);
            if (rows > 0) {
                throw new ConnectorException(ErrorKind.FAILED, PostgresCode.PG221, rows + " source row(s) of the "
                        + "partition have NULL in merge key column(s) " + String.join(", ", nullableKey) + " of "
                        + target + ": NULL matches no key, so each run would insert them again; the partition was "
                        + "rolled back", "filter those rows out of the source (a query: source), or merge on "
                        + "columns that are never NULL");
            }
        }
    }

    private ConnectorException duplicate(Statement s) throws SQLException {
        String sql = "SELECT " + mergeKey.stream().map(k -> SqlQuote.identifier(k) + "::text")
                .collect(Collectors.joining(" || ', ' || ")) + ", count(*) FROM " + STAGING + " GROUP BY "
                + keyList("") + " HAVING count(*) > 1 LIMIT 1";
        String example = "";
        try (java.sql.ResultSet rs = s.executeQuery(sql)) {
            if (rs.next()) {
                example = " (" + String.join(", ", mergeKey) + ") = (" + rs.getString(1) + ") appears "
                        + rs.getLong(2) + " times";
            }
        }
        return new ConnectorException(ErrorKind.FAILED, PostgresCode.PG217, "the source has two rows with one "
                + "merge key in a partition:" + example + "; the partition was rolled back", "fix the source, or set "
                + "on-duplicate: last on the stream (the row read last wins)");
    }

    private static String columnList(List<Column> columns) {
        return columns.stream().map(c -> SqlQuote.identifier(c.name())).collect(Collectors.joining(", "));
    }
}

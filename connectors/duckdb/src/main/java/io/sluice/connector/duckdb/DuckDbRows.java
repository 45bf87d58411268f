package io.sluice.connector.duckdb;

import io.sluice.spi.Buckets;
import io.sluice.spi.Digest;
import io.sluice.spi.HashedRow;
import io.sluice.spi.HashedRows;
import io.sluice.spi.RowHash;
import io.sluice.spi.SourcePartition;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.SourceRows;
import io.sluice.spi.error.ConnectorException;
import org.duckdb.DuckDBConnection;

import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A DuckDB source's rows for {@code sluice compare}, hashed by {@link RowHash#PORTABLE} where they are read: each
 * value's text as the target prints it ({@link CompareText}), a row as its values' {@code <characters>:<text>} or
 * {@code N} joined by commas, the first 15 hex digits of its MD5 as a number. Each statement on a connection of its
 * own (files have no snapshot to share; a file changed since the load shows as differences). A listing is sorted by
 * DuckDB, which holds the sorted rows (spilling to disk past its memory limit); Sluice reads them a row at a time.
 */
final class DuckDbRows implements SourceRows {
    private final DuckDbDatabase database;

    DuckDbRows(DuckDbDatabase database) {
        this.database = requireNonNull(database, "database is null");
    }

    @Override
    public Set<RowHash> hashes() {
        return EnumSet.of(RowHash.PORTABLE);
    }

    @Override
    public Digest digest(SourcePartition partition, SourceProjection projection, RowHash hash)
            throws ConnectorException {
        DuckDbPartition p = (DuckDbPartition) partition;
        List<String> texts = texts(projection, hash);
        String sql = "SELECT count(*), coalesce(sum(" + md5Bits(rowText(texts)) + "), 0)::VARCHAR FROM ("
                + ((DuckDbProjection) projection).shaped(p.relation()) + ") AS sluice_q";
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
             Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return new Digest(rs.getLong(1), Optional.of(new BigInteger(rs.getString(2))));
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    @Override
    public List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                                      int count, RowHash hash) throws ConnectorException {
        DuckDbPartition p = (DuckDbPartition) partition;
        String sql = "SELECT b, count(*), coalesce(sum(d), 0)::VARCHAR FROM (" + inner(p.relation(), projection,
                texts(projection, hash), keyColumns, count) + ") AS r GROUP BY b";
        List<Digest> digests = new ArrayList<>(Collections.nCopies(count, Digest.zero(Digest.Level.CHECKSUM)));
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
             Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                digests.set(rs.getInt(1), new Digest(rs.getLong(2), Optional.of(new BigInteger(rs.getString(3)))));
            }
            return digests;
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    @Override
    public HashedRows list(List<SourcePartition> partitions, SourceProjection projection, List<Integer> keyColumns,
                           Buckets buckets, RowHash hash) throws ConnectorException {
        DuckDbPartition p = (DuckDbPartition) partitions.getFirst(); // names the read in errors
        // One statement over every partition, sorted by DuckDB.
        String relation = partitions.size() == 1 ? p.relation() : String.join(" UNION ALL ", partitions.stream()
                .map(part -> "SELECT * FROM (" + ((DuckDbPartition) part).relation() + ")").toList());
        List<String> texts = texts(projection, hash);
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        List<String> out = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 1; i <= keyCount; i++) {
            out.add("k" + i);
            order.add("k" + i + " COLLATE \"binary\""); // code point order (UTF-8 bytes), as PostgreSQL's COLLATE "C"
        }
        for (int i = 1; i <= texts.size(); i++) {
            out.add("h" + i);
        }
        String sql = "SELECT " + String.join(", ", out) + " FROM (" + inner(relation, projection, texts, keyColumns,
                buckets.count()) + ") AS r" + (buckets.all() ? "" : " WHERE b IN (" + String.join(", ",
                buckets.chosen().stream().map(String::valueOf).toList()) + ")") + " ORDER BY "
                + String.join(", ", order);
        DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
        try {
            Statement s = connection.createStatement();
            return new Cursor(connection, s.executeQuery(sql), keyCount, texts.size(), p);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    private static List<String> texts(SourceProjection projection, RowHash hash) throws ConnectorException {
        if (hash != RowHash.PORTABLE) {
            throw new IllegalArgumentException("DuckDB hashes rows by PORTABLE only, not " + hash);
        }
        return ((DuckDbProjection) projection).compareTexts();
    }

    /** Key texts k1.., value hashes h1.., the row's hash d and its bucket b. */
    private static String inner(String relation, SourceProjection projection, List<String> texts,
                                List<Integer> keyColumns, int buckets) {
        List<String> keys = keyColumns.isEmpty() ? texts : keyColumns.stream().map(texts::get).toList();
        List<String> select = new ArrayList<>();
        if (keyColumns.isEmpty()) {
            select.add(rowText(texts) + " AS k1");
        } else {
            for (int i = 0; i < keys.size(); i++) {
                select.add(keys.get(i) + " AS k" + (i + 1));
            }
        }
        for (int i = 0; i < texts.size(); i++) {
            select.add(md5Bits(texts.get(i)) + " AS h" + (i + 1));
        }
        select.add(md5Bits(rowText(texts)) + " AS d");
        select.add("(" + md5Bits(rowText(keys)) + ") % " + buckets + " AS b");
        return "SELECT " + String.join(", ", select) + " FROM (" + ((DuckDbProjection) projection)
                .shaped(relation) + ") AS sluice_q";
    }

    /** Each value as {@code <characters>:<text>} or {@code N}, joined by commas (never NULL). */
    private static String rowText(List<String> texts) {
        return String.join(" || ',' || ", texts.stream().map(t -> "coalesce(length(" + t + ")::VARCHAR || ':' || "
                + t + ", 'N')").toList());
    }

    /** The first 15 hex digits of the text's MD5 as a non-negative BIGINT; NULL for NULL. */
    private static String md5Bits(String text) {
        return "('0x' || substr(md5(" + text + "), 1, 15))::BIGINT";
    }

    private static void closeQuietly(DuckDBConnection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing left to read on it
        }
    }

    private final class Cursor implements HashedRows {
        private final DuckDBConnection connection;
        private final ResultSet rows;
        private final int keyCount;
        private final int columnCount;
        private final DuckDbPartition partition;

        Cursor(DuckDBConnection connection, ResultSet rows, int keyCount, int columnCount, DuckDbPartition partition) {
            this.connection = connection;
            this.rows = rows;
            this.keyCount = keyCount;
            this.columnCount = columnCount;
            this.partition = partition;
        }

        @Override
        public HashedRow next() throws ConnectorException {
            try {
                if (!rows.next()) {
                    return null;
                }
                List<String> key = new ArrayList<>(keyCount);
                for (int i = 1; i <= keyCount; i++) {
                    key.add(rows.getString(i));
                }
                List<Long> hashes = new ArrayList<>(columnCount);
                for (int i = keyCount + 1; i <= keyCount + columnCount; i++) {
                    long hash = rows.getLong(i);
                    hashes.add(rows.wasNull() ? null : hash);
                }
                return new HashedRow(key, hashes);
            } catch (SQLException e) {
                throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, partition.where(), database.redactor());
            }
        }

        @Override
        public void close() {
            closeQuietly(connection); // its statement and result go with it
        }
    }
}

package io.sluice.connector.mysql;

import io.sluice.spi.Buckets;
import io.sluice.spi.Digest;
import io.sluice.spi.HashedRow;
import io.sluice.spi.HashedRows;
import io.sluice.spi.RowHash;
import io.sluice.spi.SourcePartition;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.SourceRows;
import io.sluice.spi.error.ConnectorException;

import java.math.BigInteger;
import java.sql.Connection;
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
 * A MySQL/MariaDB session's rows for {@code sluice compare}, hashed by {@link RowHash#PORTABLE} where they live: each
 * value's text as the target prints it ({@link CompareText}), a row as its values' {@code <characters>:<text>} or
 * {@code N} joined by commas, the first 15 hex digits of its MD5 as a number. Read in the session's snapshot, on one
 * of its connections (or one of its own without a snapshot).
 */
final class MySqlRows implements SourceRows {
    private final MySqlSession session;
    private final MySqlSource source;
    private final MySqlSettings settings;

    MySqlRows(MySqlSession session, MySqlSource source, MySqlSettings settings) {
        this.session = requireNonNull(session, "session is null");
        this.source = requireNonNull(source, "source is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    @Override
    public Set<RowHash> hashes() {
        return EnumSet.of(RowHash.PORTABLE);
    }

    @Override
    public Digest digest(SourcePartition partition, SourceProjection projection, RowHash hash)
            throws ConnectorException {
        List<String> texts = texts(projection, hash);
        String sql = "SELECT COUNT(*), CAST(COALESCE(SUM(" + md5Bits(rowText(texts)) + "), 0) AS CHAR) FROM "
                + source.relation() + " WHERE " + partition.predicate();
        String what = "the digest of " + source.describe() + " " + partition.predicate();
        Connection c = session.borrow(true);
        boolean usable = false;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            Digest digest = new Digest(rs.getLong(1), Optional.of(new BigInteger(rs.getString(2))));
            usable = true;
            return digest;
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot compute " + what, settings.redactor());
        } finally {
            session.handBack(c, usable);
        }
    }

    @Override
    public List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                                      int count, RowHash hash) throws ConnectorException {
        String sql = "SELECT b, COUNT(*), CAST(COALESCE(SUM(d), 0) AS CHAR) FROM (" + inner(partition.predicate(),
                texts(projection, hash), keyColumns, count) + ") AS r GROUP BY b";
        List<Digest> digests = new ArrayList<>(Collections.nCopies(count, Digest.zero(Digest.Level.CHECKSUM)));
        Connection c = session.borrow(true);
        boolean usable = false;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                digests.set(rs.getInt(1), new Digest(rs.getLong(2), Optional.of(new BigInteger(rs.getString(3)))));
            }
            usable = true;
            return digests;
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot compute the bucket digests of " + source.describe() + " "
                    + partition.predicate(), settings.redactor());
        } finally {
            session.handBack(c, usable);
        }
    }

    @Override
    public HashedRows list(List<SourcePartition> partitions, SourceProjection projection, List<Integer> keyColumns,
                           Buckets buckets, RowHash hash) throws ConnectorException {
        // One statement over every partition (one connection of the snapshot), ordered by the server.
        String predicate = partitions.size() == 1 ? partitions.getFirst().predicate() : "(" + String.join(") OR (",
                partitions.stream().map(SourcePartition::predicate).toList()) + ")";
        List<String> texts = texts(projection, hash);
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        List<String> out = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 1; i <= keyCount; i++) {
            out.add("k" + i);
            // UTF-8 bytes, no padding: code point order, as PostgreSQL's COLLATE "C" (utf8mb4_bin pads with spaces)
            order.add("CAST(k" + i + " AS BINARY)");
        }
        for (int i = 1; i <= texts.size(); i++) {
            out.add("h" + i);
        }
        String sql = "SELECT " + String.join(", ", out) + " FROM (" + inner(predicate, texts, keyColumns,
                buckets.count()) + ") AS r" + (buckets.all() ? "" : " WHERE b IN (" + String.join(", ",
                buckets.chosen().stream().map(String::valueOf).toList()) + ")") + " ORDER BY "
                + String.join(", ", order);
        // A listing holds its connection until it is closed: never wait for one another listing holds.
        Connection c = session.borrow(false);
        try {
            Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            s.setFetchSize(MySqlSource.FETCH_ROWS);
            return new Cursor(c, s, s.executeQuery(sql), keyCount, texts.size(), predicate);
        } catch (SQLException e) {
            session.handBack(c, false);
            throw MySqlErrors.translate(e, "cannot list the rows of " + source.describe() + " " + predicate,
                    settings.redactor());
        }
    }

    /** The values' texts, by the projection's columns; MY203 for a column whose text the servers print apart. */
    private List<String> texts(SourceProjection projection, RowHash hash) throws ConnectorException {
        if (hash != RowHash.PORTABLE) {
            throw new IllegalArgumentException("MySQL hashes rows by PORTABLE only, not " + hash);
        }
        MySqlSource.MySqlProjection p = (MySqlSource.MySqlProjection) projection;
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < p.expressions().size(); i++) {
            texts.add(CompareText.of(p.expressions().get(i), p.types().get(i), p.targets().get(i)));
        }
        return texts;
    }

    /** Key texts k1.., value hashes h1.., the row's hash d and its bucket b. */
    private String inner(String predicate, List<String> texts, List<Integer> keyColumns, int buckets) {
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
        select.add("MOD(" + md5Bits(rowText(keys)) + ", " + buckets + ") AS b");
        return "SELECT " + String.join(", ", select) + " FROM " + source.relation() + " WHERE " + predicate;
    }

    /** Each value as {@code <characters>:<text>} or {@code N}, joined by commas (never NULL). */
    private static String rowText(List<String> texts) {
        return "CONCAT(" + String.join(", ',', ", texts.stream().map(t -> "COALESCE(CONCAT(CHAR_LENGTH(" + t
                + "), ':', " + t + "), 'N')").toList()) + ")";
    }

    /** The first 15 hex digits of the text's MD5 as an unsigned number; NULL for NULL. */
    private static String md5Bits(String text) {
        return "CAST(CONV(SUBSTRING(MD5(" + text + "), 1, 15), 16, 10) AS UNSIGNED)";
    }

    private final class Cursor implements HashedRows {
        private final Connection connection;
        private final Statement statement;
        private final ResultSet rows;
        private final int keyCount;
        private final int columnCount;
        private final String predicate;
        private boolean done;

        Cursor(Connection connection, Statement statement, ResultSet rows, int keyCount, int columnCount,
               String predicate) {
            this.connection = connection;
            this.statement = statement;
            this.rows = rows;
            this.keyCount = keyCount;
            this.columnCount = columnCount;
            this.predicate = predicate;
        }

        @Override
        public HashedRow next() throws ConnectorException {
            try {
                if (!rows.next()) {
                    done = true;
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
                throw MySqlErrors.translate(e, "cannot list the rows of " + source.describe() + " " + predicate,
                        settings.redactor());
            }
        }

        @Override
        public void close() {
            try {
                statement.close();
            } catch (SQLException ignored) {
                // handed back as unusable below
            }
            // A listing closed early leaves the connection mid-result: never given to another read.
            session.handBack(connection, done);
        }
    }
}

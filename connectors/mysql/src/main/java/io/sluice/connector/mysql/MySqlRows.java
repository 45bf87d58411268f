package io.sluice.connector.mysql;

import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRow;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceRows;
import io.sluice.toolkit.compare.PortableHashSql;
import io.sluice.toolkit.compare.ResultSetRows;

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A MySQL/MariaDB session's rows for {@code sluice compare}, hashed by {@link RowHash#PORTABLE} where they live, each
 * value's text as the target prints it ({@link CompareText}). Read in the session's snapshot, on one of its
 * connections (or one of its own without a snapshot).
 */
final class MySqlRows implements SourceRows {
    /** MySQL's spelling of the portable hash. */
    static final PortableHashSql.Dialect DIALECT = new PortableHashSql.Dialect() {
        @Override
        public String rowText(List<String> texts) {
            return "CONCAT(" + String.join(", ',', ", texts.stream().map(t -> "COALESCE(CONCAT(CHAR_LENGTH(" + t
                    + "), ':', " + t + "), 'N')").toList()) + ")";
        }

        @Override
        public String md5Bits(String text) {
            return "CAST(CONV(SUBSTRING(MD5(" + text + "), 1, 15), 16, 10) AS UNSIGNED)";
        }

        @Override
        public String modulo(String number, int count) {
            return "MOD(" + number + ", " + count + ")";
        }

        @Override
        public String asText(String number) {
            return "CAST(" + number + " AS CHAR)";
        }

        /** UTF-8 bytes, no padding (utf8mb4_bin pads with spaces: 'a' would sort after 'a' and a tab). */
        @Override
        public String codePointOrder(String text) {
            return "CAST(" + text + " AS BINARY)";
        }
    };

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
        String sql = PortableHashSql.digest(DIALECT, texts(projection, hash), from(partition.predicate()));
        Connection c = session.borrow(true);
        boolean usable = false;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            Digest digest = new Digest(rs.getLong(1), Optional.of(new BigInteger(rs.getString(2))));
            usable = true;
            return digest;
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot compute the digest of " + source.describe() + " "
                    + partition.predicate(), settings.redactor());
        } finally {
            session.handBack(c, usable);
        }
    }

    @Override
    public List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                                      int count, RowHash hash) throws ConnectorException {
        String sql = PortableHashSql.bucketDigests(DIALECT, PortableHashSql.inner(DIALECT, texts(projection, hash),
                keyColumns, count, from(partition.predicate())));
        Connection c = session.borrow(true);
        boolean usable = false;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<Digest> digests = ResultSetRows.bucketDigests(rs, count);
            usable = true;
            return digests;
        } catch (SQLException e) {
            throw MySqlErrors.translate(e, "cannot compute the bucket digests of " + source.describe() + " "
                    + partition.predicate(), settings.redactor());
        } finally {
            session.handBack(c, usable);
        }
    }

    /** One statement over every partition (one connection of the snapshot), ordered by the server. */
    @Override
    public HashedRows list(List<SourcePartition> partitions, SourceProjection projection, List<Integer> keyColumns,
                           Buckets buckets, RowHash hash) throws ConnectorException {
        String predicate = partitions.size() == 1 ? partitions.getFirst().predicate() : "(" + String.join(") OR (",
                partitions.stream().map(SourcePartition::predicate).toList()) + ")";
        List<String> texts = texts(projection, hash);
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        String sql = PortableHashSql.listing(DIALECT, PortableHashSql.inner(DIALECT, texts, keyColumns,
                buckets.count(), from(predicate)), keyCount, texts.size(), buckets);
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

    private String from(String predicate) {
        return source.relation() + " WHERE " + predicate;
    }

    /** The values' texts, by the projection's columns; MY203 for a column whose text the servers print apart. */
    private static List<String> texts(SourceProjection projection, RowHash hash) throws ConnectorException {
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
                return ResultSetRows.row(rows, keyCount, columnCount);
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

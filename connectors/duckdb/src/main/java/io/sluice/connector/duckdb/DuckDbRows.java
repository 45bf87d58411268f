package io.sluice.connector.duckdb;

import io.sluice.spi.data.Buckets;
import io.sluice.spi.data.Digest;
import io.sluice.spi.data.HashedRow;
import io.sluice.spi.data.HashedRows;
import io.sluice.spi.data.RowHash;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceRows;
import io.sluice.toolkit.compare.PortableHashSql;
import io.sluice.toolkit.compare.ResultSetRows;

import org.duckdb.DuckDBConnection;

import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    /** DuckDB's spelling of the portable hash. */
    static final PortableHashSql.Dialect DIALECT = new PortableHashSql.Dialect() {
        @Override
        public String rowText(List<String> texts) {
            return String.join(" || ',' || ", texts.stream().map(t -> "coalesce(length(" + t + ")::VARCHAR || ':' || "
                    + t + ", 'N')").toList());
        }

        @Override
        public String md5Bits(String text) {
            return "('0x' || substr(md5(" + text + "), 1, 15))::BIGINT";
        }

        @Override
        public String modulo(String number, int count) {
            return "(" + number + ") % " + count;
        }

        @Override
        public String asText(String number) {
            return "(" + number + ")::VARCHAR";
        }

        /** The binary collation: UTF-8 bytes. */
        @Override
        public String codePointOrder(String text) {
            return text + " COLLATE \"binary\"";
        }
    };

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
        String sql = PortableHashSql.digest(DIALECT, texts(projection, hash), from(projection, p.relation()));
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
             Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            Digest digest = new Digest(rs.getLong(1), Optional.of(new BigInteger(rs.getString(2))));
            requireVersions(connection, List.of(partition));
            return digest;
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    @Override
    public List<Digest> bucketDigests(SourcePartition partition, SourceProjection projection, List<Integer> keyColumns,
                                      int count, RowHash hash) throws ConnectorException {
        DuckDbPartition p = (DuckDbPartition) partition;
        String sql = PortableHashSql.bucketDigests(DIALECT, PortableHashSql.inner(DIALECT, texts(projection, hash),
                keyColumns, count, from(projection, p.relation())));
        try (DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
             Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<Digest> digests = ResultSetRows.bucketDigests(rs, count);
            requireVersions(connection, List.of(partition));
            return digests;
        } catch (SQLException e) {
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    /** One statement over every partition, sorted by DuckDB. */
    @Override
    public HashedRows list(List<SourcePartition> partitions, SourceProjection projection, List<Integer> keyColumns,
                           Buckets buckets, RowHash hash) throws ConnectorException {
        DuckDbPartition p = (DuckDbPartition) partitions.getFirst(); // names the read in errors
        String relation = partitions.size() == 1 ? p.relation() : String.join(" UNION ALL ", partitions.stream()
                .map(part -> "SELECT * FROM (" + ((DuckDbPartition) part).relation() + ")").toList());
        List<String> texts = texts(projection, hash);
        int keyCount = keyColumns.isEmpty() ? 1 : keyColumns.size();
        String sql = PortableHashSql.listing(DIALECT, PortableHashSql.inner(DIALECT, texts, keyColumns,
                buckets.count(), from(projection, relation)), keyCount, texts.size(), buckets);
        DuckDBConnection connection = database.connect(DuckDbDatabase.isRemote(sql));
        try {
            Statement s = connection.createStatement();
            return new Cursor(connection, s.executeQuery(sql), keyCount, texts.size(), p, partitions);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw DuckDbErrors.translate(e, DuckDbErrors.Phase.READ, p.where(), database.redactor());
        }
    }

    /** The relation with the stream's column rules applied, as a FROM item. */
    private static String from(SourceProjection projection, String relation) {
        return "(" + ((DuckDbProjection) projection).shaped(relation) + ") AS sluice_q";
    }

    private static List<String> texts(SourceProjection projection, RowHash hash) throws ConnectorException {
        if (hash != RowHash.PORTABLE) {
            throw new IllegalArgumentException("DuckDB hashes rows by PORTABLE only, not " + hash);
        }
        return ((DuckDbProjection) projection).compareTexts();
    }

    /**
     * Files have no snapshot: one rewritten while a compare reads it (its digest, then its differing rows) would show
     * differences that are not there. Each statement is checked, once it has read everything, to have read the
     * version of each file the compare planned; a file changed since fails the compare, saying so (DUCK122).
     */
    private void requireVersions(DuckDBConnection connection, List<SourcePartition> partitions)
            throws ConnectorException {
        for (SourcePartition planned : partitions) {
            DuckDbPartition partition = (DuckDbPartition) planned;
            Optional<String> now = FileVersion.changedSince(connection, partition);
            if (now.isPresent()) {
                throw new ConnectorException(ErrorKind.DATA, DuckDbCode.DUCK122, "file " + database.redactor()
                        .redact(partition.file().orElseThrow()) + " changed while it was compared: version "
                        + partition.version().orElseThrow() + " when the compare began, " + now.get()
                        + " now; no difference is reported from two versions of it", "compare again once the files stay put: a compare reads each file "
                        + "more than once (its digest, then the rows of a part that differs)");
            }
        }
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
        private final List<SourcePartition> partitions;

        Cursor(DuckDBConnection connection, ResultSet rows, int keyCount, int columnCount, DuckDbPartition partition,
               List<SourcePartition> partitions) {
            this.connection = connection;
            this.rows = rows;
            this.keyCount = keyCount;
            this.columnCount = columnCount;
            this.partition = partition;
            this.partitions = List.copyOf(partitions);
        }

        @Override
        public HashedRow next() throws ConnectorException {
            try {
                if (!rows.next()) {
                    requireVersions(connection, partitions);
                    return null;
                }
                return ResultSetRows.row(rows, keyCount, columnCount);
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

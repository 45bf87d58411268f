package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.testkit.TestingPostgres;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Drives a source through the SPI the way the runner does (columns, project by name, plan, session, one reader per
 * partition on platform threads) into a real PostgreSQL table with binary COPY through PgJDBC.
 */
final class PgLoad {
    private final TestingPostgres pg;
    private final String database;

    PgLoad(TestingPostgres pg, String database) {
        this.pg = requireNonNull(pg, "pg is null");
        this.database = requireNonNull(database, "database is null");
    }

    void execute(String sql) throws SQLException {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    List<List<String>> query(String sql) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** Target columns as a PostgreSQL target connector describes them: format_type names and type OIDs. */
    List<Column> targetColumns(String table) throws SQLException {
        List<Column> columns = new ArrayList<>();
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attname, format_type(atttypid, atttypmod), atttypid FROM pg_attribute "
                     + "WHERE attrelid = '" + table + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            while (rs.next()) {
                columns.add(new Column(rs.getString(1), rs.getString(2), rs.getInt(3), true, Column.Generation.NONE));
            }
        }
        return columns;
    }

    /** Pairs source and target columns by name (case-insensitive), as the runner's Name mapping does. */
    List<ColumnPair> pairsByName(Source source, String table) throws ConnectorException, SQLException {
        List<ColumnPair> pairs = new ArrayList<>();
        List<Column> targets = targetColumns(table);
        for (Column s : source.columns()) {
            Column t = targets.stream().filter(c -> c.name().equalsIgnoreCase(s.name())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no target column for " + s.name()));
            pairs.add(new ColumnPair(s, t));
        }
        return pairs;
    }

    /**
     * The source's one partition encoded for {@code table} by the connector's reader, in memory (no load): for
     * comparing the bytes of two read paths.
     */
    byte[] encode(Source source, String table) throws Exception {
        SourceProjection projection = source.project(pairsByName(source, table));
        SourcePartition partition = source.plan(new PlanRequest(Distribution.none(), 1, 10_000)).getFirst();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SourceSession session = source.openSession(Consistency.NONE);
             PartitionReader reader = session.openReader(partition, projection)) {
            reader.transferTo(bytes::write);
        }
        return bytes.toByteArray();
    }

    long load(Source source, String table, Distribution distribution, int degree) throws Exception {
        return load(source, table, distribution, degree, io.sluice.spi.read.BadRows.FAIL);
    }

    /** As above, the readers told what to do with bad rows; returns the rows loaded. */
    long load(Source source, String table, Distribution distribution, int degree, io.sluice.spi.read.BadRows badRows)
            throws Exception {
        List<ColumnPair> pairs = pairsByName(source, table);
        SourceProjection projection = source.project(pairs);
        List<SourcePartition> partitions = source.plan(new PlanRequest(distribution, degree, 10_000));
        return load(source, table, pairs, projection, partitions, degree, badRows);
    }

    long load(Source source, String table, List<ColumnPair> pairs, SourceProjection projection,
              List<SourcePartition> partitions, int degree) throws Exception {
        return load(source, table, pairs, projection, partitions, degree, io.sluice.spi.read.BadRows.FAIL);
    }

    private long load(Source source, String table, List<ColumnPair> pairs, SourceProjection projection,
                      List<SourcePartition> partitions, int degree, io.sluice.spi.read.BadRows badRows) throws Exception {
        String copy = "COPY " + table + " (" + pairs.stream().map(p -> "\"" + p.target().name() + "\"")
                .collect(Collectors.joining(", ")) + ") FROM STDIN (FORMAT binary)";
        long total = 0;
        try (SourceSession session = source.openSession(Consistency.NONE);
             ExecutorService pool = Executors.newFixedThreadPool(degree, Thread.ofPlatform().factory())) {
            List<Future<Long>> results = new ArrayList<>();
            for (SourcePartition partition : partitions) {
                results.add(pool.submit(() -> loadPartition(session, partition, projection, copy, badRows)));
            }
            for (Future<Long> result : results) {
                try {
                    total += result.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception cause) {
                        throw cause;
                    }
                    throw e;
                }
            }
        }
        return total;
    }

    private long loadPartition(SourceSession session, SourcePartition partition, SourceProjection projection,
                               String copySql, io.sluice.spi.read.BadRows badRows) throws Exception {
        try (Connection c = pg.connect(database)) {
            c.setAutoCommit(false);
            CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copySql);
            CopySink sink = (buffer, offset, length) -> {
                try {
                    copy.writeToCopy(buffer, offset, length);
                } catch (SQLException e) {
                    throw new ConnectorException(ErrorKind.DATA, "TEST", "PostgreSQL refused " + partition.id()
                            + ": " + e.getMessage(), null, e);
                }
            };
            try (PartitionReader reader = session.openReader(partition, projection)) {
                long read = reader.transferTo(sink, badRows);
                long taken = copy.endCopy();
                if (read != taken) {
                    throw new AssertionError(partition.id() + ": reader said " + read + ", PostgreSQL took " + taken);
                }
                c.commit();
                return read;
            } finally {
                if (copy.isActive()) {
                    copy.cancelCopy();
                }
            }
        }
    }
}

package io.sluice.connector.duckdb;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.CopySink;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.PartitionReader;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.toolkit.copy.BinaryCopyEncoder;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Extract-and-encode speed of the chunk API path (the connector's reader) against the JDBC ResultSet path with the
 * same binary encoding, into a sink that discards the bytes. Not a test: run it by hand (see docs/duckdb.md).
 *
 * <p>Arguments: folder with orders-*.parquet, runs, and {@code chunk} to time the reader alone. Each run prints the
 * process CPU seconds it spent too (DuckDB's threads included), the figure the reader's optimisations cut.
 */
public final class ExtractBenchmark {
    private ExtractBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        boolean chunkOnly = args.length > 2 && args[2].equals("chunk");
        String query = "SELECT * FROM read_parquet('" + dir + "/orders-*.parquet')";
        long[] bytes = new long[1];
        CopySink discard = (buffer, offset, length) -> bytes[0] += length;
        for (int run = 0; run < runs; run++) {
            bytes[0] = 0;
            long cpu0 = processCpuNanos();
            long t0 = System.nanoTime();
            long rows = chunkApi(dir, query, discard);
            long chunkNanos = System.nanoTime() - t0;
            long chunkCpu = processCpuNanos() - cpu0;
            long chunkBytes = bytes[0];
            if (chunkOnly) {
                System.out.printf("run %d: chunk API %d rows %.2f s, process CPU %.2f s (%d bytes)%n", run + 1, rows,
                        chunkNanos / 1e9, chunkCpu / 1e9, chunkBytes);
                continue;
            }
            bytes[0] = 0;
            t0 = System.nanoTime();
            long rsRows = resultSet(query, discard);
            long rsNanos = System.nanoTime() - t0;
            System.out.printf("run %d: chunk API %d rows %.2f s (%d bytes) | ResultSet %d rows %.2f s (%d bytes)%n",
                    run + 1, rows, chunkNanos / 1e9, chunkBytes, rsRows, rsNanos / 1e9, bytes[0]);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long chunkApi(Path dir, String query, CopySink sink) throws Exception {
        try (var connector = DuckDbFixtures.connector(dir, Map.of())) {
            Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query", query)));
            List<ColumnPair> pairs = new ArrayList<>();
            for (Column c : source.columns()) {
                pairs.add(new ColumnPair(c, Column.of(c.name(), pgType(c.name()))));
            }
            SourceProjection projection = source.project(pairs);
            SourcePartition partition = source.plan(new PlanRequest(Distribution.none(), 1, 1)).getFirst();
            try (SourceSession session = source.openSession(io.sluice.spi.read.Consistency.NONE);
                 PartitionReader reader = session.openReader(partition, projection)) {
                return reader.transferTo(sink);
            }
        }
    }

    /** The same rows through ResultSet getters, encoded to the same binary form. */
    private static long resultSet(String query, CopySink sink) throws Exception {
        PgNumericWriter numeric = new PgNumericWriter();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            BinaryCopyEncoder out = new BinaryCopyEncoder(sink, DuckDbPartitionReader.BUFFER_BYTES);
            while (rs.next()) {
                out.startRow(9);
                out.writeInt8(rs.getLong(1));
                out.writeInt8(rs.getLong(2));
                text(out, rs.getString(3));
                BigDecimal price = rs.getBigDecimal(4);
                numeric.write(price, out);
                LocalDate date = rs.getObject(5, LocalDate.class);
                out.writeInt4((int) (date.toEpochDay() - TemporalEncoders.PG_EPOCH_DAYS));
                text(out, rs.getString(6));
                text(out, rs.getString(7));
                out.writeInt4(rs.getInt(8));
                text(out, rs.getString(9));
            }
            return out.finish();
        }
    }

    private static void text(BinaryCopyEncoder out, String value) throws ConnectorException {
        if (value == null) {
            out.writeNull();
        } else {
            out.writeText(value);
        }
    }

    private static String pgType(String column) {
        return switch (column) {
            case "o_orderkey", "o_custkey" -> "bigint";
            case "o_totalprice" -> "numeric(15,2)";
            case "o_orderdate" -> "date";
            case "o_shippriority" -> "integer";
            default -> "text";
        };
    }
}

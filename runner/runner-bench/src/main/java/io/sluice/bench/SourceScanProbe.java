package io.sluice.bench;

import org.postgresql.PGConnection;

import java.io.OutputStream;
import java.sql.Connection;
import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * The source's single-stream scan rate: {@code COPY table TO STDOUT (FORMAT binary)} read by this JVM and thrown
 * away. An input of the scaling model, not a scenario (nothing is loaded).
 */
final class SourceScanProbe {
    private final PgEndpoint source;
    private final TableData table;

    SourceScanProbe(PgEndpoint source, TableData table) {
        this.source = requireNonNull(source, "source is null");
        this.table = requireNonNull(table, "table is null");
    }

    /** Median MB/s (10^6 bytes of binary COPY stream) over {@code runs} scans. */
    double megabytesPerSecond(int runs) throws SQLException, java.io.IOException {
        double[] seconds = new double[runs];
        for (int i = 0; i < runs; i++) {
            try (Connection c = source.connect()) {
                long start = System.nanoTime();
                c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY " + TpchData.SCHEMA + "." + table.name()
                        + " TO STDOUT (FORMAT binary)", OutputStream.nullOutputStream());
                seconds[i] = (System.nanoTime() - start) / 1e9;
            }
        }
        return table.binaryBytes() / 1e6 / ScenarioResult.median(seconds);
    }
}

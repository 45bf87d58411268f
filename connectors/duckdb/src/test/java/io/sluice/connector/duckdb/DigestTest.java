package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.data.Digest;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * verify: count on a DuckDB source: per-partition counts computed by DuckDB add up to the files' rows; a compare's
 * statements refuse a file rewritten since the compare planned it.
 */
class DigestTest {
    private static final Path EXAMPLES = Path.of("../../examples").toAbsolutePath().normalize();

    @Test
    void countsEachFilePartitionAndRefusesChecksums() throws Exception {
        try (Connector connector = DuckDbFixtures.connector(EXAMPLES, Map.of())) {
            Source source = connector.sources().orElseThrow()
                    .open(DuckDbFixtures.source(Map.of("files", "data/orders-*.parquet")));
            SourceProjection projection = source.project(source.columns().stream()
                    .map(c -> new io.sluice.spi.data.ColumnPair(c, new io.sluice.spi.data.Column(c.name(), "text", 25, true,
                            io.sluice.spi.data.Column.Generation.NONE))).toList());
            List<SourcePartition> partitions = source.plan(new PlanRequest(new Distribution(
                    DistributionMethod.NONE, Optional.empty(), Optional.empty()), 2, 1000));
            assertEquals(4, partitions.size());
            long total = 0;
            try (SourceSession session = source.openSession(Consistency.NONE)) {
                for (SourcePartition partition : partitions) {
                    Digest digest = session.digest(partition, projection, Digest.Level.COUNT).orElseThrow();
                    assertEquals(3750, digest.rows(), partition.predicate());
                    total += digest.rows();
                }
                assertTrue(session.digest(partitions.getFirst(), projection, Digest.Level.CHECKSUM).isEmpty());
            }
            assertEquals(15000, total);
        }
    }

    @Test
    void aFileRewrittenSinceThePlanFailsTheCompareInsteadOfShowingDifferences(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        java.nio.file.Files.copy(EXAMPLES.resolve("data/orders-0.parquet"), dir.resolve("orders.parquet"));
        try (Connector connector = DuckDbFixtures.connector(dir, Map.of())) {
            Source source = connector.sources().orElseThrow()
                    .open(DuckDbFixtures.source(Map.of("files", "orders.parquet")));
            List<io.sluice.spi.data.ColumnPair> pairs = new java.util.ArrayList<>();
            for (io.sluice.spi.data.Column c : source.columns()) {
                pairs.add(new io.sluice.spi.data.ColumnPair(c, source.copyColumn(c)));
            }
            SourceProjection projection = source.project(pairs);
            List<SourcePartition> partitions = source.plan(new PlanRequest(new Distribution(
                    DistributionMethod.NONE, Optional.empty(), Optional.empty()), 1, 1000));
            try (SourceSession session = source.openSession(Consistency.NONE)) {
                io.sluice.spi.read.SourceRows rows = session.rows().orElseThrow();
                assertEquals(3750, rows.digest(partitions.getFirst(), projection, io.sluice.spi.data.RowHash.PORTABLE)
                        .rows());
                java.nio.file.Files.copy(EXAMPLES.resolve("data/orders-1.parquet"), dir.resolve("orders.parquet"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                io.sluice.spi.error.ConnectorException digest = org.junit.jupiter.api.Assertions.assertThrows(
                        io.sluice.spi.error.ConnectorException.class, () -> rows.digest(partitions.getFirst(),
                                projection, io.sluice.spi.data.RowHash.PORTABLE));
                assertEquals("DUCK122", digest.code(), digest.getMessage());
                assertTrue(digest.getMessage().contains("changed while it was compared"), digest.getMessage());
                try (io.sluice.spi.data.HashedRows listed = rows.list(partitions, projection, List.of(0),
                        io.sluice.spi.data.Buckets.ALL, io.sluice.spi.data.RowHash.PORTABLE)) {
                    io.sluice.spi.error.ConnectorException listing = org.junit.jupiter.api.Assertions.assertThrows(
                            io.sluice.spi.error.ConnectorException.class, () -> {
                                while (listed.next() != null) {
                                    // read to the end: the check comes once every row was read
                                }
                            });
                    assertEquals("DUCK122", listing.code(), listing.getMessage());
                }
            }
        }
    }
}

package io.sluice.connector.duckdb;

import io.sluice.spi.Connector;
import io.sluice.spi.Consistency;
import io.sluice.spi.Digest;
import io.sluice.spi.Distribution;
import io.sluice.spi.DistributionMethod;
import io.sluice.spi.PlanRequest;
import io.sluice.spi.Source;
import io.sluice.spi.SourcePartition;
import io.sluice.spi.SourceProjection;
import io.sluice.spi.SourceSession;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** verify: count on a DuckDB source: per-partition counts computed by DuckDB add up to the files' rows. */
class DigestTest {
    private static final Path EXAMPLES = Path.of("../../examples").toAbsolutePath().normalize();

    @Test
    void countsEachFilePartitionAndRefusesChecksums() throws Exception {
        try (Connector connector = DuckDbFixtures.connector(EXAMPLES, Map.of())) {
            Source source = connector.sources().orElseThrow()
                    .open(DuckDbFixtures.source(Map.of("files", "data/orders-*.parquet")));
            SourceProjection projection = source.project(source.columns().stream()
                    .map(c -> new io.sluice.spi.ColumnPair(c, new io.sluice.spi.Column(c.name(), "text", 25, true,
                            io.sluice.spi.Column.Generation.NONE))).toList());
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
}

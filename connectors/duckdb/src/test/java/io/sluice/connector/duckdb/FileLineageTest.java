package io.sluice.connector.duckdb;

import io.sluice.spi.data.LineageDataset;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A files: source names its folder for lineage as OpenLineage's naming conventions say. */
class FileLineageTest {
    private static List<LineageDataset> inputs(String glob) {
        return glob == null ? List.of() : List.of(FileLineage.of(glob));
    }

    @Test
    void aLocalGlobIsItsFolderInTheFileNamespace() {
        assertEquals(List.of(new LineageDataset("file", "/data/tpch/orders")), inputs("/data/tpch/orders/*.parquet"));
        assertEquals(List.of(new LineageDataset("file", "/data/a")), inputs("/data/a/part-[0-9]/x.csv"));
        assertEquals(List.of(new LineageDataset("file", "/data/one.parquet")), inputs("/data/one.parquet"));
    }

    @Test
    void anS3GlobIsItsKeyPrefixInTheBucketsNamespace() {
        assertEquals(List.of(new LineageDataset("s3://lake", "tpch/sf10/orders")),
                inputs("s3://lake/tpch/sf10/orders/*.parquet"));
        assertEquals(List.of(new LineageDataset("s3://lake", "/")), inputs("s3://lake/*.parquet"));
        assertEquals(List.of(new LineageDataset("https://example.org", "exports")),
                inputs("https://example.org/exports/orders-*.csv"));
    }

}

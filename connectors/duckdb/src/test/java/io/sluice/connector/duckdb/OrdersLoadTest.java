package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.testkit.TestingPostgres;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TPC-H orders in 16 local Parquet files into PostgreSQL, the way FastTransfer's published run does it. */
class OrdersLoadTest {
    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;
    static List<String> expected;

    @BeforeAll
    static void setUp() throws Exception {
        DuckDbFixtures.writeOrders(dir, 0.01, 16);
        expected = DuckDbFixtures.duckChecksum("read_parquet('" + dir + "/*.parquet')");
        connector = DuckDbFixtures.offlineConnector(dir);
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_orders"));
        pg.execute(DuckDbFixtures.ORDERS_PG_TABLE);
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void dataDrivenPerFileLikeFastTransfer() throws Exception {
        pg.execute("TRUNCATE orders");
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * exclude filename from read_parquet('" + dir + "/*.parquet', filename=true) t")));
        Distribution distribution = new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("filename"),
                Optional.of("select file from glob('" + dir + "/*.parquet')"));
        List<SourcePartition> partitions = source.plan(new PlanRequest(distribution, 4, 10_000));
        assertEquals(16, partitions.size());
        partitions.forEach(p -> assertTrue(p.id().startsWith("file:orders-"), p.id()));
        // Estimates from the Parquet footers: exact for whole files (TPC-H's sparse keys leave half the files empty).
        partitions.forEach(p -> assertTrue(p.estimatedRows() >= 0, p.id() + ": " + p.estimatedRows()));
        assertEquals(Long.parseLong(expected.get(0)),
                partitions.stream().mapToLong(SourcePartition::estimatedRows).sum());
        String statement = source.readStatement(partitions.get(0), source.project(pg.pairsByName(source, "orders")));
        assertTrue(statement.contains("read_parquet('" + partitions.get(0).predicate().substring("file ".length())
                + "'"), statement);
        assertFalse(statement.contains("*.parquet"), statement);

        long rows = pg.load(source, "orders", distribution, 4);
        assertEquals(Long.parseLong(expected.get(0)), rows);
        assertEquals(expected, pg.query(DuckDbFixtures.ORDERS_CHECKSUM + "orders").get(0));
    }

    @Test
    void filesShorthandPlansOnePartitionPerFile() throws Exception {
        pg.execute("TRUNCATE orders");
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("files", "*.parquet")));
        List<SourcePartition> partitions = source.plan(new PlanRequest(Distribution.none(), 2, 10_000));
        assertEquals(16, partitions.size());
        assertEquals(Long.parseLong(expected.get(0)),
                partitions.stream().mapToLong(SourcePartition::estimatedRows).sum());
        long rows = pg.load(source, "orders", Distribution.none(), 2);
        assertEquals(Long.parseLong(expected.get(0)), rows);
        assertEquals(expected, pg.query(DuckDbFixtures.ORDERS_CHECKSUM + "orders").get(0));
    }
}

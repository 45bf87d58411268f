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
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Orders as 4 CSV files: the files: shorthand, and the per-file rewrite on read_csv(..., filename=true). */
class CsvLoadTest {
    @TempDir
    static Path dir;
    static Connector connector;
    static PgLoad pg;
    static List<String> expected;

    @BeforeAll
    static void setUp() throws Exception {
        DuckDbFixtures.writeOrders(dir, 0.01, 4);
        try (Connection c = DuckDbFixtures.duckdb(); Statement s = c.createStatement()) {
            for (int i = 0; i < 4; i++) {
                s.execute("COPY (SELECT * FROM read_parquet('" + dir.resolve("orders-" + i + ".parquet") + "')) TO '"
                        + dir.resolve("orders-" + i + ".csv") + "' (FORMAT csv, HEADER)");
            }
        }
        expected = DuckDbFixtures.duckChecksum("read_parquet('" + dir + "/*.parquet')");
        connector = DuckDbFixtures.connector(dir, Map.of());
        TestingPostgres server = TestingPostgres.shared();
        pg = new PgLoad(server, server.createDatabase("duck_csv"));
        // the CSV sniffer reads integers as BIGINT and o_totalprice as DOUBLE: wide enough targets take them as they are
        pg.execute(DuckDbFixtures.ORDERS_PG_TABLE.replace("o_totalprice numeric(15,2)", "o_totalprice numeric")
                .replace("o_shippriority integer", "o_shippriority bigint"));
    }

    @AfterAll
    static void tearDown() {
        connector.close();
    }

    @Test
    void filesShorthand() throws Exception {
        pg.execute("TRUNCATE orders");
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("files", "orders-*.csv")));
        assertEquals(4, source.plan(new PlanRequest(Distribution.none(), 2, 1000)).size());
        assertEquals(Long.parseLong(expected.get(0)), pg.load(source, "orders", Distribution.none(), 2));
        assertEquals(expected, pg.query(DuckDbFixtures.ORDERS_CHECKSUM + "orders").get(0));
    }

    @Test
    void perFileRewriteOnReadCsv() throws Exception {
        pg.execute("TRUNCATE orders");
        Source source = connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * EXCLUDE (src) REPLACE (CAST(o_totalprice AS DECIMAL(15,2)) AS o_totalprice) "
                        + "FROM read_csv('orders-*.csv', filename='src')")));
        Distribution perFile = new Distribution(DistributionMethod.DATA_DRIVEN, Optional.of("src"),
                Optional.of("SELECT file FROM glob('orders-*.csv')"));
        List<SourcePartition> partitions = source.plan(new PlanRequest(perFile, 2, 1000));
        assertEquals(4, partitions.size());
        String statement = source.readStatement(partitions.get(1), source.project(pg.pairsByName(source, "orders")));
        assertTrue(statement.contains("read_csv('" + dir.resolve("orders-1.csv") + "'"), statement);
        assertEquals(Long.parseLong(expected.get(0)), pg.load(source, "orders", perFile, 2));
        assertEquals(expected, pg.query(DuckDbFixtures.ORDERS_CHECKSUM + "orders").get(0));
    }
}

package io.sluice.connector.duckdb;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.data.Column;
import io.sluice.spi.read.Source;
import io.sluice.testkit.SourceContractTest;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The testkit's source contract over 4 small orders files (SF 0.001: 1,500 rows). */
abstract class OrdersContractBase extends SourceContractTest {
    static final long ROWS = 1_500;
    static Path dir;
    static Connector connector;

    @BeforeAll
    static void writeFixture() throws Exception {
        dir = Files.createTempDirectory("duck-contract");
        DuckDbFixtures.writeOrders(dir, 0.001, 4);
        connector = DuckDbFixtures.connector(dir, Map.of());
    }

    @AfterAll
    static void closeConnector() {
        connector.close();
    }

    @Override
    protected SourceCapabilities capabilities() {
        return new DuckDbConnectorFactory().sourceCapabilities();
    }

    @Override
    protected Source createSource() throws Exception {
        return connector.sources().orElseThrow().open(DuckDbFixtures.source(Map.of("query",
                "SELECT * EXCLUDE filename FROM read_parquet('orders-*.parquet', filename = true)")));
    }

    @Override
    protected long expectedRows() {
        return ROWS;
    }

    @Override
    protected List<Column> targetColumns(List<Column> sourceColumns) {
        return sourceColumns.stream().map(c -> Column.of(c.name(), switch (c.name()) {
            case "o_orderkey", "o_custkey" -> "bigint";
            case "o_totalprice" -> "numeric(15,2)";
            case "o_orderdate" -> "date";
            case "o_shippriority" -> "integer";
            default -> "text";
        })).toList();
    }
}

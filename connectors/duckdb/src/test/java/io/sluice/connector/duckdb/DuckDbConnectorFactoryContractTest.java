package io.sluice.connector.duckdb;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.testkit.ConnectorFactoryContractTest;

import java.util.Map;

/** The testkit's factory contract for {@code duckdb}: created without opening a database or reading a file. */
class DuckDbConnectorFactoryContractTest extends ConnectorFactoryContractTest {
    @Override
    protected ConnectorFactory factory() {
        return new DuckDbConnectorFactory();
    }

    @Override
    protected Map<String, Object> connectionOptions() {
        return Map.of("threads", 2L);
    }

    @Override
    protected Map<String, Object> sourceOptions() {
        return Map.of("files", "data/orders-*.parquet");
    }
}

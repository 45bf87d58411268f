package io.sluice.connector.postgres;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.testkit.ConnectorFactoryContractTest;

import java.util.Map;

/** The testkit's factory contract for {@code postgres}, with a URL no server answers: nothing may connect. */
class PostgresConnectorFactoryContractTest extends ConnectorFactoryContractTest {
    @Override
    protected ConnectorFactory factory() {
        return new PostgresConnectorFactory();
    }

    @Override
    protected Map<String, Object> connectionOptions() {
        return Map.of("url", "jdbc:postgresql://127.0.0.1:9/nowhere", "user", "nobody", "password", "never-used");
    }

    @Override
    protected Map<String, Object> sourceOptions() {
        return Map.of("table", "public.orders");
    }

    @Override
    protected Map<String, Object> targetOptions() {
        return Map.of("table", "public.orders_copy", "create", "if-missing");
    }
}

package io.sluice.connector.mysql;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.testkit.ConnectorFactoryContractTest;

import java.util.Map;

/** The testkit's factory contract for {@code mysql}: created without connecting. */
class MySqlConnectorFactoryContractTest extends ConnectorFactoryContractTest {
    @Override
    protected ConnectorFactory factory() {
        return new MySqlConnectorFactory();
    }

    @Override
    protected Map<String, Object> connectionOptions() {
        return Map.of("url", "jdbc:mariadb://127.0.0.1:1/none", "user", "u", "password", "secret-pw");
    }

    @Override
    protected Map<String, Object> sourceOptions() {
        return Map.of("table", "orders");
    }
}

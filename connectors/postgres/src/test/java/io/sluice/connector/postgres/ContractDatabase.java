package io.sluice.connector.postgres;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.TargetCapabilities;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.write.Target;
import io.sluice.testkit.ContractRow;
import io.sluice.testkit.TargetFixture;
import io.sluice.testkit.TestingPostgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A database of its own on the shared test server and a connector to it, for one contract test class: what the
 * testkit's target and ledger suites ask of a PostgreSQL target.
 */
final class ContractDatabase implements TargetFixture, AutoCloseable {
    private final TestingPostgres server;
    private final String database;
    private final Connector connector;

    ContractDatabase(String prefix) throws java.io.IOException {
        server = TestingPostgres.shared();
        database = server.createDatabase(requireNonNull(prefix, "prefix is null"));
        Map<String, Object> values = new HashMap<>();
        values.put("url", server.jdbcUrl(database));
        values.put("user", server.user());
        values.put("password", server.password());
        connector = new PostgresConnectorFactory().create(new ConnectionConfig("pg",
                Options.of(PostgresOptions.CONNECTION, values), Path.of("."),
                Files.createTempDirectory("sluice-state")));
    }

    Connector connector() {
        return connector;
    }

    void execute(String... statements) throws SQLException {
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    /** The contract suites' table: {@code id bigint, label text}. */
    @Override
    public void createTable(String table) throws SQLException {
        execute("CREATE TABLE " + table + " (id bigint, label text)");
    }

    @Override
    public void createKeyedTable(String table) throws SQLException {
        execute("CREATE TABLE " + table + " (id bigint PRIMARY KEY, label text)",
                "CREATE INDEX " + table + "_label ON " + table + " (label)");
    }

    @Override
    public List<String> indexes(String table) throws SQLException {
        List<String> indexes = new ArrayList<>();
        try (Connection c = server.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT indexdef || COALESCE(' ' || (SELECT pg_get_constraintdef(k.oid) "
                     + "FROM pg_constraint k WHERE k.conindid = i.indexrelid), '') FROM pg_indexes x JOIN pg_index i "
                     + "ON i.indexrelid = (x.schemaname || '.' || x.indexname)::regclass WHERE x.tablename = '"
                     + table + "'")) {
            while (rs.next()) {
                indexes.add(rs.getString(1));
            }
        }
        return indexes;
    }

    @Override
    public TargetCapabilities capabilities() {
        return new PostgresConnectorFactory().targetCapabilities();
    }

    @Override
    public Target target(String table) throws ConnectorException {
        return connector.targets().orElseThrow().open(CopyHarness.targetTable(table));
    }

    @Override
    public List<ContractRow> readRows(String table) throws SQLException {
        List<ContractRow> rows = new ArrayList<>();
        try (Connection c = server.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, label FROM " + table)) {
            while (rs.next()) {
                rows.add(new ContractRow(rs.getLong(1), Optional.ofNullable(rs.getString(2))));
            }
        }
        return rows;
    }

    @Override
    public void close() {
        connector.close();
    }
}

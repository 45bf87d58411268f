package io.sluice.connector.duckdb;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.testkit.DuckDbExtensions;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test data made by DuckDB itself (the tpch extension from the offline extension folder) and connector set-up. */
final class DuckDbFixtures {
    static final String ORDERS_PG_TABLE = "CREATE TABLE orders (o_orderkey bigint, o_custkey bigint, "
            + "o_orderstatus char(1), o_totalprice numeric(15,2), o_orderdate date, o_orderpriority varchar(15), "
            + "o_clerk varchar(15), o_shippriority integer, o_comment varchar(79))";

    /** The same figures computed on both sides: count, sums, dates and an md5 over every text column in key order. */
    static final String ORDERS_CHECKSUM = "SELECT count(*), sum(o_orderkey), sum(o_custkey), sum(o_totalprice), "
            + "min(o_orderdate), max(o_orderdate), sum(o_shippriority), md5(string_agg(o_orderstatus || o_orderpriority "
            + "|| o_clerk || o_comment || CAST(o_orderdate AS VARCHAR), '|' ORDER BY o_orderkey)) FROM ";

    private DuckDbFixtures() {
    }

    static Connection duckdb() throws SQLException {
        return DriverManager.getConnection("jdbc:duckdb:", DuckDbExtensions.connectionProperties());
    }

    /** TPC-H orders at {@code scaleFactor} written as {@code files} Parquet files orders-N.parquet in {@code dir}. */
    static void writeOrders(Path dir, double scaleFactor, int files) throws SQLException {
        DuckDbExtensions.require("tpch");
        try (Connection c = duckdb(); Statement s = c.createStatement()) {
            s.execute("LOAD tpch");
            s.execute("CALL dbgen(sf = " + scaleFactor + ")");
            for (int i = 0; i < files; i++) {
                s.execute("COPY (SELECT * FROM orders WHERE o_orderkey % " + files + " = " + i + " ORDER BY o_orderkey) "
                        + "TO '" + dir.resolve("orders-" + i + ".parquet") + "' (FORMAT parquet)");
            }
        }
    }

    static Connector connector(Path specDirectory, Map<String, ?> options) {
        Map<String, Object> values = new LinkedHashMap<>(options);
        return new DuckDbConnectorFactory().create(new ConnectionConfig("duck", Options.of(DuckDbOptions.CONNECTION,
                values), specDirectory, specDirectory.resolve("state")));
    }

    /** A connector that loads extensions from the provisioned folder only. */
    static Connector offlineConnector(Path specDirectory) {
        return connector(specDirectory, Map.of("extension-directory", DuckDbExtensions.directory().toString()));
    }

    static Options source(Map<String, ?> options) {
        return Options.of(DuckDbOptions.SOURCE, options);
    }

    /** The same checksum query in DuckDB over the Parquet files. */
    static java.util.List<String> duckChecksum(String relation) throws SQLException {
        try (Connection c = duckdb(); Statement s = c.createStatement();
             var rs = s.executeQuery(ORDERS_CHECKSUM + relation)) {
            rs.next();
            java.util.List<String> row = new java.util.ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                row.add(rs.getString(i));
            }
            return row;
        }
    }
}

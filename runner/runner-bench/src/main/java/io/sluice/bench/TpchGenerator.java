package io.sluice.bench;

import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Generates TPC-H with DuckDB's {@code tpch} extension (loaded offline) and lays it out for the scenarios: lineitem
 * and orders into the source database as heap tables without indexes, the empty target tables, the binary COPY dumps,
 * and orders as Parquet files.
 */
final class TpchGenerator {
    private static final Pattern DECIMAL = Pattern.compile("DECIMAL\\((\\d+),(\\d+)\\)");

    private final Path extensionDirectory;
    private final Path workDirectory;
    private final double scale;
    private final BenchLog log;

    TpchGenerator(Path extensionDirectory, Path workDirectory, double scale, BenchLog log) {
        this.extensionDirectory = requireNonNull(extensionDirectory, "extensionDirectory is null");
        this.workDirectory = requireNonNull(workDirectory, "workDirectory is null");
        this.scale = scale;
        this.log = requireNonNull(log, "log is null");
    }

    /**
     * @param withLineitem false loads and dumps only orders (lineitem and the tables cut from it stay empty, 0 rows):
     *                     what the orders sections need, at scales where lineitem would take the most time
     */
    TpchData generate(BenchPostgresServer source, BenchPostgresServer target, boolean withLineitem)
            throws SQLException, IOException {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        Path dataDirectory = workDirectory.resolve("data-sf" + scaleLabel());
        Files.createDirectories(dataDirectory);
        // A file database: generated once per scale and reused by later harness runs; bounded memory at large scales.
        Path database = dataDirectory.resolve("tpch.duckdb");
        Path done = dataDirectory.resolve("tpch.generated");
        if (!Files.exists(done)) {
            Files.deleteIfExists(database);
        }
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:" + database, duckDbProperties())) {
            execute(duck, "LOAD tpch");
            if (!Files.exists(done)) {
                log.step("generating TPC-H SF " + scaleLabel() + " with DuckDB dbgen");
                execute(duck, "CALL dbgen(sf = " + scale + ")");
                Files.writeString(done, "sf=" + scale + "\n");
            }
            List<TableData.Column> lineitemColumns = columns(duck, "lineitem");
            List<TableData.Column> ordersColumns = columns(duck, "orders");
            createTables(source, target, lineitemColumns, ordersColumns);
            long lineitemRows = withLineitem ? loadIntoSource(duck, source, "lineitem", dataDirectory) : 0;
            long ordersRows = loadIntoSource(duck, source, "orders", dataDirectory);
            log.step("VACUUM (FREEZE, ANALYZE) on the source, so no run pays for setting hint bits");
            try (Connection c = source.endpoint().connect(); Statement s = c.createStatement()) {
                s.execute("VACUUM (FREEZE, ANALYZE) " + TpchData.SCHEMA + ".lineitem");
                s.execute("VACUUM (FREEZE, ANALYZE) " + TpchData.SCHEMA + ".orders");
            }
            Path parquet = writeParquet(duck, dataDirectory.resolve("orders-parquet"));
            TableData lineitem = withLineitem ? dump(source, "lineitem", lineitemColumns, lineitemRows, dataDirectory)
                    : new TableData("lineitem", lineitemColumns, 0, dataDirectory.resolve("lineitem.not-loaded"), 0);
            TableData orders = dump(source, "orders", ordersColumns, ordersRows, dataDirectory);
            TableData many = withLineitem ? manyTables(source, target, lineitemColumns, lineitem)
                    : new TableData("many-tables", lineitemColumns, 0, dataDirectory.resolve("many.not-loaded"), 0);
            return new TpchData(scale, lineitem, orders, parquet, many);
        }
    }

    private String scaleLabel() {
        return java.math.BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
    }

    private Properties duckDbProperties() {
        Properties p = new Properties();
        p.setProperty("extension_directory", extensionDirectory.toString());
        p.setProperty("autoinstall_known_extensions", "false"); // never reach extensions.duckdb.org
        p.setProperty("autoload_known_extensions", "true");
        return p;
    }

    private static List<TableData.Column> columns(Connection duck, String table) throws SQLException {
        List<TableData.Column> columns = new ArrayList<>();
        try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("DESCRIBE " + table)) {
            while (rs.next()) {
                columns.add(new TableData.Column(rs.getString("column_name"), pgType(rs.getString("column_type"))));
            }
        }
        return columns;
    }

    /** The PostgreSQL type for a DuckDB column type of the TPC-H tables. */
    static String pgType(String duckDbType) {
        String t = duckDbType.toUpperCase(Locale.ROOT).replace(" ", "");
        Matcher decimal = DECIMAL.matcher(t);
        if (decimal.matches()) {
            return "numeric(" + decimal.group(1) + "," + decimal.group(2) + ")";
        }
        return switch (t) {
            case "INTEGER" -> "integer";
            case "BIGINT" -> "bigint";
            case "SMALLINT" -> "smallint";
            case "DOUBLE" -> "double precision";
            case "DATE" -> "date";
            case "VARCHAR" -> "text";
            default -> throw new IllegalStateException("no PostgreSQL type for DuckDB type " + duckDbType);
        };
    }

    private static void createTables(BenchPostgresServer source, BenchPostgresServer target,
                                     List<TableData.Column> lineitem, List<TableData.Column> orders)
            throws SQLException {
        TableData li = new TableData("lineitem", lineitem, 0, Path.of("-"), 0);
        TableData or = new TableData("orders", orders, 0, Path.of("-"), 0);
        String schema = TpchData.SCHEMA;
        try (Connection c = source.endpoint().connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
            s.execute(li.createTableSql(schema, "lineitem", false));
            s.execute(or.createTableSql(schema, "orders", false));
            s.execute(li.createTableSql(schema, SluiceFixedCostProbe.EMPTY_TABLE, false));
        }
        try (Connection c = target.endpoint().connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
            s.execute(li.createTableSql(schema, BenchTarget.LINEITEM_LOGGED.table(), false));
            s.execute(li.createTableSql(schema, BenchTarget.LINEITEM_UNLOGGED.table(), true));
            s.execute(or.createTableSql(schema, BenchTarget.ORDERS.table(), false));
            for (BenchTarget shape : List.of(BenchTarget.ORDERS_UNLOGGED, BenchTarget.ORDERS_KEYED,
                    BenchTarget.ORDERS_KEYED_UNLOGGED)) {
                s.execute(or.createTableSql(schema, shape.table(), shape.unlogged()));
                if (shape.keyed()) {
                    s.execute("ALTER TABLE " + shape.qualifiedTable() + " ADD PRIMARY KEY (o_orderkey)");
                }
            }
            s.execute(li.createTableSql(schema, SluiceFixedCostProbe.EMPTY_TABLE, false));
            String keyed = schema + "." + BenchTarget.LINEITEM_KEYED.table();
            s.execute(li.createTableSql(schema, BenchTarget.LINEITEM_KEYED.table(), false));
            s.execute("ALTER TABLE " + keyed + " ADD PRIMARY KEY (l_orderkey, l_linenumber)");
            String indexed = schema + "." + BenchTarget.LINEITEM_INDEXED.table();
            s.execute(li.createTableSql(schema, BenchTarget.LINEITEM_INDEXED.table(), false));
            for (String index : BenchTarget.createIndexSql(indexed, false)) {
                s.execute(index);
            }
        }
    }

    /**
     * {@link ManyTables}: each table the first rows of lineitem in the source, empty in the target. Its byte count is
     * lineitem's bytes per row times its rows (the tables are cut from it).
     */
    private TableData manyTables(BenchPostgresServer source, BenchPostgresServer target,
                                 List<TableData.Column> columns, TableData lineitem) throws SQLException {
        log.step("cutting " + ManyTables.count() + " tables of mixed sizes from lineitem");
        TableData shape = new TableData("lineitem", columns, 0, Path.of("-"), 0);
        long rows = 0;
        try (Connection c = source.endpoint().connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + ManyTables.SCHEMA + " CASCADE");
            s.execute("CREATE SCHEMA " + ManyTables.SCHEMA);
            for (int i = 0; i < ManyTables.count(); i++) {
                long n = ManyTables.rows(i, scale, lineitem.rows());
                s.execute("CREATE TABLE " + ManyTables.qualified(i) + " AS SELECT * FROM " + TpchData.SCHEMA
                        + ".lineitem LIMIT " + n);
                s.execute("VACUUM (FREEZE, ANALYZE) " + ManyTables.qualified(i));
                rows += n;
            }
        }
        try (Connection c = target.endpoint().connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + ManyTables.SCHEMA + " CASCADE");
            s.execute("CREATE SCHEMA " + ManyTables.SCHEMA);
            for (int i = 0; i < ManyTables.count(); i++) {
                s.execute(shape.createTableSql(ManyTables.SCHEMA, ManyTables.name(i), false));
            }
        }
        return new TableData("many-tables", columns, rows, Path.of("-"),
                Math.round((double) lineitem.binaryBytes() / lineitem.rows() * rows));
    }

    /** DuckDB writes CSV, the source reads it with COPY FROM STDIN: works for remote sources too. */
    private long loadIntoSource(Connection duck, BenchPostgresServer source, String table, Path dataDirectory)
            throws SQLException, IOException {
        log.step("loading " + table + " into the source");
        Path csv = dataDirectory.resolve(table + ".csv");
        try {
            execute(duck, "COPY " + table + " TO '" + csv + "' (FORMAT csv, HEADER false)");
            try (Connection c = source.endpoint().connect(); InputStream in = Files.newInputStream(csv)) {
                return c.unwrap(PGConnection.class).getCopyAPI()
                        .copyIn("COPY " + TpchData.SCHEMA + "." + table + " FROM STDIN (FORMAT csv)", in, 1 << 16);
            }
        } finally {
            Files.deleteIfExists(csv);
        }
    }

    private Path writeParquet(Connection duck, Path directory) throws SQLException, IOException {
        Path marker = directory.resolve("complete");
        if (Files.exists(marker)) {
            return directory;
        }
        log.step("writing orders as " + TpchData.PARQUET_FILES + " Parquet files");
        BenchPostgresServer.deleteRecursively(directory);
        Files.createDirectories(directory);
        for (int i = 0; i < TpchData.PARQUET_FILES; i++) {
            execute(duck, "COPY (SELECT * FROM orders WHERE o_orderkey % " + TpchData.PARQUET_FILES + " = " + i
                    + ") TO '" + directory.resolve(TpchData.parquetFileName(i)) + "' (FORMAT parquet)");
        }
        // Outside the glob (*.parquet), so it never becomes a partition.
        Files.writeString(marker, "ok\n");
        return directory;
    }

    /**
     * Dumps the table's binary COPY stream through the client (works for remote sources; the file belongs to the
     * harness). The ingest-limit scenario feeds it to the target's server-side COPY FROM.
     */
    private TableData dump(BenchPostgresServer source, String table, List<TableData.Column> columns, long rows,
                           Path dataDirectory) throws SQLException, IOException {
        log.step("dumping " + table + " in binary COPY format");
        Path file = dataDirectory.resolve(table + ".bin").toAbsolutePath();
        try (Connection c = source.endpoint().connect(); OutputStream out = Files.newOutputStream(file)) {
            c.unwrap(PGConnection.class).getCopyAPI()
                    .copyOut("COPY " + TpchData.SCHEMA + "." + table + " TO STDOUT (FORMAT binary)", out);
        }
        // The server process (another user namespace when embedded as root) must be able to read it.
        if (!file.toFile().setReadable(true, false)) {
            throw new UncheckedIOException(new IOException("cannot make " + file + " readable"));
        }
        return new TableData(table, columns, rows, file, Files.size(file));
    }

    private static void execute(Connection duck, String sql) throws SQLException {
        // duckdb_jdbc closes a Statement after a failed execute: one Statement per SQL statement.
        try (Statement s = duck.createStatement()) {
            s.execute(sql);
        }
    }
}

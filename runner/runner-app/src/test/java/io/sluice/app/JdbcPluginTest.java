package io.sluice.app;

import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code type: jdbc} with a driver Sluice does not ship: H2's jar in a plugins folder (the build lays it out in
 * target/test-plugins, off the test class path), a run as a user starts one (a process of its own, SLUICE_PLUGINS
 * naming the folder) copying an H2 table into PostgreSQL at degree 2; without the folder the run says where the
 * driver goes.
 */
class JdbcPluginTest {
    private static final Path PLUGINS = Path.of("target/test-plugins").toAbsolutePath();
    private static TestingPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        pg = TestingPostgres.start();
    }

    @AfterAll
    static void stop() {
        pg.close();
    }

    @Test
    void aDriverInThePluginsFolderIsFoundAndItsTableCopied() throws Exception {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.h2.Driver"),
                "H2 must not be on the test class path: the run has to find it in the plugins folder");
        String h2 = "jdbc:h2:file:" + dir.resolve("shop") + ";MODE=Regular";
        try (H2 db = H2.open(h2); Statement s = db.connection().createStatement()) {
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(20) NOT NULL, total DECIMAL(12,2), "
                    + "placed DATE, at TIMESTAMP, paid BOOLEAN, weight DOUBLE PRECISION, note CLOB, blob VARBINARY(8))");
            s.execute("INSERT INTO orders SELECT x, 'c' || MOD(x, 7), x / 4.0, DATEADD(DAY, MOD(x, 300), DATE "
                    + "'2024-01-01'), DATEADD(MINUTE, x, TIMESTAMP '2024-01-01 00:00:00.123456'), MOD(x, 2) = 0, x * 0.5, "
                    + "CASE WHEN MOD(x, 10) = 0 THEN NULL ELSE REPEAT('n', MOD(x, 30)) END, X'00ff' "
                    + "FROM SYSTEM_RANGE(1, 5000)");
        }
        String target = pg.createDatabase("jdbc_plugin");
        Path spec = dir.resolve("h2.yaml");
        Files.writeString(spec, """
                version: 1
                name: h2-to-postgres
                connections:
                  h2: { type: jdbc, url: "%s" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: orders
                    source: { connection: h2, table: orders }
                    target: { connection: pg, table: public.orders, create: if-missing }
                    distribution: { method: range, key: id }
                    degree: 2
                    columns: { customer: { rename: buyer } }
                """.formatted(h2, pg.jdbcUrl(target), pg.user()));

        Run missing = sluice(null, "run", spec.toString());
        assertTrue(missing.exit() != 0, missing.output());
        assertTrue(missing.output().contains("JDBC101") && missing.output().contains("plugins folder"),
                missing.output());

        Run run = sluice(PLUGINS, "run", spec.toString());
        assertEquals(0, run.exit(), run.output());
        assertEquals("5000 12502500 3125625.00 2500 2024-01-01 00:01:00.123456", query(target, "SELECT count(*) || ' ' "
                + "|| sum(id) || ' ' || sum(total) || ' ' || count(*) FILTER (WHERE paid) || ' ' || min(at) FROM orders"));
        assertEquals("id bigint, buyer character varying(20), total numeric(12,2), placed date, "
                + "at timestamp without time zone, paid boolean, weight double precision, note text, blob bytea",
                query(target, "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY "
                        + "attnum) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attnum > 0"));
        assertEquals("\\x00ff 2024-01-03 nn c2", query(target, "SELECT blob::text || ' ' || placed || ' ' || note "
                + "|| ' ' || buyer FROM orders WHERE id = 2"));
        // A JDBC source computes no row hash: compare says so, naming the side, instead of comparing anything.
        Run compare = sluice(PLUGINS, "compare", spec.toString());
        assertEquals(4, compare.exit(), compare.output());
        assertTrue(compare.output().contains("COMPARE001") && compare.output().contains("the source"),
                compare.output());
        Run connectors = sluice(PLUGINS, "connectors");
        assertTrue(connectors.output().contains("jdbc") && connectors.output().contains("mysql"), connectors.output());
        assertFalse(run.output().contains("Exception"), run.output());
    }

    @Test
    void ntileAndDataDrivenSplitByTheDatabasesOwnOrderEachRowOnce() throws Exception {
        String h2 = "jdbc:h2:file:" + dir.resolve("keys") + ";MODE=Regular";
        try (H2 db = H2.open(h2); Statement s = db.connection().createStatement()) {
            s.execute("CREATE TABLE events (id BIGINT PRIMARY KEY, who VARCHAR(20), placed DATE, at TIMESTAMP(9), "
                    + "w DOUBLE PRECISION)");
            // Keys with quotes, NULLs and repeats; timestamps to the nanosecond
            s.execute("INSERT INTO events SELECT x, CASE WHEN MOD(x, 11) = 0 THEN NULL ELSE 'o''' || MOD(x, 13) END, "
                    + "DATEADD(DAY, MOD(x, 40), DATE '2024-02-01'), DATEADD(NANOSECOND, x * 7000, TIMESTAMP "
                    + "'2024-01-01 00:00:00'), x / 3.0 FROM SYSTEM_RANGE(1, 3000)");
        }
        String target = pg.createDatabase("jdbc_keys");
        String stream = """
                  - name: %1$s
                    source: { connection: h2, table: events }
                    target: { connection: pg, table: public.%1$s, create: if-missing }
                    distribution: %2$s
                    degree: 3
                """;
        String head = """
                version: 1
                name: h2-keys
                connections:
                  h2: { type: jdbc, url: "%s" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                """.formatted(h2, pg.jdbcUrl(target), pg.user());
        Path spec = Files.writeString(dir.resolve("keys.yaml"), head
                + stream.formatted("by_at", "{ method: ntile, key: at }")
                + stream.formatted("by_who", "{ method: ntile, key: who }")
                + stream.formatted("by_day", "{ method: data-driven, key: placed }")
                + stream.formatted("by_listed", "{ method: data-driven, key: who, values-query: \"SELECT 'o''1' "
                        + "UNION ALL SELECT 'o''2'\" }"));
        Run plan = sluice(PLUGINS, "plan", spec.toString());
        assertEquals(0, plan.exit(), plan.output());
        assertTrue(plan.output().contains("\"AT\" >= {ts '2024-01-01 00:00:00.007007000'} AND \"AT\" < ")
                && plan.output().contains("\"WHO\" IS NULL") && plan.output().contains("data-driven on placed, degree "
                + "3, 41 partition(s)") && plan.output().contains("\"PLACED\" = {d '2024-02-01'}")
                && plan.output().contains("\"WHO\" NOT IN ('o''1', 'o''2')"), plan.output());
        Run run = sluice(PLUGINS, "run", spec.toString());
        assertEquals(0, run.exit(), run.output());
        for (String table : List.of("by_at", "by_who", "by_day", "by_listed")) {
            assertEquals("3000 4501500 2024-01-01 00:00:00.000007 2024-01-01 00:00:00.021", query(target,
                    "SELECT count(*) || ' ' || sum(id) || ' ' || min(at) || ' ' || max(at) FROM " + table), table);
            assertEquals("0", query(target, "SELECT count(*) FROM (SELECT id FROM " + table + " GROUP BY id "
                    + "HAVING count(*) > 1) d"), table);
        }
        Path floating = Files.writeString(dir.resolve("floating.yaml"), head
                + stream.formatted("by_w", "{ method: ntile, key: w }"));
        Run refused = sluice(PLUGINS, "plan", floating.toString());
        assertTrue(refused.exit() != 0 && refused.output().contains("JDBC111") && refused.output().contains("key w"),
                refused.output());
    }

    /**
     * A connector Sluice was not built with: the jdbc connector's own jar, taken off the class path and dropped into
     * the plugins folder beside H2's, as a third party ships one. Without the folder the type is unknown; with it
     * {@code sluice connectors} lists it and a run copies through it.
     */
    @Test
    void aConnectorJarInThePluginsFolderIsFoundAsIfBuiltIn() throws Exception {
        List<String> classPath = new ArrayList<>(List.of(System.getProperty("java.class.path")
                .split(java.io.File.pathSeparator)));
        List<String> connector = classPath.stream().filter(e -> e.contains("sluice-connector-jdbc")
                || e.replace('\\', '/').contains("connectors/jdbc/")).toList();
        assertEquals(1, connector.size(), "the jdbc connector on the test class path: " + classPath);
        classPath.removeAll(connector);
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        try (var jars = Files.list(PLUGINS)) {
            for (Path jar : jars.toList()) {
                Files.copy(jar, plugins.resolve(jar.getFileName()));
            }
        }
        Path jar = plugins.resolve("acme-jdbc-connector.jar");
        Path entry = Path.of(connector.getFirst());
        if (Files.isDirectory(entry)) {
            jarUp(entry, jar); // the reactor's target/classes
        } else {
            Files.copy(entry, jar);
        }
        String h2 = "jdbc:h2:file:" + dir.resolve("third") + ";MODE=Regular";
        try (H2 db = H2.open(h2); Statement s = db.connection().createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10))");
            s.execute("INSERT INTO t SELECT x, 'n' || x FROM SYSTEM_RANGE(1, 700)");
        }
        String target = pg.createDatabase("jdbc_third");
        Path spec = Files.writeString(dir.resolve("third.yaml"), """
                version: 1
                name: third-party
                connections:
                  h2: { type: jdbc, url: "%s" }
                  pg: { type: postgres, url: "%s", user: "%s" }
                streams:
                  - name: t
                    source: { connection: h2, table: t }
                    target: { connection: pg, table: public.t, create: if-missing }
                """.formatted(h2, pg.jdbcUrl(target), pg.user()));
        Run unknown = sluice(classPath, null, "run", spec.toString());
        assertTrue(unknown.exit() != 0 && unknown.output().contains("SPEC013")
                && unknown.output().contains("unknown connector type 'jdbc'"), unknown.output());
        Run listed = sluice(classPath, plugins, "connectors");
        assertEquals(0, listed.exit(), listed.output());
        assertTrue(listed.output().contains("jdbc"), listed.output());
        Run run = sluice(classPath, plugins, "run", spec.toString());
        assertEquals(0, run.exit(), run.output());
        assertEquals("700 245350", query(target, "SELECT count(*) || ' ' || sum(id) FROM t"));
    }

    private static void jarUp(Path classes, Path jar) throws Exception {
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar)); var files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new java.util.jar.JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
    }

    /** The test's own connection to an H2 database, through the plugins folder's jar (H2 is not on the class path). */
    private record H2(URLClassLoader loader, Connection connection) implements AutoCloseable {
        static H2 open(String url) throws Exception {
            URLClassLoader loader = new URLClassLoader(jars(), JdbcPluginTest.class.getClassLoader());
            Driver driver = (Driver) Class.forName("org.h2.Driver", true, loader).getDeclaredConstructor()
                    .newInstance();
            return new H2(loader, driver.connect(url, new Properties()));
        }

        @Override
        public void close() throws Exception {
            try (loader) {
                connection.close();
            }
        }
    }

    private static URL[] jars() throws Exception {
        try (var files = Files.list(PLUGINS)) {
            List<URL> urls = new ArrayList<>();
            for (Path jar : files.filter(p -> p.toString().endsWith(".jar")).toList()) {
                urls.add(jar.toUri().toURL());
            }
            assertFalse(urls.isEmpty(), "no jar in " + PLUGINS + ": the build copies H2 there");
            return urls.toArray(URL[]::new);
        }
    }

    private record Run(int exit, String output) {
    }

    /** Sluice as its own process, as a user starts it, with SLUICE_PLUGINS set (or not). */
    private Run sluice(Path plugins, String... args) throws Exception {
        return sluice(List.of(System.getProperty("java.class.path")), plugins, args);
    }

    private Run sluice(List<String> classPath, Path plugins, String... args) throws Exception {
        List<String> command = SluiceProcess.command(classPath, List.of(), List.of(args));
        Path log = Files.createTempFile(dir, "sluice", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().remove("SLUICE_PLUGINS");
        if (plugins != null) {
            builder.environment().put("SLUICE_PLUGINS", plugins.toString());
        }
        Process process = builder.start();
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "sluice did not end");
        return new Run(process.exitValue(), Files.readString(log));
    }

    private static String query(String database, String sql) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

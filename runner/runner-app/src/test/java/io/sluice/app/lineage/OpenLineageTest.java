package io.sluice.app.lineage;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.sun.net.httpserver.HttpServer;
import io.sluice.testkit.TestingPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OpenLineage events of real runs (a child Sluice process, a real PostgreSQL), received over HTTP by a loopback
 * receiver that validates each event against OpenLineage's published JSON schemas: the event itself against
 * {@code RunEvent}, and each facet against the schema its {@code _schemaURL} names.
 */
class OpenLineageTest {
    private static final String SECRET = "pw-that-must-not-leak-7c1";
    private static final String PARENT_RUN = "0190d9b4-8a36-7c53-9a4e-3f5b2c1d0e9f";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemas(OpenLineageTest::publishedSchema));

    @TempDir
    Path dir;
    private HttpServer receiver;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private String source;
    private String target;
    private final TestingPostgres pg = TestingPostgres.shared();

    @BeforeEach
    void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/api/v1/lineage", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                received.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            exchange.sendResponseHeaders(201, -1);
            exchange.close();
        });
        receiver.start();
        String suffix = Long.toHexString(System.nanoTime());
        source = pg.createDatabase("ol_src_" + suffix);
        target = pg.createDatabase("ol_dst_" + suffix);
        sql(source, "CREATE TABLE items (id bigint, name text, price numeric(10,2))",
                "INSERT INTO items SELECT g, 'item ' || g, g / 7.0 FROM generate_series(1, 5000) g");
        sql(target, "CREATE TABLE items (id bigint, name text, price numeric(10,2))");
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    @Test
    void aRunSendsStartAndCompleteForItsSpecAndStreamWithDatasetsSchemaRowsAndItsSchedulersParent() throws Exception {
        Map<String, String> env = http();
        env.put("OPENLINEAGE_PARENT_ID", "airflow/orders_dag.copy_orders/" + PARENT_RUN);
        env.put("OPENLINEAGE_API_KEY", "ol-token");
        Run run = sluice(spec(""), env);
        assertEquals(0, run.code, run.output);

        List<JsonNode> events = validated();
        assertEquals(List.of("START ol-test", "START ol-test.items", "COMPLETE ol-test.items", "COMPLETE ol-test"),
                events.stream().map(e -> e.get("eventType").asString() + " " + e.get("job").get("name").asString())
                        .toList());
        JsonNode specStart = events.getFirst();
        assertEquals("sluice", specStart.get("job").get("namespace").asString());
        JsonNode parent = specStart.get("run").get("facets").get("parent");
        assertEquals(PARENT_RUN, parent.get("run").get("runId").asString());
        assertEquals("orders_dag.copy_orders", parent.get("job").get("name").asString());
        String specRun = specStart.get("run").get("runId").asString();
        assertEquals(specRun, events.getLast().get("run").get("runId").asString(), "one run: START and COMPLETE");

        JsonNode streamDone = events.get(2);
        assertEquals(specRun, streamDone.get("run").get("facets").get("parent").get("run").get("runId").asString(),
                "the stream's run is the spec run's child");
        String namespace = namespace();
        JsonNode input = streamDone.get("inputs").get(0);
        assertEquals(namespace, input.get("namespace").asString());
        assertEquals(source + ".public.items", input.get("name").asString());
        JsonNode output = streamDone.get("outputs").get(0);
        assertEquals(namespace, output.get("namespace").asString());
        assertEquals(target + ".public.items", output.get("name").asString());
        assertEquals(List.of("id", "name", "price"), names(output.get("facets").get("schema").get("fields")));
        JsonNode statistics = output.get("outputFacets").get("outputStatistics");
        assertEquals(5000, statistics.get("rowCount").asLong());
        assertTrue(statistics.get("size").asLong() > 0, statistics.toString());
        assertEquals(5000, events.getLast().get("outputs").get(0).get("outputFacets").get("outputStatistics")
                .get("rowCount").asLong());
        assertTrue(authorizations.stream().allMatch("Bearer ol-token"::equals), authorizations.toString());
        received.forEach(body -> assertFalse(body.contains(SECRET), "no secret in an event: " + body));
    }

    @Test
    void aFailedRunSendsFailWithTheErrorAndNoSecret() throws Exception {
        sql(target, "ALTER TABLE items ADD CONSTRAINT cheap CHECK (price < 100)");
        Run run = sluice(spec(""), http());
        assertEquals(1, run.code, run.output);
        List<JsonNode> events = validated();
        JsonNode last = events.getLast();
        assertEquals("FAIL", last.get("eventType").asString());
        assertEquals("ol-test", last.get("job").get("name").asString());
        JsonNode streamFailed = events.stream().filter(e -> e.get("job").get("name").asString().equals(
                "ol-test.items")).reduce((a, b) -> b).orElseThrow();
        assertEquals("FAIL", streamFailed.get("eventType").asString());
        String message = streamFailed.get("run").get("facets").get("errorMessage").get("message").asString();
        assertTrue(message.contains("cheap"), message);
        received.forEach(body -> assertFalse(body.contains(SECRET), "no secret in an event: " + body));
    }

    @Test
    void aReceiverThatIsDownNeverFailsTheLoadAndIsToldOnce() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Map<String, String> env = new HashMap<>();
        env.put("OPENLINEAGE_URL", "http://127.0.0.1:" + closed);
        env.put("OPENLINEAGE__TRANSPORT__TIMEOUT_IN_MILLIS", "2000");
        Run run = sluice(spec(""), env);
        assertEquals(0, run.code, run.output);
        assertTrue(run.output.contains("warning: OpenLineage: 4 event(s) not delivered"), run.output);
        assertEquals(0, count(target, "SELECT count(*) FROM items") - 5000, "the load is whole");
    }

    @Test
    void theFileTransportAppendsOneEventPerLine() throws Exception {
        Path file = dir.resolve("lineage.ndjson");
        Map<String, String> env = new HashMap<>();
        env.put("OPENLINEAGE__TRANSPORT__TYPE", "file");
        env.put("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH", file.toString());
        Run run = sluice(spec(""), env);
        assertEquals(0, run.code, run.output);
        received.addAll(Files.readAllLines(file));
        assertEquals(4, validated().size());
    }

    @Test
    void theValidatorRefusesWhatTheSpecRefuses() {
        // Guards the guard: an event without eventTime and a facet without its required field are errors.
        String event = new LineageEvents(s -> s).event("START", java.time.Instant.now(),
                new LineageEvents.Job("ns", "job", "JOB"), LineageEvents.runUuid("job", "r"), java.util.Optional.empty(),
                java.util.Optional.of("boom"), List.of(), List.of());
        Schema runEvent = SCHEMAS.getSchema(SchemaLocation.of(LineageEvents.SPEC));
        assertTrue(runEvent.validate(event, InputFormat.JSON).isEmpty());
        assertFalse(runEvent.validate(event.replace("\"eventTime\"", "\"eventTimes\""), InputFormat.JSON).isEmpty());
        JsonNode error = JSON.readTree(event).get("run").get("facets").get("errorMessage");
        Schema facet = SCHEMAS.getSchema(SchemaLocation.of(error.get("_schemaURL").asString()));
        assertTrue(facet.validate(error.toString(), InputFormat.JSON).isEmpty());
        assertFalse(facet.validate(error.toString().replace("\"programmingLanguage\"", "\"language\""),
                InputFormat.JSON).isEmpty());
    }

    /** Every received event, each validated against RunEvent and each of its facets against its own schema. */
    private List<JsonNode> validated() {
        Schema runEvent = SCHEMAS.getSchema(SchemaLocation.of(LineageEvents.SPEC));
        List<JsonNode> events = new ArrayList<>();
        for (String body : received) {
            List<Error> errors = runEvent.validate(body, InputFormat.JSON);
            assertTrue(errors.isEmpty(), errors + " in " + body);
            JsonNode event = JSON.readTree(body);
            List<JsonNode> facets = new ArrayList<>();
            event.get("run").get("facets").forEach(facets::add);
            event.get("job").get("facets").forEach(facets::add);
            for (String side : List.of("inputs", "outputs")) {
                for (JsonNode dataset : event.get(side)) {
                    dataset.path("facets").forEach(facets::add);
                    dataset.path("outputFacets").forEach(facets::add);
                }
            }
            for (JsonNode facet : facets) {
                Schema schema = SCHEMAS.getSchema(SchemaLocation.of(facet.get("_schemaURL").asString()));
                List<Error> facetErrors = schema.validate(facet.toString(), InputFormat.JSON);
                assertTrue(facetErrors.isEmpty(), facetErrors + " in facet " + facet);
            }
            events.add(event);
        }
        return events;
    }

    /** The schema files in test resources, by the $id each declares (openlineage.io is not reachable from CI). */
    private static String publishedSchema(String iri) {
        String prefix = "https://openlineage.io/spec/";
        if (!iri.startsWith(prefix)) {
            return null;
        }
        String rest = iri.substring(prefix.length());
        String file = rest.startsWith("facets/") ? "facets/" + rest.substring(rest.lastIndexOf('/') + 1)
                : rest.substring(rest.lastIndexOf('/') + 1);
        try (InputStream in = OpenLineageTest.class.getResourceAsStream("openlineage/" + file)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> names(JsonNode fields) {
        List<String> names = new ArrayList<>();
        fields.forEach(f -> names.add(f.get("name").asString()));
        return names;
    }

    private Map<String, String> http() {
        Map<String, String> env = new HashMap<>();
        env.put("OPENLINEAGE_URL", "http://127.0.0.1:" + receiver.getAddress().getPort());
        return env;
    }

    private Path spec(String extra) throws IOException {
        Path spec = dir.resolve("ol.yaml");
        Files.writeString(spec, """
                version: 1
                name: ol-test
                connections:
                  src: { type: postgres, url: "%s", user: "%s" }
                  dst: { type: postgres, url: "%s", user: "%s", password: "${OL_TEST_PASSWORD}" }
                streams:
                  - name: items
                    source: { connection: src, table: items }
                    target: { connection: dst, table: items }
                    degree: 2
                    load-mode: truncate
                %s""".formatted(pg.jdbcUrl(source), pg.user(), pg.jdbcUrl(target), pg.user(), extra));
        return spec;
    }

    private record Run(int code, String output) {
    }

    private Run sluice(Path spec, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(io.sluice.app.SluiceProcess.command("run", spec.toString()))
                .redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("OPENLINEAGE"));
        builder.environment().putAll(env);
        builder.environment().put("OL_TEST_PASSWORD", SECRET);
        Process process = builder.start();
        byte[] out;
        try (InputStream in = process.getInputStream()) {
            out = in.readAllBytes();
        }
        assertTrue(process.waitFor(5, TimeUnit.MINUTES));
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** OpenLineage's namespace of the test server: {@code postgres://host:port} from its JDBC URL. */
    private String namespace() {
        String rest = pg.jdbcUrl(target).substring("jdbc:postgresql://".length());
        return "postgres://" + rest.substring(0, rest.indexOf('/'));
    }

    private void sql(String database, String... statements) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private long count(String database, String query) throws Exception {
        try (Connection c = pg.connect(database); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

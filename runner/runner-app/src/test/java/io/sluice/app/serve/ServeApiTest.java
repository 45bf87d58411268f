package io.sluice.app.serve;

import io.sluice.app.report.TestPipeline;
import io.sluice.app.report.Validators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** sluice serve over real HTTP: the token, the refusals, the spec list and real runs against PostgreSQL. */
class ServeApiTest {
    private static final String TOKEN = "test-token-0123456789abcdef";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path root;

    private static TestPipeline pipeline;
    private static SluiceServer server;
    private static Path specs;
    private static Path outside;

    @BeforeAll
    static void start() throws Exception {
        pipeline = TestPipeline.create("serve");
        specs = Files.createDirectories(root.resolve("specs"));
        Path team = Files.createDirectories(specs.resolve("team"));
        pipeline.spec(specs, "ok", "items");
        pipeline.slowSpec(team, "slow", 2.5);
        Files.writeString(specs.resolve("broken.yaml"), Files.readString(specs.resolve("ok.yaml"))
                .replace("degree: 2", "degre: 2"));
        Path elsewhere = Files.createDirectories(root.resolve("elsewhere"));
        outside = pipeline.spec(elsewhere, "outside", "items");
        Files.createSymbolicLink(specs.resolve("escape.yaml"), outside);
        ServeSettings settings = new ServeSettings(specs, ApiToken.of(TOKEN), "127.0.0.1", 0,
                root.resolve("state"), 2);
        server = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> SluiceServer.start(settings));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            assertTimeoutPreemptively(Duration.ofSeconds(60), server::close);
        }
    }

    @Test
    void healthIsOpen() throws Exception {
        HttpResponse<String> health = get("/actuator/health", null);
        assertEquals(200, health.statusCode(), health.body());
        assertTrue(health.body().contains("\"UP\""), health.body());
    }

    @Test
    void everyApiCallAndTheMetricsNeedTheToken() throws Exception {
        for (String path : List.of("/api/specs", "/api/runs", "/api/runs/x", "/api/nothing-here", "/api",
                "/actuator/prometheus")) {
            HttpResponse<String> none = get(path, null);
            assertEquals(401, none.statusCode(), path);
            assertEquals("Bearer realm=\"sluice\"", none.headers().firstValue("WWW-Authenticate").orElse(""));
            assertEquals(401, get(path, "wrong-token-0123456789abcdef").statusCode(), path);
            assertEquals(401, get(path, TOKEN + "x").statusCode(), path);
        }
        HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(uri("/api/runs"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"spec\":\"ok.yaml\"}"))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, post.statusCode());
        HttpResponse<String> basic = HTTP.send(HttpRequest.newBuilder(uri("/api/specs"))
                .header("Authorization", "Basic " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, basic.statusCode());
        assertFalse(basic.body().contains(TOKEN));
    }

    @Test
    void specsAreListedWithTheirLintResultAndNothingFromOutside() throws Exception {
        HttpResponse<String> response = get("/api/specs", TOKEN);
        assertEquals(200, response.statusCode(), response.body());
        JsonNode list = JSON.readTree(response.body()).get("specs");
        List<String> names = list.valueStream().map(s -> s.get("name").asString()).toList();
        assertEquals(List.of("broken.yaml", "ok.yaml", "team/slow.yaml"), names, "the escaping link is left out");
        JsonNode broken = list.get(0);
        assertFalse(broken.get("valid").asBoolean());
        assertTrue(broken.get("diagnostics").valueStream()
                .anyMatch(d -> d.get("message").asString().contains("unknown key 'degre'")), broken.toString());
        assertTrue(list.get(1).get("valid").asBoolean(), list.get(1).toString());
        assertFalse(response.body().contains(root.toString()), "no server paths: " + response.body());
    }

    @Test
    void specNamesThatLeaveTheFolderAreRefused() throws Exception {
        assertEquals(400, startRun("{\"spec\":\"../elsewhere/outside.yaml\"}").statusCode());
        assertEquals(400, startRun("{\"spec\":\"team/../../elsewhere/outside.yaml\"}").statusCode());
        assertEquals(400, startRun("{\"spec\":" + JSON.writeValueAsString(outside.toString()) + "}").statusCode());
        assertEquals(400, startRun("{\"spec\":\"/etc/passwd\"}").statusCode());
        assertEquals(400, startRun("{\"spec\":\"..\\\\elsewhere\\\\outside.yaml\"}").statusCode());
        assertEquals(400, startRun("{\"spec\":\"password.txt\"}").statusCode());
        assertEquals(404, startRun("{\"spec\":\"escape.yaml\"}").statusCode(), "a link leading out is not there");
        assertEquals(404, startRun("{\"spec\":\"missing.yaml\"}").statusCode());
        assertEquals(400, startRun("{\"spec\":").statusCode());
        assertEquals(400, startRun("{\"spec\":\"ok.yaml\",\"extra\":1}").statusCode());
        assertEquals(400, startRun("{\"spec\":\"ok.yaml\",\"run-id\":\"../x\"}").statusCode());
        assertEquals(400, startRun("{}").statusCode());
        assertEquals(404, get("/api/runs/no-such-run", TOKEN).statusCode());
        JsonNode runs = JSON.readTree(get("/api/runs", TOKEN).body()).get("runs");
        assertTrue(runs.valueStream().noneMatch(r -> r.get("spec").asString().contains("outside")
                || r.get("spec").asString().contains("escape")), "nothing refused was queued: " + runs);
    }

    @Test
    void aRunCompletesInTheBackgroundAndReportsItsRows() throws Exception {
        HttpResponse<String> accepted = startRun("{\"spec\":\"ok.yaml\",\"run-id\":\"serve-ok-1\"}");
        assertEquals(202, accepted.statusCode(), accepted.body());
        assertEquals("/api/runs/serve-ok-1", accepted.headers().firstValue("Location").orElse(""));
        assertEquals("serve-ok-1", JSON.readTree(accepted.body()).get("run-id").asString());
        assertEquals(409, startRun("{\"spec\":\"ok.yaml\",\"run-id\":\"serve-ok-1\"}").statusCode());

        JsonNode run = awaitFinished("serve-ok-1");
        assertEquals("done", run.get("state").asString(), run.toString());
        assertEquals(0, run.get("exit-code").asInt());
        JsonNode summary = run.get("summary");
        assertEquals(List.of(), Validators.summaryErrors(summary.toString()), summary.toString());
        assertEquals(TestPipeline.ROWS, summary.get("rows").asLong());
        assertEquals("ok.yaml", summary.get("spec").get("file").asString());
        assertEquals(TestPipeline.ROWS, pipeline.count("items"));
        for (String secret : pipeline.secrets()) {
            assertFalse(run.toString().contains(secret), secret);
        }

        HttpResponse<String> metrics = get("/actuator/prometheus", TOKEN);
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("sluice_copied_rows_total{connector=\"postgres\",degree=\"2\","
                + "pipeline=\"ok\",run_id=\"serve-ok-1\",stream=\"items\"} " + TestPipeline.ROWS + ".0"),
                metrics.body());
    }

    @Test
    void aRunningRunShowsProgress() throws Exception {
        assertEquals(202, startRun("{\"spec\":\"team/slow.yaml\",\"run-id\":\"serve-slow-1\"}").statusCode());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode progress = null;
        while (progress == null) {
            JsonNode run = JSON.readTree(get("/api/runs/serve-slow-1", TOKEN).body());
            if (!run.get("progress").isNull()) {
                progress = run.get("progress");
            } else if (!run.get("summary").isNull() || System.nanoTime() > deadline) {
                fail("finished or timed out without showing progress: " + run);
            }
            Thread.onSpinWait();
        }
        assertEquals("items", progress.get("stream").asString());
        assertEquals(1, progress.get("partitions-total").asInt());
        assertEquals("done", awaitFinished("serve-slow-1").get("state").asString());
    }

    @Test
    void anInvalidSpecIsAFailedRunWithExit3() throws Exception {
        assertEquals(202, startRun("{\"spec\":\"broken.yaml\",\"run-id\":\"serve-bad-1\"}").statusCode());
        JsonNode run = awaitFinished("serve-bad-1");
        assertEquals("failed", run.get("state").asString());
        assertEquals(3, run.get("summary").get("exit-code").asInt());
        assertTrue(run.get("summary").get("error").get("message").asString().contains("degre"), run.toString());
    }

    private static JsonNode awaitFinished(String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            HttpResponse<String> response = get("/api/runs/" + id, TOKEN);
            assertEquals(200, response.statusCode(), response.body());
            JsonNode run = JSON.readTree(response.body());
            if (!Set.of("queued", "running").contains(run.get("state").asString())) {
                return run;
            }
            if (System.nanoTime() > deadline) {
                fail("run " + id + " did not finish: " + run);
            }
            Thread.sleep(50); // polling interval, not a timing assumption: the deadline bounds the wait
        }
    }

    private static HttpResponse<String> startRun(String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri("/api/runs")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}

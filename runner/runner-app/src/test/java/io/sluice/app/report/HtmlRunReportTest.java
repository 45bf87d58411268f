package io.sluice.app.report;

import io.sluice.app.CliRun;
import io.sluice.testkit.HeadlessChromium;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code run --report} and {@code status --report} on real runs: a copy of about 4 partitions at degree 2 in which one
 * partition fails once with a transient error (a target trigger raises serialization_failure the first time it sees
 * one row) and is retried. The report's embedded data must show every partition with its attempts, the same from
 * the run and from the ledger, and a real browser must draw it: every partition on the timeline in its state, without
 * a single network request or script error.
 */
class HtmlRunReportTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"sluice-run\">(.*?)</script>", Pattern.DOTALL);
    /** The row whose first insert fails. */
    static final int FAULTY_ID = 4000;

    @TempDir
    static Path dir;
    static TestPipeline pipeline;
    static Path spec;
    static Path report;
    static Path summary;
    static Path junit;
    static CliRun run;

    @BeforeAll
    static void runOnceWithARetry() throws Exception {
        pipeline = TestPipeline.create("htmlreport");
        pipeline.failOnceOnTarget("items", FAULTY_ID);
        spec = pipeline.spec(dir, "html-report", "items");
        Files.writeString(spec, Files.readString(spec).replace("    load-mode: truncate",
                "    load-mode: truncate\n    batch-size: 1250\n    retry: { initial-backoff: 10ms }"));
        report = dir.resolve("out/run.html");
        summary = dir.resolve("out/summary.json");
        junit = dir.resolve("out/junit.xml");
        run = CliRun.of("run", spec.toString(), "--run-id", "html-1", "--report", report.toString(),
                "--summary-json", summary.toString(), "--junit-xml", junit.toString());
    }

    static JsonNode data(Path html) throws Exception {
        Matcher m = DATA.matcher(Files.readString(html));
        assertTrue(m.find(), "no embedded run data in " + html);
        return JSON.readTree(m.group(1));
    }

    /** Per partition number, the outcomes of its attempts in order. */
    static List<List<String>> outcomes(JsonNode stream) {
        List<List<String>> byPartition = new ArrayList<>();
        for (int i = 0; i < stream.get("partitions").size(); i++) {
            byPartition.add(new ArrayList<>());
        }
        List<JsonNode> attempts = new ArrayList<>();
        stream.get("attempts").forEach(attempts::add);
        attempts.sort(java.util.Comparator.comparingInt((JsonNode a) -> a.get("partition").asInt())
                .thenComparingInt(a -> a.get("attempt").asInt()));
        for (JsonNode a : attempts) {
            byPartition.get(a.get("partition").asInt() - 1).add(a.get("outcome").asString());
        }
        return byPartition;
    }

    @Test
    void theReportShowsEveryPartitionAndTheRetryAndTheOtherReportsLinkToIt() throws Exception {
        assertEquals(0, run.exitCode(), run.all());
        assertEquals(TestPipeline.ROWS, pipeline.count("items"));
        JsonNode data = data(report);
        assertEquals("html-1", data.get("runId").asString());
        assertEquals("done", data.get("state").asString());
        assertEquals(TestPipeline.ROWS, data.get("rows").asLong());
        JsonNode stream = data.get("streams").get(0);
        int partitions = stream.get("partitions").size();
        assertTrue(partitions >= 3, stream.toString());
        assertEquals(stream.get("partitionsPlanned").asInt(), partitions, stream.toString());
        assertEquals(1, stream.get("retries").asInt(), stream.toString());
        List<List<String>> outcomes = outcomes(stream);
        assertEquals(partitions - 1, outcomes.stream().filter(o -> o.equals(List.of("done"))).count(),
                outcomes.toString());
        assertEquals(1, outcomes.stream().filter(o -> o.equals(List.of("retried", "done"))).count(),
                outcomes.toString());
        stream.get("partitions").forEach(p -> assertEquals("done", p.get("state").asString()));
        long rows = 0;
        for (JsonNode p : stream.get("partitions")) {
            rows += p.get("rows").asLong();
        }
        assertEquals(TestPipeline.ROWS, rows);
        stream.get("attempts").forEach(a -> assertTrue(a.get("lane").asInt() < 2, "degree 2: two workers, " + a));
        assertTrue(stream.get("rate").size() > 0, stream.toString());
        assertTrue(stream.get("statements").get(0).asString().contains("COPY"), stream.toString());
        assertEquals(3, stream.get("columns").size(), stream.toString());
        String retried = stream.get("attempts").valueStream().filter(a -> a.get("outcome").asString()
                .equals("retried")).findFirst().orElseThrow().get("error").asString();
        assertTrue(retried.contains("injected transient failure"), retried);

        JsonNode json = JSON.readTree(Files.readString(summary));
        assertEquals(report.toString(), json.get("report").asString());
        assertEquals(List.of(), Validators.summaryErrors(Files.readString(summary)));
        String xml = Files.readString(junit);
        Validators.validateJunit(xml);
        assertTrue(xml.contains("<property name=\"report\" value=\"" + report + "\""), xml);
        String html = Files.readString(report);
        for (String secret : pipeline.secrets()) {
            assertFalse(html.contains(secret), "the report shows a secret");
        }
    }

    @Test
    void statusWritesTheSameTimelineFromTheLedger() throws Exception {
        assertEquals(0, run.exitCode(), run.all());
        Path fromLedger = dir.resolve("out/status.html");
        CliRun status = CliRun.of("status", spec.toString(), "html-1", "--report", fromLedger.toString());
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("report: " + fromLedger), status.all());
        JsonNode data = data(fromLedger);
        assertEquals("read from the ledger", data.get("origin").asString());
        assertEquals("done", data.get("state").asString());
        JsonNode stream = data.get("streams").get(0);
        assertEquals(outcomes(data(report).get("streams").get(0)), outcomes(stream),
                "the ledger records the same attempts as the run saw");
        assertEquals(TestPipeline.ROWS, data.get("rows").asLong());

        CliRun noRun = CliRun.of("status", spec.toString(), "--report", fromLedger.toString());
        assertEquals(2, noRun.exitCode(), noRun.all());
        assertTrue(noRun.err().contains("--report needs RUN_ID"), noRun.all());
    }

    @Test
    void aFailedRunStillWritesItsReportWithoutTheSecretsItsErrorsWouldName() throws Exception {
        Path failing = pipeline.specWithSecretTable(dir, "html-report-fail", false);
        Path failedReport = dir.resolve("out/failed.html");
        CliRun failed = CliRun.of("run", failing.toString(), "--run-id", "html-2", "--report",
                failedReport.toString());
        assertEquals(1, failed.exitCode(), failed.all());
        String html = Files.readString(failedReport);
        for (String secret : pipeline.secrets()) {
            assertFalse(html.contains(secret), "the report shows a secret");
        }
        JsonNode data = data(failedReport);
        assertEquals("failed", data.get("state").asString());
        assertTrue(data.get("error").asString().contains("***"), data.get("error").asString());
        assertTrue(data.get("streams").get(0).get("attempts").valueStream()
                .anyMatch(a -> a.get("outcome").asString().equals("failed")), data.toString());
    }

    @Test
    void aHeadlessBrowserDrawsEachChangeFeedWithItsLag() throws Exception {
        TimelineRecorder recorder = new TimelineRecorder(java.time.Clock.systemUTC());
        recorder.changesStarted("sluice_orders", "changes only", "0/100", java.util.Optional.empty());
        recorder.changesApplied("sluice_orders", new io.sluice.spi.changes.ChangeBatch(List.of(), "0/200", 3),
                new io.sluice.spi.changes.ChangeApplier.Applied(5, 2, 1, 0), 4_500_000);
        Path page = dir.resolve("changes.html");
        Files.writeString(page, new HtmlRunReport(s -> s).render(recorder.timeline()));
        try (HeadlessChromium chromium = HeadlessChromium.startOrSkip()) {
            chromium.driver().get(page.toUri().toString());
            new WebDriverWait(chromium.driver(), Duration.ofSeconds(30))
                    .until(d -> d.findElement(By.tagName("body")).getAttribute("data-rendered") != null);
            String feed = chromium.driver().findElement(By.cssSelector("section[data-feed='sluice_orders']"))
                    .getText();
            assertTrue(feed.contains("4.5 MB") && feed.contains("behind the source (lag)"), feed);
            assertTrue(feed.contains("up to 0/200") && feed.contains("applying"), feed);
            assertEquals(List.of(), chromium.consoleErrors());
        }
    }

    @Test
    void aHeadlessBrowserDrawsEveryPartitionInItsStateWithoutAnyNetworkRequest() throws Exception {
        assertEquals(0, run.exitCode(), run.all());
        Path fromLedger = dir.resolve("out/browser-status.html");
        assertEquals(0, CliRun.of("status", spec.toString(), "html-1", "--report", fromLedger.toString()).exitCode());
        try (HeadlessChromium chromium = HeadlessChromium.startOrSkip()) {
            for (Path file : List.of(report, fromLedger)) {
                JsonNode stream = data(file).get("streams").get(0);
                String url = file.toUri().toString();
                chromium.driver().get(url);
                new WebDriverWait(chromium.driver(), Duration.ofSeconds(30))
                        .until(d -> d.findElement(By.tagName("body")).getAttribute("data-rendered") != null);
                assertEquals("true", chromium.driver().findElement(By.tagName("body")).getAttribute("data-rendered"),
                        "the charts library did not load");
                // The partition table: one row per partition, in the state the run left it.
                List<WebElement> rows = chromium.driver()
                        .findElements(By.cssSelector("table.partitions tr[data-state]"));
                assertEquals(stream.get("partitions").size(), rows.size());
                rows.forEach(r -> assertEquals("done", r.getAttribute("data-state")));
                // The timeline: one bar per attempt, coloured by how it ended, one retried (orange) among them.
                @SuppressWarnings("unchecked")
                List<String> colours = (List<String>) chromium.driver().executeScript("return echarts"
                        + ".getInstanceByDom(document.getElementById('gantt-0')).getOption().series[0].data"
                        + ".map(d => d.itemStyle.color)");
                assertEquals(stream.get("attempts").size(), colours.size());
                assertEquals(1, colours.stream().filter("#fb8c00"::equals).count(), colours.toString());
                assertEquals(colours.size() - 1, colours.stream().filter("#43a047"::equals).count(),
                        colours.toString());
                Number drawn = (Number) chromium.driver().executeScript("return echarts.getInstanceByDom(document"
                        + ".getElementById('gantt-0')).getZr().storage.getDisplayList().length");
                assertTrue(drawn.intValue() >= colours.size(), "the bars are drawn, not only configured: " + drawn);
                assertEquals(List.of(), chromium.consoleErrors());
                assertEquals(List.of(url), chromium.requestedUrls(), "the report may load nothing but itself");
                chromium.screenshot(Path.of("target", "report-screenshots", file.getFileName().toString()
                        .replace(".html", ".png")));
            }
        }
    }
}

package io.sluice.app.logging;

import io.sluice.app.CliRun;
import io.sluice.app.report.TestPipeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --log-format json on real runs: every stderr line one JSON object with the fixed keys and the run id. */
class JsonLogTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> KEYS = List.of("timestamp", "level", "run-id", "stream", "partition", "event",
            "message");
    private static TestPipeline pipeline;

    @TempDir
    Path dir;

    @BeforeAll
    static void databases() throws Exception {
        pipeline = TestPipeline.create("jsonlog");
    }

    @Test
    void everyLineOfASuccessfulRunIsAnEventWithTheRunId() throws Exception {
        Path spec = pipeline.spec(dir, "jsonlog-ok", "items");
        Files.writeString(spec, Files.readString(spec).replace("    load-mode: truncate",
                "    load-mode: truncate\n    verify: count"));
        CliRun run = CliRun.of("run", spec.toString(), "--log-format", "json", "--run-id", "json-ok-1");

        assertEquals(0, run.exitCode(), run.all());
        assertEquals("", run.out());
        List<JsonNode> events = events(run.err());
        Set<String> names = events.stream().map(e -> e.get("event").asString()).collect(Collectors.toSet());
        assertTrue(names.containsAll(Set.of("run-started", "stream-started", "partition-started",
                "partition-finished", "stream-verified", "stream-finished", "run-finished")), names.toString());
        assertEquals("passed", only(events, "stream-verified").get("status").asString());
        JsonNode stream = only(events, "stream-finished");
        assertEquals("items", stream.get("stream").asString());
        assertEquals(TestPipeline.ROWS, stream.get("rows").asLong());
        assertTrue(stream.get("rows-read-equals-rows-written").asBoolean());
        JsonNode partition = events.stream().filter(e -> e.get("event").asString().equals("partition-finished"))
                .findFirst().orElseThrow();
        assertTrue(partition.get("partition").asInt() >= 1, partition.toString());
        JsonNode finished = only(events, "run-finished");
        assertEquals("INFO", finished.get("level").asString());
        assertEquals(0, finished.get("exit-code").asInt());
    }

    @Test
    void aFailedRunEndsWithAnErrorEventCarryingCodeAndFix() throws Exception {
        CliRun run = CliRun.of("run", pipeline.spec(dir, "jsonlog-fail", "narrow").toString(), "--log-format", "json",
                "--run-id", "json-fail-1");

        assertEquals(1, run.exitCode(), run.all());
        List<JsonNode> events = events(run.err());
        JsonNode failed = events.stream().filter(e -> e.get("event").asString().equals("partition-finished")
                && e.get("state").asString().equals("failed")).findFirst().orElseThrow();
        assertEquals("ERROR", failed.get("level").asString());
        JsonNode finished = only(events, "run-finished");
        assertEquals("ERROR", finished.get("level").asString());
        assertEquals(1, finished.get("exit-code").asInt());
        assertEquals("data", finished.get("error-kind").asString());
        assertFalse(finished.get("fix").asString().isBlank(), finished.toString());
    }

    @Test
    void anInvalidSpecIsReportedAsJsonToo() throws Exception {
        Path spec = dir.resolve("broken.yaml");
        Files.writeString(spec, Files.readString(pipeline.spec(dir, "jsonlog-bad", "items"))
                .replace("degree: 2", "degre: 2"));
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "json-bad-1", "--log-format", "json");

        assertEquals(3, run.exitCode(), run.all());
        List<JsonNode> events = events(run.err());
        assertTrue(events.stream().anyMatch(e -> e.get("level").asString().equals("ERROR")
                && e.get("message").asString().contains("unknown key 'degre'")), run.err());
        JsonNode finished = only(events, "run-finished");
        assertEquals(3, finished.get("exit-code").asInt());
        assertEquals("SPEC000", finished.get("error-code").asString());
    }

    @Test
    void progressIsAJsonEventEveryIntervalWithoutATerminal() throws Exception {
        // The source query sleeps 2.5 s, so a 1 s interval reports at least once while the partition copies.
        CliRun run = CliRun.of("run", pipeline.slowSpec(dir, "jsonlog-slow", 2.5).toString(), "--log-format", "json",
                "--run-id", "json-slow-1", "--progress-interval", "1");

        assertEquals(0, run.exitCode(), run.all());
        List<JsonNode> progress = events(run.err()).stream()
                .filter(e -> e.get("event").asString().equals("progress")).toList();
        assertFalse(progress.isEmpty(), run.err());
        assertEquals("items", progress.getFirst().get("stream").asString());
        assertEquals(1, progress.getFirst().get("partitions-total").asInt());
    }

    @Test
    void textStaysTheDefault() throws Exception {
        CliRun run = CliRun.of("run", pipeline.spec(dir, "jsonlog-text", "items").toString(), "--run-id", "text-1");

        assertEquals(0, run.exitCode(), run.all());
        assertTrue(run.err().startsWith("run text-1 of spec jsonlog-text"), run.err());
        assertFalse(run.err().contains("{\"timestamp\""), run.err());
    }

    /** Parses every line, checking the fixed keys and that each names this run. */
    private static List<JsonNode> events(String stderr) {
        List<String> lines = stderr.lines().toList();
        assertFalse(lines.isEmpty());
        String runId = null;
        List<JsonNode> events = new java.util.ArrayList<>();
        for (String line : lines) {
            JsonNode event = JSON.readTree(line);
            assertTrue(event.isObject(), line);
            assertEquals(KEYS, event.propertyNames().stream().limit(KEYS.size()).toList(), line);
            if (runId == null) {
                runId = event.get("run-id").asString();
            }
            assertEquals(runId, event.get("run-id").asString(), "the same run id on every line: " + line);
            events.add(event);
        }
        assertTrue(runId.startsWith("json-") || runId.startsWith("text-"), runId);
        return events;
    }

    private static JsonNode only(List<JsonNode> events, String name) {
        List<JsonNode> matching = events.stream().filter(e -> e.get("event").asString().equals(name)).toList();
        assertEquals(1, matching.size(), name + ": " + events);
        return matching.getFirst();
    }
}

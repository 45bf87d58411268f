package io.sluice.app.report;

import io.sluice.app.CliRun;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --summary-json and --junit-xml from real runs: valid against the published schema and the JUnit XSD. */
class RunReportsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static TestPipeline pipeline;

    @TempDir
    Path dir;

    @BeforeAll
    static void databases() throws Exception {
        pipeline = TestPipeline.create("reports");
    }

    @Test
    void aSuccessfulRunWritesASummaryAndAJunitReport() throws Exception {
        Path spec = pipeline.spec(dir, "reports-ok", "items");
        Files.writeString(spec, Files.readString(spec).replace("    load-mode: truncate",
                "    load-mode: truncate\n    verify: count"));
        Path summary = dir.resolve("out/summary.json");
        Path junit = dir.resolve("out/junit.xml");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "reports-1", "--summary-json", summary.toString(),
                "--junit-xml", junit.toString());

        assertEquals(0, run.exitCode(), run.all());
        String text = Files.readString(summary);
        assertEquals(List.of(), Validators.summaryErrors(text), text);
        JsonNode json = JSON.readTree(text);
        assertEquals(1, json.get("summary-version").asInt());
        assertEquals("reports-1", json.get("run-id").asString());
        assertEquals("reports-ok", json.get("spec").get("name").asString());
        assertEquals(sha256(spec), json.get("spec").get("checksum").asString());
        assertEquals("done", json.get("state").asString());
        assertEquals(0, json.get("exit-code").asInt());
        assertTrue(json.get("error").isNull(), text);
        JsonNode stream = json.get("streams").get(0);
        assertEquals("items", stream.get("name").asString());
        assertEquals(TestPipeline.ROWS, stream.get("rows").asLong());
        assertEquals(TestPipeline.ROWS, json.get("rows").asLong());
        assertTrue(stream.get("bytes").asLong() > 0, text);
        assertTrue(stream.get("rows-per-second").asDouble() > 0, text);
        assertEquals(stream.get("partitions").get("planned").asInt(), stream.get("partitions").get("done").asInt());
        assertEquals(0, stream.get("partitions").get("failed").asInt());
        JsonNode verification = stream.get("verification");
        assertTrue(verification.get("rows-read-equals-rows-written").asBoolean(), text);
        assertEquals("count", verification.get("mode").asString(), text);
        assertEquals("passed", verification.get("status").asString(), text);
        assertEquals(0, verification.get("mismatches").size(), text);
        assertEquals(stream.get("partitions").get("done").asInt(), stream.get("partition-reports").size());

        String xml = Files.readString(junit);
        Validators.validateJunit(xml);
        Element suite = parse(xml).getDocumentElement();
        assertEquals("sluice.reports-ok", suite.getAttribute("name"));
        assertEquals("1", suite.getAttribute("tests"));
        assertEquals("0", suite.getAttribute("failures"));
        NodeList cases = suite.getElementsByTagName("testcase");
        assertEquals("items", ((Element) cases.item(0)).getAttribute("name"));
        assertEquals(0, suite.getElementsByTagName("failure").getLength());
    }

    @Test
    void aFailedRunStillWritesBothWithTheErrorAndItsFix() throws Exception {
        Path spec = pipeline.spec(dir, "reports-fail", "narrow");
        Path summary = dir.resolve("summary.json");
        Path junit = dir.resolve("junit.xml");
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", summary.toString(), "--junit-xml",
                junit.toString());

        assertEquals(1, run.exitCode(), run.all());
        String text = Files.readString(summary);
        assertEquals(List.of(), Validators.summaryErrors(text), text);
        JsonNode json = JSON.readTree(text);
        assertEquals("failed", json.get("state").asString());
        assertEquals(1, json.get("exit-code").asInt());
        assertTrue(json.get("run-id").asString().matches("\\d{8}-\\d{6}-[0-9a-f]{4}"), "the generated id: " + text);
        JsonNode error = json.get("error");
        assertEquals("data", error.get("kind").asString(), text);
        assertFalse(error.get("code").asString().isBlank(), text);
        assertTrue(error.get("message").asString().contains("stream 'items'"), text);
        JsonNode stream = json.get("streams").get(0);
        assertEquals("failed", stream.get("state").asString());
        assertTrue(stream.get("partitions").get("failed").asInt() >= 1, text);
        assertEquals(error.get("code").asString(), stream.get("error").get("code").asString());

        String xml = Files.readString(junit);
        Validators.validateJunit(xml);
        Element suite = parse(xml).getDocumentElement();
        assertEquals("1", suite.getAttribute("failures"));
        Element failure = (Element) suite.getElementsByTagName("failure").item(0);
        assertEquals(error.get("code").asString(), failure.getAttribute("type"));
        assertTrue(failure.getTextContent().contains("stream 'items'"), xml);
    }

    @Test
    void anInvalidSpecWritesAMinimalSummaryWithExit3() throws Exception {
        Path spec = dir.resolve("broken.yaml");
        Files.writeString(spec, Files.readString(pipeline.spec(dir, "reports-bad", "items"))
                .replace("degree: 2", "degre: 2"));
        Path summary = dir.resolve("summary.json");
        Path junit = dir.resolve("junit.xml");
        CliRun run = CliRun.of("run", spec.toString(), "--run-id", "bad-1", "--summary-json", summary.toString(),
                "--junit-xml", junit.toString());

        assertEquals(3, run.exitCode(), run.all());
        String text = Files.readString(summary);
        assertEquals(List.of(), Validators.summaryErrors(text), text);
        JsonNode json = JSON.readTree(text);
        assertEquals(3, json.get("exit-code").asInt());
        assertEquals("bad-1", json.get("run-id").asString());
        assertTrue(json.get("spec").get("name").isNull(), text);
        assertEquals(sha256(spec), json.get("spec").get("checksum").asString());
        assertEquals(0, json.get("streams").size());
        assertEquals("SPEC000", json.get("error").get("code").asString());
        assertEquals("invalid-spec", json.get("error").get("kind").asString());
        assertTrue(json.get("error").get("fix").asString().contains("sluice lint"), text);

        String xml = Files.readString(junit);
        Validators.validateJunit(xml);
        Element failure = (Element) parse(xml).getElementsByTagName("failure").item(0);
        assertEquals("SPEC000", failure.getAttribute("type"));
        assertEquals("spec", ((Element) failure.getParentNode()).getAttribute("name"));
    }

    @Test
    void aPreflightFailureWritesTheSummaryWithExit4() throws Exception {
        Path spec = pipeline.spec(dir, "reports-preflight", "no_such_table");
        Path summary = dir.resolve("summary.json");
        CliRun run = CliRun.of("run", spec.toString(), "--summary-json", summary.toString());

        assertEquals(4, run.exitCode(), run.all());
        String text = Files.readString(summary);
        assertEquals(List.of(), Validators.summaryErrors(text), text);
        JsonNode json = JSON.readTree(text);
        assertEquals(4, json.get("exit-code").asInt());
        assertEquals("preflight", json.get("error").get("kind").asString());
        assertTrue(json.get("error").get("message").asString().contains("no_such_table"), text);
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }
}

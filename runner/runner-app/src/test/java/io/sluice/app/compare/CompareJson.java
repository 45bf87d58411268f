package io.sluice.app.compare;

import io.sluice.app.CliRun;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code sluice compare --format json} as the compare tests read it. */
final class CompareJson {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private CompareJson() {
    }

    /** The first stream of {@code sluice compare SPEC --format json}, which must exit with {@code exitCode}. */
    static JsonNode firstStream(Path spec, int exitCode) throws Exception {
        CliRun run = CliRun.of("compare", spec.toString(), "--format", "json");
        assertEquals(exitCode, run.exitCode(), run.all());
        return JSON.readTree(run.out()).get("streams").get(0);
    }

    /** Each listed difference as {@code kind key [columns]}, sorted (partitions are compared in any order). */
    static List<String> listed(JsonNode stream) {
        List<String> out = new ArrayList<>();
        for (JsonNode d : stream.get("differences")) {
            List<String> key = new ArrayList<>();
            d.get("key").properties().forEach(e -> key.add(e.getKey() + "=" + e.getValue().asString()));
            List<String> columns = new ArrayList<>();
            d.get("columns").forEach(c -> columns.add(c.asString()));
            out.add(d.get("kind").asString() + " " + String.join(", ", key) + " " + columns);
        }
        Collections.sort(out);
        return out;
    }
}

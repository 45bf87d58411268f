package io.sluice.app.lineage;

import io.sluice.app.report.SluiceVersion;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.LineageDataset;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * OpenLineage run events (spec 2-0-2) as JSON: the run, its job, the datasets, and the facets Sluice knows (parent,
 * processing engine, job type, error message, schema, output statistics). Every string passes the redactor.
 */
final class LineageEvents {
    static final String SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";
    private static final String FACETS = "https://openlineage.io/spec/facets/";
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final String producer = "urn:sluice:" + SluiceVersion.get().replace(' ', '-');
    private final UnaryOperator<String> redact;

    LineageEvents(UnaryOperator<String> redact) {
        this.redact = requireNonNull(redact, "redact is null");
    }

    /** A run id OpenLineage accepts (a UUID), the same for the same job and Sluice run id: a resume continues it. */
    static UUID runUuid(String job, String runId) {
        return UUID.nameUUIDFromBytes(("sluice:" + job + ":" + runId).getBytes(StandardCharsets.UTF_8));
    }

    /** A dataset with, when given, its schema and what the run wrote into it. */
    record Dataset(LineageDataset name, List<Column> columns, Optional<long[]> rowsAndBytes) {
    }

    record Job(String namespace, String name, String jobType) {
    }

    record ParentRun(String namespace, String job, String runId) {
    }

    String event(String eventType, Instant time, Job job, UUID runId, Optional<ParentRun> parent,
                 Optional<String> error, List<Dataset> inputs, List<Dataset> outputs) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("eventType", eventType);
        root.put("eventTime", time.toString());
        root.put("producer", producer);
        root.put("schemaURL", SPEC);
        ObjectNode run = root.putObject("run");
        run.put("runId", runId.toString());
        ObjectNode runFacets = run.putObject("facets");
        parent.ifPresent(p -> {
            ObjectNode facet = facet(runFacets, "parent", "1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet");
            facet.putObject("run").put("runId", p.runId());
            ObjectNode parentJob = facet.putObject("job");
            parentJob.put("namespace", redact.apply(p.namespace()));
            parentJob.put("name", redact.apply(p.job()));
        });
        ObjectNode engine = facet(runFacets, "processing_engine",
                "1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet");
        engine.put("version", SluiceVersion.get());
        engine.put("name", "Sluice");
        error.ifPresent(message -> {
            ObjectNode facet = facet(runFacets, "errorMessage",
                    "1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet");
            facet.put("message", redact.apply(message));
            facet.put("programmingLanguage", "JAVA");
        });
        ObjectNode jobNode = root.putObject("job");
        jobNode.put("namespace", redact.apply(job.namespace()));
        jobNode.put("name", redact.apply(job.name()));
        ObjectNode jobType = facet(jobNode.putObject("facets"), "jobType",
                "2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet");
        jobType.put("processingType", "BATCH");
        jobType.put("integration", "SLUICE");
        jobType.put("jobType", job.jobType());
        datasets(root.putArray("inputs"), inputs, false);
        datasets(root.putArray("outputs"), outputs, true);
        return MAPPER.writeValueAsString(root);
    }

    private void datasets(ArrayNode array, List<Dataset> datasets, boolean output) {
        for (Dataset dataset : datasets) {
            ObjectNode node = array.addObject();
            node.put("namespace", redact.apply(dataset.name().namespace()));
            node.put("name", redact.apply(dataset.name().name()));
            ObjectNode facets = node.putObject("facets");
            if (!dataset.columns().isEmpty()) {
                ArrayNode fields = facet(facets, "schema", "1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet")
                        .putArray("fields");
                int position = 1;
                for (Column column : dataset.columns()) {
                    ObjectNode field = fields.addObject();
                    field.put("name", redact.apply(column.name()));
                    field.put("type", redact.apply(column.typeName()));
                    field.put("ordinal_position", position++);
                }
            }
            if (output && dataset.rowsAndBytes().isPresent()) {
                ObjectNode statistics = facet(node.putObject("outputFacets"), "outputStatistics",
                        "1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet");
                statistics.put("rowCount", dataset.rowsAndBytes().get()[0]);
                statistics.put("size", dataset.rowsAndBytes().get()[1]);
            }
        }
    }

    private ObjectNode facet(ObjectNode facets, String name, String schema) {
        ObjectNode facet = facets.putObject(name);
        facet.put("_producer", producer);
        facet.put("_schemaURL", FACETS + schema);
        return facet;
    }
}

package io.sluice.app.output;

import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.spec.StreamHooks;
import io.sluice.spi.data.ColumnPair;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Locale;

/** {@code sluice plan --format json}: the same content as {@link PlanText} for machines. */
public final class PlanJson {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private PlanJson() {
    }

    public static String render(PipelinePlan plan) {
        return render(plan, List.of());
    }

    /** With the groups of streams that read one snapshot together ({@link SnapshotSharing}). */
    public static String render(PipelinePlan plan, List<SnapshotSharing.Group> shared) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("plan-version", 1);
        root.put("spec", plan.spec().name());
        root.put("spec-file", plan.spec().file().toString());
        root.put("spec-checksum", plan.spec().checksum());
        ArrayNode snapshots = root.putArray("shared-snapshots");
        for (SnapshotSharing.Group group : shared) {
            ObjectNode g = snapshots.addObject();
            g.put("connection", group.connection());
            ArrayNode names = g.putArray("streams");
            group.streams().forEach(names::add);
        }
        ArrayNode streams = root.putArray("streams");
        for (StreamPlan stream : plan.streams()) {
            ObjectNode s = streams.addObject();
            s.put("name", stream.name());
            s.put("source", stream.source());
            s.put("target", stream.targetTable());
            s.put("method", stream.spec().distribution().method().specName());
            stream.spec().distribution().key().ifPresent(k -> s.put("key", k));
            s.put("degree", stream.degree());
            s.put("load-mode", stream.spec().load().spelled());
            s.put("snapshot", stream.snapshotMode());
            stream.window().ifPresent(w -> {
                ObjectNode window = s.putObject("incremental");
                window.put("cursor", w.cursor());
                window.put("after", w.after().orElse(null));
                window.put("up-to", w.upTo());
            });
            s.put("target-transactions", stream.oneTransaction() ? "stream" : "partition");
            s.put("verify", stream.spec().verify().name().toLowerCase(Locale.ROOT));
            stream.verification().ifPresent(v -> s.put("verify-when", v));
            s.put("copy-format", stream.projection().format().name().toLowerCase(Locale.ROOT));
            ArrayNode notes = s.putArray("notes");
            stream.projection().notes().forEach(notes::add);
            stream.load().notes().forEach(notes::add);
            s.put("estimated-rows", stream.estimatedRows());
            s.put("estimated-bytes", stream.estimatedBytes());
            s.put("target-statement", stream.writeStatement());
            ArrayNode loadSteps = s.putArray("load-statements");
            stream.load().statements().forEach(loadSteps::add);
            ArrayNode before = s.putArray("before-hook");
            StreamHooks.forTable(stream.spec().hooks().before(), stream.targetTable())
                    .forEach(before::add);
            ArrayNode after = s.putArray("after-hook");
            StreamHooks.forTable(stream.spec().hooks().after(), stream.targetTable())
                    .forEach(after::add);
            ArrayNode columns = s.putArray("columns");
            List<ColumnPair> pairs = stream.columns();
            for (int i = 0; i < pairs.size(); i++) {
                ObjectNode c = columns.addObject();
                c.put("source", pairs.get(i).source().name());
                c.put("source-type", pairs.get(i).source().typeName());
                c.put("read-as", stream.projection().expressions().get(i));
                c.put("target", pairs.get(i).target().name());
                c.put("target-type", pairs.get(i).target().typeName());
            }
            ArrayNode leftOut = s.putArray("left-out-columns");
            for (ColumnPair pair : stream.leftOutColumns()) {
                ObjectNode c = leftOut.addObject();
                c.put("source", pair.source().name());
                c.put("source-generated", pair.source().generation().name());
                c.put("target", pair.target().name());
                c.put("target-generated", pair.target().generation().name());
            }
            ArrayNode partitions = s.putArray("partitions");
            for (PartitionPlan partition : stream.partitions()) {
                ObjectNode p = partitions.addObject();
                p.put("index", partition.index() + 1);
                p.put("id", partition.id());
                p.put("predicate", partition.predicate());
                p.put("estimated-rows", partition.estimatedRows());
                p.put("estimated-bytes", partition.estimatedBytes());
                p.put("source-statement", partition.readStatement());
            }
        }
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }
}

package io.sluice.app.output;

import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.plan.StreamPlan;
import io.sluice.spi.ColumnPair;

import java.io.PrintWriter;
import java.util.List;

/** {@code sluice plan} for people: per stream the method, mapping, statements and partitions. */
public final class PlanText {
    private PlanText() {
    }

    public static void print(PipelinePlan plan, PrintWriter out) {
        print(plan, List.of(), out);
    }

    /** The first {@code shown} names, and how many more. */
    private static String names(List<String> names, int shown) {
        return names.size() <= shown ? String.join(", ", names)
                : String.join(", ", names.subList(0, shown)) + " and " + (names.size() - shown) + " more";
    }

    /** With the groups of streams that read one snapshot together ({@link SnapshotSharing}). */
    public static void print(PipelinePlan plan, List<SnapshotSharing.Group> shared, PrintWriter out) {
        out.println("spec " + plan.spec().name() + " (" + plan.spec().file() + ", sha256 "
                + plan.spec().checksum().substring(0, 12) + ")");
        java.util.Map<String, SnapshotSharing.Group> groupOf = new java.util.HashMap<>();
        for (SnapshotSharing.Group group : shared) {
            group.streams().forEach(s -> groupOf.put(s, group));
            out.println("one snapshot: the " + group.streams().size() + " streams reading connection '"
                    + group.connection() + "' read one moment of it, exported when the run starts and held until it "
                    + "ends (" + names(group.streams(), 10) + ")");
        }
        for (StreamPlan stream : plan.streams()) {
            out.println();
            out.println("stream " + stream.name() + ": " + stream.source() + " -> "
                    + stream.targetTable());
            out.println("  method:      " + stream.spec().distribution().method().specName()
                    + stream.spec().distribution().key().map(k -> " on " + k).orElse("")
                    + ", degree " + stream.degree() + ", " + stream.partitions().size() + " partition(s)");
            out.println("  load mode:   " + stream.spec().load().spelled());
            SnapshotSharing.Group group = groupOf.get(stream.name());
            out.println("  snapshot:    " + (group == null ? stream.snapshotMode() : "snapshot, shared with the "
                    + (group.streams().size() - 1) + " other stream(s) reading connection '" + group.connection()
                    + "'"));
            stream.window().ifPresent(w -> out.println("  incremental: rows with " + w.cursor()
                    + w.after().map(a -> " > " + a + " and").orElse("") + " <= " + w.upTo()
                    + (w.after().isEmpty() ? " or NULL (no earlier run done: from the start)"
                    : " (a row whose " + w.cursor() + " is NULL is read only by a first run or --full-refresh)")));
            out.println("  target txns: " + stream.transactions());
            out.println("  copy format: " + stream.projection().format().name().toLowerCase(java.util.Locale.ROOT));
            for (String note : stream.projection().notes()) {
                out.println("  note:        " + note);
            }
            for (String note : stream.load().notes()) {
                out.println("  note:        " + note);
            }
            out.println("  estimate:    " + (stream.estimatedRows() > 0 ? Numbers.count(stream.estimatedRows())
                    + " rows, " + Numbers.megabytes(stream.estimatedBytes()) : "unknown"));
            out.println("  columns (" + stream.spec().columnMapping().name().toLowerCase(java.util.Locale.ROOT)
                    + "):");
            List<ColumnPair> pairs = stream.columns();
            List<String> expressions = stream.projection().expressions();
            for (int i = 0; i < pairs.size(); i++) {
                ColumnPair pair = pairs.get(i);
                out.println("    " + expressions.get(i) + "  ->  \"" + pair.target().name() + "\" "
                        + pair.target().typeName() + (pair.source().typeName().equals(pair.target().typeName())
                        ? "" : "  (source " + pair.source().typeName() + ")"));
            }
            for (ColumnPair pair : stream.leftOutColumns()) {
                out.println("    \"" + pair.source().name() + "\" GENERATED " + pair.source().generation()
                        + "  ->  \"" + pair.target().name() + "\" GENERATED " + pair.target().generation()
                        + "  (left out: generated on both sides, the target computes it)");
            }
            out.println("  target runs: " + stream.writeStatement());
            hooks(out, "before the load, once per run", stream.spec().hooks().before(), stream);
            if (!stream.load().statements().isEmpty()) {
                out.println("  load steps (before the first partition and after the last, in order):");
                for (String statement : stream.load().statements()) {
                    out.println("    " + statement);
                }
            }
            hooks(out, "once the stream is done and verified, once per run", stream.spec().hooks().after(),
                    stream);
            out.println("  partitions (run order, largest first):");
            for (PartitionPlan partition : stream.partitions()) {
                out.println("    " + (partition.index() + 1) + ". " + partition.predicate()
                        + estimate(partition));
                out.println("       source runs: " + partition.readStatement());
            }
        }
        out.flush();
    }

    private static String estimate(PartitionPlan partition) {
        long rows = partition.estimatedRows();
        long bytes = partition.estimatedBytes();
        if (rows < 0) {
            return "";
        }
        return "  (~" + Numbers.count(rows) + " rows" + (bytes >= 0 ? ", ~" + Numbers.megabytes(bytes) : "") + ")";
    }

    private static void hooks(PrintWriter out, String when, List<String> statements, StreamPlan stream) {
        if (statements.isEmpty()) {
            return;
        }
        out.println("  target hook (" + when + ", in one transaction):");
        for (String statement : io.sluice.core.spec.StreamHooks.forTable(statements, stream.targetTable())) {
            out.println("    " + statement);
        }
    }
}

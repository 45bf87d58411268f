package io.sluice.app.output;

import io.sluice.core.plan.PartitionPlan;
import io.sluice.core.plan.PipelinePlan;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.service.RunStatus;
import io.sluice.core.spec.StreamHooks;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.TablePlaceholders;
import io.sluice.spi.ledger.ChangeFeedRecord;

import java.io.PrintWriter;
import java.util.List;

/** {@code sluice plan} for people: per stream the method, mapping, statements and partitions. */
public final class PlanText {
    private PlanText() {
    }

    public static void print(PipelinePlan plan, PrintWriter out) {
        print(plan, List.of(), out);
    }

    private static String feedState(List<RunStatus.FeedStatus> feeds, String feed) {
        RunStatus.FeedStatus status = feeds.stream().filter(f -> f.feed().equals(feed))
                .findFirst().orElse(null);
        if (status == null || status.record().isEmpty()) {
            return "the run creates the slot (and its publication when missing), copies in the slot's snapshot, "
                    + "then applies the changes since; later runs apply the changes only";
        }
        ChangeFeedRecord record = status.record().get();
        String text = record.state() == ChangeFeedRecord.State.APPLYING
                ? "copied; the run applies the changes since " + record.position()
                : "a copy begun by run " + record.runId() + " is unfinished: --resume finishes it, a fresh run "
                + "copies anew from a new slot";
        if (status.state().isPresent() && status.state().get().retainsTooMuch()) {
            text += String.format(java.util.Locale.ROOT, "\nwarning: slot %s keeps %.1f MB of WAL on the source, "
                    + "more than its retained-warning-mb: run the spec (or run --follow) to apply and confirm the "
                    + "changes, which frees it", feed, status.state().get().retainedBytes() / 1_000_000.0);
        }
        return text;
    }

    /** What keeps WAL for a feed no stream follows any more, and the statements that end it. */
    public static String orphanedSlot(String specName, String feed) {
        return "its slot keeps WAL on the source until dropped: SELECT pg_drop_replication_slot("
                + TablePlaceholders.literal(feed) + ") on the source, then DELETE FROM "
                + "<ledger-schema>.change_feeds WHERE spec_name = " + TablePlaceholders.literal(specName)
                + " AND feed = " + TablePlaceholders.literal(feed) + " on the target";
    }

    /** The first {@code shown} names, and how many more. */
    private static String names(List<String> names, int shown) {
        return names.size() <= shown ? String.join(", ", names)
                : String.join(", ", names.subList(0, shown)) + " and " + (names.size() - shown) + " more";
    }

    /** With the groups of streams that read one snapshot together ({@link SnapshotSharing}). */
    public static void print(PipelinePlan plan, List<SnapshotSharing.Group> shared, PrintWriter out) {
        print(plan, shared, List.of(), out);
    }

    /** With the spec's change feeds too. */
    public static void print(PipelinePlan plan, List<SnapshotSharing.Group> shared,
                             List<RunStatus.FeedStatus> feeds, PrintWriter out) {
        out.println("spec " + plan.spec().name() + " (" + plan.spec().file() + ", sha256 "
                + plan.spec().checksum().substring(0, 12) + ")");
        java.util.Map<String, SnapshotSharing.Group> groupOf = new java.util.HashMap<>();
        for (SnapshotSharing.Group group : shared) {
            group.streams().forEach(s -> groupOf.put(s, group));
            if (group.feed().isPresent()) {
                out.println("changes: slot " + group.feed().get() + " follows the " + group.streams().size()
                        + " stream(s) reading connection '" + group.connection() + "' (" + names(group.streams(), 10)
                        + "): " + feedState(feeds, group.feed().get()));
                continue;
            }
            out.println("one snapshot: the " + group.streams().size() + " streams reading connection '"
                    + group.connection() + "' read one moment of it, exported when the run starts and held until it "
                    + "ends (" + names(group.streams(), 10) + ")");
        }
        for (RunStatus.FeedStatus feed : feeds) {
            if (feed.streams().isEmpty()) {
                out.println("warning: change feed " + feed.feed() + " of the ledger is followed by no stream of the "
                        + "spec any more; " + orphanedSlot(plan.spec().name(), feed.feed()));
            }
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
            out.println("  snapshot:    " + (group == null ? stream.snapshotMode() : group.feed().isPresent()
                    ? "the snapshot slot " + group.feed().get() + " exports when it is created (a run that only "
                    + "applies changes copies nothing)" : "snapshot, shared with the "
                    + (group.streams().size() - 1) + " other stream(s) reading connection '" + group.connection()
                    + "'"));
            stream.window().ifPresent(w -> out.println("  incremental: rows with " + w.cursor()
                    + w.after().map(a -> " > " + a + " and").orElse("") + " <= " + w.upTo()
                    + (w.after().isEmpty() ? " or NULL (no earlier run done: from the start)"
                    : " (a row whose " + w.cursor() + " is NULL is read only by a first run or --full-refresh)")));
            out.println("  target txns: " + stream.transactions());
            stream.verification().ifPresent(v -> out.println("  verify:      " + v));
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
        for (String statement : StreamHooks.forTable(statements, stream.targetTable())) {
            out.println("    " + statement);
        }
    }
}

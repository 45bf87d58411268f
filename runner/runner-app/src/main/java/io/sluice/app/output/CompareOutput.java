package io.sluice.app.output;

import io.sluice.core.compare.CompareReport;
import io.sluice.core.compare.Difference;
import io.sluice.core.compare.StreamCompareReport;
import io.sluice.core.diag.PrintableText;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** What {@code sluice compare} prints: lines for people, or one JSON document for programs. */
public final class CompareOutput {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private CompareOutput() {
    }

    /**
     * A change feed that compared streams follow, as it was when the compare began: its target holds the source up to
     * what it applied, so rows changed at the source since show as differences until a run applies them.
     *
     * @param applied     the position the ledger says changes were applied up to; empty while the copy runs
     * @param behindBytes how far the source's log was ahead of what the feed confirmed; empty when the feed is gone
     */
    public record Following(String feed, List<String> streams, Optional<String> applied, OptionalLong behindBytes) {
        public Following {
            java.util.Objects.requireNonNull(feed, "feed is null");
            streams = List.copyOf(streams);
            java.util.Objects.requireNonNull(applied, "applied is null");
            java.util.Objects.requireNonNull(behindBytes, "behindBytes is null");
        }

        String line() {
            return "changes " + feed + " (" + String.join(", ", streams) + "): " + applied.map(a -> "applied up to "
                    + a).orElse("not applying yet (its copy is not done)") + "; " + (behindBytes.isPresent()
                    ? String.format(Locale.ROOT, "the source's log was %,d bytes ahead of it when the compare began: "
                    + "rows changed since it applied show as differences until a run applies them", behindBytes
                    .getAsLong()) : "its slot is gone from the source");
        }
    }

    public static String text(CompareReport report) {
        return text(report, List.of());
    }

    public static String text(CompareReport report, List<Following> following) {
        StringBuilder out = new StringBuilder();
        following.forEach(f -> out.append(f.line()).append('\n'));
        for (StreamCompareReport s : report.streams()) {
            out.append("stream ").append(s.stream()).append(": ").append(s.source()).append(" -> ").append(s.target())
                    .append('\n');
            out.append("  rows:        source ").append(Numbers.count(s.sourceRows())).append(", target ")
                    .append(Numbers.count(s.targetRows())).append('\n');
            out.append("  compared:    ").append(s.method()).append('\n');
            if (s.equal()) {
                out.append("  result:      equal\n");
                continue;
            }
            if (s.unlisted().isPresent()) {
                out.append("  result:      different (").append(s.unlisted().get()).append(")\n");
                continue;
            }
            out.append("  result:      ").append(Numbers.count(s.differences())).append(" row(s) differ")
                    .append(s.listed().size() < s.differences() ? " (the first " + s.listed().size() + " listed)"
                            : "").append('\n');
            for (Difference d : s.listed()) {
                out.append("    ").append(d.kind().name().toLowerCase(Locale.ROOT)).append(' ').append(key(d.key()))
                        .append(d.columns().isEmpty() ? "" : " columns " + String.join(", ", d.columns()))
                        .append('\n');
            }
        }
        long different = report.streams().stream().filter(s -> !s.equal()).count();
        out.append(different == 0 ? "equal: " + report.streams().size() + " stream(s)"
                : "different: " + different + " of " + report.streams().size() + " stream(s) (exit 5)");
        return out.toString();
    }

    public static String json(CompareReport report) {
        return json(report, List.of());
    }

    public static String json(CompareReport report, List<Following> following) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("spec", report.spec());
        root.put("equal", report.equal());
        ArrayNode feeds = root.putArray("changeFeeds");
        for (Following f : following) {
            ObjectNode feed = feeds.addObject();
            feed.put("feed", f.feed());
            ArrayNode streams = feed.putArray("streams");
            f.streams().forEach(streams::add);
            feed.put("appliedUpTo", f.applied().orElse(null));
            if (f.behindBytes().isPresent()) {
                feed.put("behindBytes", f.behindBytes().getAsLong());
            } else {
                feed.putNull("behindBytes");
            }
        }
        ArrayNode streams = root.putArray("streams");
        for (StreamCompareReport s : report.streams()) {
            ObjectNode stream = streams.addObject();
            stream.put("stream", s.stream());
            stream.put("source", s.source());
            stream.put("target", s.target());
            stream.put("sourceRows", s.sourceRows());
            stream.put("targetRows", s.targetRows());
            stream.put("compared", s.method());
            stream.put("equal", s.equal());
            stream.put("differenceCount", s.differences());
            s.unlisted().ifPresent(u -> stream.put("unlisted", u));
            ArrayNode differences = stream.putArray("differences");
            for (Difference d : s.listed()) {
                ObjectNode difference = differences.addObject();
                ObjectNode key = difference.putObject("key");
                d.key().forEach(key::put);
                difference.put("kind", d.kind().name().toLowerCase(Locale.ROOT));
                ArrayNode columns = difference.putArray("columns");
                d.columns().forEach(columns::add);
            }
        }
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    private static String key(Map<String, String> key) {
        StringBuilder out = new StringBuilder();
        key.forEach((name, value) -> out.append(out.isEmpty() ? "" : ", ").append(name).append('=')
                .append(value == null ? "NULL" : PrintableText.name(value)));
        return out.toString();
    }
}

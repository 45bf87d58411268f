package io.sluice.core.ledger;

import io.sluice.core.spec.EndpointSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.Options;
import io.sluice.spi.write.LoadRequest;
import io.sluice.toolkit.Redactor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The parts of a stream that decide which rows go where, as canonical text kept in the ledger. A resume compares it
 * with the spec's current text: a change there could copy rows twice or miss some, so it is refused unless forced.
 * {@code degree} and {@code retry} are left out: changing them on resume is safe. So is {@code batch-size} where the
 * source does not split the stream's method by rows per partition: it is left out there, and ignored in a definition
 * recorded before it was.
 */
public final class StreamDefinition {
    private static final String ROWS_PER_PARTITION = "batch-size: ";

    private StreamDefinition() {
    }

    public static String of(StreamSpec stream, Redactor redactor) {
        requireNonNull(stream, "stream is null");
        requireNonNull(redactor, "redactor is null");
        List<String> lines = new ArrayList<>();
        endpoint(lines, "source", stream.source(), redactor);
        endpoint(lines, "target", stream.target(), redactor);
        lines.add("distribution.method: " + stream.distribution().method().specName());
        stream.distribution().key().ifPresent(k -> lines.add("distribution.key: " + redactor.redact(k)));
        stream.distribution().valuesQuery().ifPresent(q -> lines.add("distribution.values-query: "
                + redactor.redact(q)));
        if (stream.rowsPerPartitionPlanned()) {
            lines.add(ROWS_PER_PARTITION + stream.rowsPerPartition());
        }
        lines.add("load-mode: " + stream.load().spelled());
        // Only what differs from the defaults, so definitions recorded before these keys existed still compare equal.
        if (!stream.load().mergeKey().isEmpty()) {
            lines.add("merge-key: " + String.join(", ", stream.load().mergeKey()));
        }
        if (stream.load().onDuplicate() != LoadRequest.OnDuplicate.ERROR) {
            lines.add("on-duplicate: " + stream.load().onDuplicate().name().toLowerCase(Locale.ROOT));
        }
        if (stream.load().deleteMissing()) {
            lines.add("delete-missing: true");
        }
        if (stream.load().indexes() != LoadRequest.Indexes.KEEP) {
            lines.add("indexes: " + stream.load().indexes().name().toLowerCase(Locale.ROOT));
        }
        lines.add("column-mapping: " + stream.columnMapping().name().toLowerCase(Locale.ROOT));
        stream.columnRules().definition().forEach(rule -> lines.add(redactor.redact(rule)));
        stream.incremental().flatMap(i -> i.cursor()).ifPresent(c -> lines.add("incremental.cursor: "
                + redactor.redact(c)));
        if (stream.incremental().map(i -> i.newFiles()).orElse(false)) {
            lines.add("incremental.new-files: true");
        }
        if (stream.incremental().map(i -> i.newSnapshots()).orElse(false)) {
            lines.add("incremental.new-snapshots: true");
        }
        return String.join("\n", lines);
    }

    /**
     * The lines that differ, as {@code - old} / {@code + new}, for the refusal message. A recorded batch-size that the
     * current definition leaves out (as not changing the plan) is no difference.
     */
    public static List<String> difference(String recorded, String current) {
        List<String> after = List.of(current.split("\n"));
        boolean rowsPerPartitionLeftOut = after.stream().noneMatch(line -> line.startsWith(ROWS_PER_PARTITION));
        List<String> before = Stream.of(recorded.split("\n"))
                .filter(line -> !(rowsPerPartitionLeftOut && line.startsWith(ROWS_PER_PARTITION))).toList();
        List<String> diff = new ArrayList<>();
        before.stream().filter(line -> !after.contains(line)).forEach(line -> diff.add("- " + line));
        after.stream().filter(line -> !before.contains(line)).forEach(line -> diff.add("+ " + line));
        return diff;
    }

    private static void endpoint(List<String> lines, String side, EndpointSpec endpoint, Redactor redactor) {
        lines.add(side + ".connection: " + endpoint.connection());
        Options options = endpoint.options();
        for (Option<?> option : options.schema().options()) {
            if (options.isSet(option)) {
                String value = option.isSecret() ? Redactor.MASK : String.valueOf(options.get(option));
                lines.add(side + "." + option.key() + ": " + redactor.redact(value));
            }
        }
    }
}

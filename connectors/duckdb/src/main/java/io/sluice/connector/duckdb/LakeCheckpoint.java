package io.sluice.connector.duckdb;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The text a resumed run rebuilds a table's data-file partition from: the table, the pinned version and the files,
 * as values (the read's SQL is built again from them, never stored). One field per line (the files tab-separated),
 * {@code \}, tabs and line breaks escaped. Version 1 (one file per partition) still reads.
 */
final class LakeCheckpoint {
    private static final String HEADER = "duckdb-lake/2";
    private static final String HEADER_ONE_FILE = "duckdb-lake/1";

    private LakeCheckpoint() {
    }

    static String of(DuckDbPartition partition) {
        LakeTable.PinnedFiles files = partition.tableFiles().orElseThrow();
        LakeTable.Pin pin = files.pin();
        return String.join("\n", HEADER, pin.table().format().key, escape(pin.table().folder()),
                escape(pin.metadata().orElse("")), pin.version().isPresent() ? Long.toString(pin.version().getAsLong())
                        : "", escape(partition.id()), String.join("\t", files.files().stream()
                        .map(LakeCheckpoint::escape).toList()),
                Long.toString(partition.estimatedRows()), Long.toString(partition.estimatedBytes()));
    }

    /** The checkpoint's values; empty when the text is not a table checkpoint of this format. */
    static Optional<Restored> parse(String checkpoint) {
        String[] lines = checkpoint.split("\n", -1);
        if (lines.length != 9 || !(lines[0].equals(HEADER) || lines[0].equals(HEADER_ONE_FILE))) {
            return Optional.empty();
        }
        List<String> files = lines[0].equals(HEADER) ? Arrays.stream(lines[6].split("\t", -1))
                .map(LakeCheckpoint::unescape).toList() : List.of(unescape(lines[6]));
        try {
            LakeTable.Format format = LakeTable.Format.valueOf(lines[1].toUpperCase(Locale.ROOT));
            return Optional.of(new Restored(format, unescape(lines[2]), Optional.of(unescape(lines[3]))
                    .filter(m -> !m.isEmpty()), lines[4].isEmpty() ? OptionalLong.empty()
                    : OptionalLong.of(Long.parseLong(lines[4])), unescape(lines[5]), files,
                    Long.parseLong(lines[7]), Long.parseLong(lines[8])));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    record Restored(LakeTable.Format format, String folder, Optional<String> metadata, OptionalLong version,
                    String id, List<String> files, long rows, long bytes) {
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }

    private static String unescape(String value) {
        StringBuilder b = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                char next = value.charAt(++i);
                b.append(next == 'n' ? '\n' : next == 'r' ? '\r' : next == 't' ? '\t' : next);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}

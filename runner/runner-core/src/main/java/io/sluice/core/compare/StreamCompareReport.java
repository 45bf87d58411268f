package io.sluice.core.compare;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What {@code sluice compare} found for one stream (one table of a pattern).
 *
 * @param method      how it compared, for people (e.g. {@code 3 partitions by digest, 1 listed row by row})
 * @param differences how many rows differ, exact (each extra or missing copy of a row counted)
 * @param listed      the first differences, as many as asked for
 * @param unlisted    why the differing rows could not be listed (a connector that cannot list them); empty when
 *                    they were
 */
public record StreamCompareReport(String stream, String source, String target, long sourceRows, long targetRows,
                                  String method, long differences, List<Difference> listed,
                                  Optional<String> unlisted) {
    public StreamCompareReport {
        requireNonNull(stream, "stream is null");
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(method, "method is null");
        listed = List.copyOf(requireNonNull(listed, "listed is null"));
        requireNonNull(unlisted, "unlisted is null");
    }

    public boolean equal() {
        return differences == 0 && unlisted.isEmpty();
    }
}

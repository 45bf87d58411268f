package io.sluice.core.compare;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** What {@code sluice compare} found, stream by stream, in spec order. */
public record CompareReport(String spec, List<StreamCompareReport> streams) {
    public CompareReport {
        requireNonNull(spec, "spec is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
    }

    public boolean equal() {
        return streams.stream().allMatch(StreamCompareReport::equal);
    }
}

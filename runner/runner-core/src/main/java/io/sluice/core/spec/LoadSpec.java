package io.sluice.core.spec;

import io.sluice.spi.LoadMode;
import io.sluice.spi.LoadRequest;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The keys that go with a stream's {@code load-mode}, as written (defaults applied): {@code merge-key},
 * {@code on-duplicate}, {@code delete-missing}, {@code keep-previous}, {@code indexes}, {@code reset-sequences}.
 *
 * @param resetSequences empty: the target's default
 */
public record LoadSpec(List<String> mergeKey, LoadRequest.OnDuplicate onDuplicate, boolean deleteMissing,
                       boolean keepPrevious, LoadRequest.Indexes indexes, Optional<Boolean> resetSequences) {
    public static final LoadSpec DEFAULT = new LoadSpec(List.of(), LoadRequest.OnDuplicate.ERROR, false, false,
            LoadRequest.Indexes.KEEP, Optional.empty());

    public LoadSpec {
        mergeKey = List.copyOf(requireNonNull(mergeKey, "mergeKey is null"));
        requireNonNull(onDuplicate, "onDuplicate is null");
        requireNonNull(indexes, "indexes is null");
        requireNonNull(resetSequences, "resetSequences is null");
    }

    /** What the target is asked, for a load in {@code mode} whose index builds may run {@code degree} at once. */
    public LoadRequest request(LoadMode mode, int degree) {
        return new LoadRequest(mode, mergeKey, onDuplicate, deleteMissing, keepPrevious, indexes, resetSequences,
                Math.max(1, degree));
    }
}

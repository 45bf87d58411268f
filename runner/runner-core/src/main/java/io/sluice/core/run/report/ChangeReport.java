package io.sluice.core.run.report;

import io.sluice.core.SluiceException;
import io.sluice.spi.changes.ChangeApplier;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What a run did with one change feed: the changes applied after (or instead of) the copy.
 *
 * @param streams      the streams whose tables the feed carries
 * @param from         the position the run started applying at (the ledger's)
 * @param to           the position the ledger holds now
 * @param transactions source transactions applied
 * @param bytesBehind  how far the source was ahead when the run stopped applying (0: caught up)
 * @param sequencesReset after a cut-over ({@code --follow --until-lag 0}): target sequences set past the source's
 */
public record ChangeReport(String feed, List<String> streams, String from, String to, long transactions,
                           ChangeApplier.Applied applied, Duration duration, long bytesBehind,
                           Optional<SluiceException> error, int sequencesReset) {
    public ChangeReport {
        requireNonNull(feed, "feed is null");
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
        requireNonNull(from, "from is null");
        requireNonNull(to, "to is null");
        requireNonNull(applied, "applied is null");
        requireNonNull(duration, "duration is null");
        requireNonNull(error, "error is null");
    }
}

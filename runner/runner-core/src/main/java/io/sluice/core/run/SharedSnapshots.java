package io.sluice.core.run;

import io.sluice.core.SluiceException;
import io.sluice.core.plan.BoundPlan;
import io.sluice.core.plan.SnapshotSharing;
import io.sluice.core.plan.StreamPlan;
import io.sluice.core.run.changes.ChangeFeeds;
import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.SharedSnapshot;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SnapshotGroup;
import io.sluice.spi.read.Source;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The snapshots a run's stream groups read ({@link SnapshotSharing}), exported before the first stream starts and
 * held until the run ends. A group whose snapshot cannot be exported (a lock that does not come, a standby) fails its
 * streams with that error before they write anything, rather than letting them read different moments.
 */
final class SharedSnapshots implements AutoCloseable {
    private final Map<String, SharedSnapshot> byStream = new HashMap<>();
    private final Map<String, SluiceException> failed = new HashMap<>();
    private final List<SharedSnapshot> opened = new ArrayList<>();

    static SharedSnapshots export(BoundPlan bound) {
        return export(bound, null);
    }

    /**
     * With {@code feeds}: a group whose change feed this run starts reads the snapshot its new slot exported (and the
     * feed's start is recorded before anything is copied); a group whose feed only applies changes copies nothing.
     */
    static SharedSnapshots export(BoundPlan bound, ChangeFeeds feeds) {
        requireNonNull(bound, "bound is null");
        SharedSnapshots snapshots = new SharedSnapshots();
        Map<String, StreamPlan> streams = new HashMap<>();
        bound.plan().streams().forEach(s -> streams.put(s.name(), s));
        for (SnapshotSharing.Group group : SnapshotSharing.of(bound)) {
            List<Source> sources = group.streams().stream().map(name -> bound.binding(streams.get(name)).source())
                    .toList();
            StreamPlan first = streams.get(group.streams().getFirst());
            Optional<ChangeFeeds.Feed> feed = feeds == null ? Optional.empty() : feeds.of(first);
            if (feeds != null && feeds.failure(first).isPresent()) {
                continue; // failed before
            }
            boolean joining = feed.isPresent() && feed.get().mode() == ChangeFeeds.Mode.CHANGES_ONLY;
            // Copied by earlier runs, but for the tables new to the feed: those only, in a snapshot of their own.
            List<String> copied = joining ? group.streams().stream().filter(feed.get().joining()::contains).toList()
                    : group.streams();
            if (copied.isEmpty()) {
                continue;
            }
            if (joining) {
                sources = copied.stream().map(name -> bound.binding(streams.get(name)).source()).toList();
            }
            try {
                // A connector is handed its own objects (the roles its sources gave), never a source seen through
                // columns: rules.
                List<SnapshotGroup> own = sources.stream().map(s -> s.snapshotGroup().orElseThrow(() ->
                        new IllegalStateException(s.describe() + " shares no snapshot"))).toList();
                SharedSnapshot snapshot;
                if (joining) {
                    // The feed carries them first: whatever the snapshot does not see, the feed sends.
                    List<ChangeSource> members = sources.stream().map(ChangeFeeds::changesOf).toList();
                    members.getFirst().joinChanges(members);
                    snapshot = own.getFirst().exportSnapshot(own);
                } else if (feed.isPresent() && feed.get().mode() == ChangeFeeds.Mode.START) {
                    List<ChangeSource> members = sources.stream().map(ChangeFeeds::changesOf).toList();
                    snapshot = members.getFirst().startChanges(members);
                    snapshots.opened.add(snapshot);
                    feeds.started(feed.get(), snapshot);
                } else {
                    snapshot = own.getFirst().exportSnapshot(own);
                }
                if (!snapshots.opened.contains(snapshot)) {
                    snapshots.opened.add(snapshot);
                }
                copied.forEach(name -> snapshots.byStream.put(name, snapshot));
            } catch (ConnectorException e) {
                SluiceException error = new SluiceException(e.kind() == ErrorKind.FAILED ? ErrorKind.PREFLIGHT
                        : e.kind(), e.code(), "the snapshot of the " + group.streams().size() + " streams reading "
                        + "connection '" + group.connection() + "': " + e.getMessage(), e.fix().orElse(null), e);
                copied.forEach(name -> snapshots.failed.put(name, error));
            } catch (RuntimeException e) { // a connector's bug fails its streams with a code, as a worker's would
                SluiceException error = SluiceException.unexpected(e, "the snapshot of the streams reading "
                        + "connection '" + group.connection() + "'");
                copied.forEach(name -> snapshots.failed.put(name, error));
            }
        }
        return snapshots;
    }

    /** The snapshot {@code stream} reads with its group; empty when it reads one of its own. */
    Optional<SharedSnapshot> of(StreamPlan stream) {
        return Optional.ofNullable(byStream.get(stream.name()));
    }

    /** Why {@code stream} cannot start: its group's snapshot could not be exported. */
    Optional<SluiceException> failure(StreamPlan stream) {
        return Optional.ofNullable(failed.get(stream.name()));
    }

    @Override
    public void close() {
        opened.forEach(SharedSnapshot::close);
    }
}

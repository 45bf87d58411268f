package io.sluice.core.plan;

import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.SnapshotGroup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Which streams of a run read one snapshot together, so the tables they copy show one moment of the source (a
 * parent row and the child row inserted with it arrive both or neither): the streams with {@code consistency:
 * snapshot} whose sources are of one snapshot group (PostgreSQL: one source connection), two or more of them. A
 * stream that reads a table another stream of the run writes is left out: it must read that table after the other
 * stream loaded it, in a snapshot of its own taken when it starts.
 */
public final class SnapshotSharing {
    /**
     * Streams that read one snapshot.
     *
     * @param connection the spec's name of their source connection
     * @param streams    their names, in the plan's order
     */
    public record Group(String connection, List<String> streams, Optional<String> feed) {
        public Group {
            requireNonNull(connection, "connection is null");
            streams = List.copyOf(requireNonNull(streams, "streams is null"));
            requireNonNull(feed, "feed is null");
        }

        public Group(String connection, List<String> streams) {
            this(connection, streams, Optional.empty());
        }
    }

    private SnapshotSharing() {
    }

    public static List<Group> of(BoundPlan bound) {
        requireNonNull(bound, "bound is null");
        Set<String> written = bound.plan().streams().stream()
                .flatMap(s -> bound.binding(s).writes().stream()).map(RelationIdentity::key)
                .collect(Collectors.toSet());
        Map<Object, List<StreamPlan>> byGroup = new LinkedHashMap<>();
        for (StreamPlan stream : bound.plan().streams()) {
            StreamBinding binding = bound.binding(stream);
            Optional<Object> group = binding.source().snapshotGroup().map(SnapshotGroup::key);
            if (stream.spec().consistency() != Consistency.SNAPSHOT || group.isEmpty()
                    || binding.reads().stream().anyMatch(r -> written.contains(r.key()))) {
                continue;
            }
            // Streams that follow one change feed read the snapshot its slot exported; others share their own.
            byGroup.computeIfAbsent(List.of(group.get(), binding.source().changes().map(ChangeSource::feed).orElse("")),
                    g -> new ArrayList<>()).add(stream);
        }
        List<Group> groups = new ArrayList<>();
        for (List<StreamPlan> members : byGroup.values()) {
            Optional<String> feed = bound.binding(members.getFirst()).source().changes().map(ChangeSource::feed);
            if (members.size() > 1 || feed.isPresent()) {
                groups.add(new Group(members.getFirst().spec().source().connection(),
                        members.stream().map(StreamPlan::name).toList(), feed));
            }
        }
        return groups;
    }
}

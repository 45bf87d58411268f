package io.sluice.core.plan;

import io.sluice.core.SluiceException;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.write.LoadPlan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What targets do across the streams of a run (before the first, once every one is done), planned once every stream
 * is: each target learns which of its connection's tables hold the copies of which source tables (a foreign key of
 * one copied table to another becomes a foreign key between their copies), and its plan gets the statements.
 */
final class AcrossStreamsPlanner {
    private AcrossStreamsPlanner() {
    }

    static List<StreamPlan> plan(List<StreamPlan> streams, Map<String, StreamBinding> bindings) {
        Map<String, Map<String, String>> copiesByConnection = new HashMap<>();
        for (StreamPlan stream : streams) {
            Optional<RelationIdentity> copied = copied(stream, bindings.get(stream.name()));
            copied.ifPresent(c -> copiesByConnection.computeIfAbsent(stream.spec().target().connection(),
                    k -> new HashMap<>()).put(c.key(), stream.targetTable()));
        }
        List<StreamPlan> planned = new ArrayList<>(streams.size());
        for (StreamPlan stream : streams) {
            Map<String, String> copies = copiesByConnection.getOrDefault(stream.spec().target().connection(),
                    Map.of());
            try {
                LoadPlan.AcrossStreams across = bindings.get(stream.name()).load().planAcrossStreams(copies);
                planned.add(stream.withLoad(stream.load().with(across)));
            } catch (ConnectorException e) {
                throw new SluiceException(ErrorKind.PREFLIGHT, e.code(), stream.where() + ": " + e.getMessage(),
                        e.fix().orElse(null), e);
            }
        }
        return planned;
    }

    private static Optional<RelationIdentity> copied(StreamPlan stream, StreamBinding binding) {
        try {
            return binding.source().copiedTable();
        } catch (ConnectorException e) {
            throw new SluiceException(ErrorKind.PREFLIGHT, e.code(), stream.where() + ": " + e.getMessage(),
                    e.fix().orElse(null), e);
        }
    }
}

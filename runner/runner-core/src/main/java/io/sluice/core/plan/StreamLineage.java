package io.sluice.core.plan;

import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.error.ConnectorException;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What one stream reads and writes, named for lineage by its connectors. Asking never fails a run: a connector that
 * cannot tell leaves its side empty.
 */
public record StreamLineage(List<LineageDataset> inputs, Optional<LineageDataset> output) {
    public StreamLineage {
        inputs = List.copyOf(requireNonNull(inputs, "inputs is null"));
        requireNonNull(output, "output is null");
    }

    static StreamLineage of(StreamBinding binding) {
        List<LineageDataset> inputs;
        try {
            inputs = binding.source().lineageInputs();
        } catch (ConnectorException | RuntimeException e) {
            inputs = List.of();
        }
        Optional<LineageDataset> output;
        try {
            output = binding.target().lineageOutput();
        } catch (ConnectorException | RuntimeException e) {
            output = Optional.empty();
        }
        return new StreamLineage(inputs, output);
    }
}

package io.sluice.core.spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A spec file as the user wrote it, after interpolation, defaults and validation.
 *
 * @param file where it was read from
 * @param checksum SHA-256 (hex) of the file's bytes, recorded with every run
 * @param secrets every string value that must never be printed (interpolated values and secret options)
 */
public record PipelineSpec(
        Path file,
        String checksum,
        int version,
        String name,
        Optional<String> description,
        boolean ledger,
        RunSettings run,
        Map<String, ConnectionSpec> connections,
        List<StreamSpec> streams,
        Set<String> secrets) {
    public PipelineSpec {
        requireNonNull(file, "file is null");
        requireNonNull(checksum, "checksum is null");
        requireNonNull(name, "name is null");
        requireNonNull(description, "description is null");
        requireNonNull(run, "run is null");
        connections = Map.copyOf(requireNonNull(connections, "connections is null"));
        streams = List.copyOf(requireNonNull(streams, "streams is null"));
        secrets = Set.copyOf(requireNonNull(secrets, "secrets is null"));
    }

    public ConnectionSpec connection(String name) {
        ConnectionSpec spec = connections.get(name);
        if (spec == null) {
            throw new IllegalArgumentException("no connection named " + name);
        }
        return spec;
    }

    /** Never prints the secrets themselves, only how many there are. */
    @Override
    public String toString() {
        return "PipelineSpec[file=" + file + ", checksum=" + checksum + ", version=" + version + ", name=" + name
                + ", ledger=" + ledger + ", connections=" + connections.keySet() + ", streams="
                + streams.stream().map(StreamSpec::name).toList() + ", secrets=" + secrets.size() + " hidden]";
    }
}

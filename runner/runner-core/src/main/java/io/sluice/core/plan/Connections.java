package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.spec.ConnectionSpec;
import io.sluice.core.spec.PipelineSpec;
import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.error.ErrorKind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** The connectors of one spec, created on first use and closed together. Not thread-safe: used while planning. */
public final class Connections implements AutoCloseable {
    private final ConnectorRegistry registry;
    private final PipelineSpec spec;
    private final Path stateDirectory;
    private final Map<String, Connector> open = new LinkedHashMap<>();

    public Connections(ConnectorRegistry registry, PipelineSpec spec, Path stateDirectory) {
        this.registry = requireNonNull(registry, "registry is null");
        this.spec = requireNonNull(spec, "spec is null");
        this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    }

    public Connector get(String name) {
        Connector connector = open.get(name);
        if (connector == null) {
            ConnectionSpec connection = spec.connection(name);
            ConnectorFactory factory = factory(name);
            Path specDirectory = spec.file().toAbsolutePath().getParent();
            connector = factory.create(new ConnectionConfig(name, connection.options(), specDirectory, stateDirectory));
            open.put(name, connector);
        }
        return connector;
    }

    /** The factory of the connection's connector, which declares what its sources and targets can do. */
    public ConnectorFactory factory(String name) {
        ConnectionSpec connection = spec.connection(name);
        return registry.find(connection.type()).orElseThrow(() -> new SluiceException(ErrorKind.INVALID_SPEC,
                RunnerCode.RUN001, "connection '" + name + "' has type '" + connection.type() + "', which no "
                + "installed connector provides", "run 'sluice connectors' to list the installed ones"));
    }

    /** What the connectors want a person to know, e.g. how to reach an embedded server. */
    public List<String> notices() {
        List<String> lines = new ArrayList<>();
        open.forEach((name, connector) -> connector.notices().forEach(n -> lines.add(name + ": " + n)));
        return lines;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (Connector connector : open.values()) {
            try {
                connector.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        open.clear();
        if (first != null) {
            throw first;
        }
    }
}

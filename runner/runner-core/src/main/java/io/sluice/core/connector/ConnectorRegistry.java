package io.sluice.core.connector;

import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.toolkit.plugin.Plugins;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/** The installed connectors, found with {@link ServiceLoader} on the class path. */
public final class ConnectorRegistry {
    private final Map<String, ConnectorFactory> factories;

    public ConnectorRegistry(Collection<ConnectorFactory> factories) {
        Map<String, ConnectorFactory> byName = new TreeMap<>();
        for (ConnectorFactory factory : requireNonNull(factories, "factories is null")) {
            ConnectorFactory previous = byName.put(factory.name(), factory);
            if (previous != null) {
                throw new IllegalStateException("two connectors named '" + factory.name() + "': "
                        + previous.getClass().getName() + " and " + factory.getClass().getName());
            }
        }
        this.factories = byName;
    }

    public static ConnectorRegistry fromClassPath() {
        // Sluice's own connectors and those of the plugins folder (io.sluice.toolkit.plugin.Plugins)
        return new ConnectorRegistry(ServiceLoader.load(ConnectorFactory.class,
                        Plugins.classLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .toList());
    }

    public Optional<ConnectorFactory> find(String name) {
        return Optional.ofNullable(factories.get(name));
    }

    /** All factories, sorted by name. */
    public Collection<ConnectorFactory> all() {
        return factories.values();
    }
}

package io.sluice.spi.connector;

import io.sluice.spi.changes.ChangeFeedState;
import io.sluice.spi.error.ConnectorException;

/** One configured connection. Thread-safe: the runner may open sources and targets from several threads. */
public interface Connector extends AutoCloseable {
    /**
     * Opening sources on this connection; present when its factory's {@link ConnectorFactory#roles()} include
     * {@link Role#SOURCE} (a spec that reads from another is refused at lint, SPEC015), empty (the default) otherwise.
     */
    default java.util.Optional<Sources> sources() {
        return java.util.Optional.empty();
    }

    /**
     * Opening targets on this connection; present when its factory's {@link ConnectorFactory#roles()} include
     * {@link Role#TARGET}, empty (the default) otherwise.
     */
    default java.util.Optional<Targets> targets() {
        return java.util.Optional.empty();
    }

    /**
     * The objects a source's options name when they hold a pattern (e.g. a PostgreSQL {@code table: "sales.*"} with
     * {@code exclude}), in a stable order; empty when the options name one object, as most do. The runner plans one
     * stream per object. An empty list means the pattern matched nothing.
     */
    default java.util.Optional<java.util.List<SourceObject>> expandSource(Options sourceOptions)
            throws ConnectorException {
        java.util.Objects.requireNonNull(sourceOptions, "sourceOptions is null");
        return java.util.Optional.empty();
    }

    /**
     * The target options for one object of an expanded source: the options' templates (e.g. {@code table:
     * "staging.{table}"}) filled with {@code names} ({@link SourceObject#names()}). The default returns them as they
     * are.
     */
    default Options bindTarget(Options targetOptions, java.util.Map<String, String> names) throws ConnectorException {
        java.util.Objects.requireNonNull(targetOptions, "targetOptions is null");
        java.util.Objects.requireNonNull(names, "names is null");
        return targetOptions;
    }

    /**
     * The runner is about to plan a stream for each of these options, as sources or as targets ({@code role}), one
     * after another: a pattern's tables. A connector may read now, for all of them at once, what planning each would
     * ask of its server (a table, its columns, a privilege), and give the sources and targets it makes for those
     * options what it read, for their planning alone. Anything it cannot read so is left to the per-object way, which
     * reports what is wrong; the default reads nothing.
     */
    default void describeAhead(Role role, java.util.List<Options> options) throws ConnectorException {
        java.util.Objects.requireNonNull(role, "role is null");
        java.util.Objects.requireNonNull(options, "options is null");
    }

    /**
     * Lines to show a person about this connection, e.g. how to reach an embedded server with psql. Must not contain
     * secrets.
     */
    default java.util.List<String> notices() {
        return java.util.List.of();
    }

    /**
     * How many more connections this connection's server accepts now (its limit, minus what is reserved and in use),
     * when it can tell: the runner refuses a run that would open more. Empty when unknown.
     */
    default java.util.OptionalInt freeConnections() throws ConnectorException {
        return java.util.OptionalInt.empty();
    }

    /**
     * The change feed a stream source with these options follows ({@code changes:}), as the source holds it now;
     * empty when the options name none or the connector follows no changes.
     */
    default java.util.Optional<ChangeFeedState> changeFeedState(Options sourceOptions) throws ConnectorException {
        java.util.Objects.requireNonNull(sourceOptions, "sourceOptions is null");
        return java.util.Optional.empty();
    }

    @Override
    void close();
}

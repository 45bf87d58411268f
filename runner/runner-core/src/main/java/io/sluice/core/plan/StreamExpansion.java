package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.diag.PrintableText;
import io.sluice.core.spec.EndpointSpec;
import io.sluice.core.spec.StreamSpec;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceObject;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Distribution;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A stream whose source names a pattern ({@code table: "sales.*"}) becomes one stream per matched object, named
 * {@code <stream>.<object>} (e.g. {@code orders.sales.orders}) in plans, logs, metrics and the ledger, each with the
 * stream's settings, its target options filled from the object's names, and, with {@code key: primary-key}, the
 * object's primary key as its distribution key.
 */
public final class StreamExpansion {
    /** The distribution key that stands for each matched table's primary key. */
    public static final String PRIMARY_KEY = "primary-key";

    private StreamExpansion() {
    }

    /** The streams {@code stream} stands for when its source's options hold a pattern; empty when they do not. */
    public static Optional<List<StreamSpec>> expand(StreamSpec stream, Connections connections)
            throws ConnectorException {
        Optional<List<SourceObject>> objects = connections.get(stream.source().connection())
                .expandSource(stream.source().options());
        if (objects.isEmpty()) {
            return Optional.empty();
        }
        if (objects.get().isEmpty()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN006, "stream '" + stream.name() + "': the "
                    + "source's pattern matches no table", "check the pattern and its exclude (unquoted names fold to "
                    + "lower case; a pattern without a schema looks in the first schema of the search_path)");
        }
        boolean primaryKey = stream.distribution().key().filter(PRIMARY_KEY::equals).isPresent();
        List<String> keyless = objects.get().stream().filter(o -> primaryKey && o.primaryKey().isEmpty())
                .map(SourceObject::name).toList();
        if (!keyless.isEmpty()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN007, "stream '" + stream.name() + "': "
                    + "key: primary-key, and " + keyless.size() + " matched table(s) have no primary key: "
                    + String.join(", ", keyless), "exclude them, or use distribution method ctid, which needs no key");
        }
        List<StreamSpec> expanded = new ArrayList<>();
        for (SourceObject object : objects.get()) {
            Distribution distribution = primaryKey
                    // A composite key splits on its first column, which orders the table as well as the whole key.
                    ? new Distribution(stream.distribution().method(), Optional.of(quoted(object.primaryKey()
                    .getFirst())), stream.distribution().valuesQuery())
                    : stream.distribution();
            EndpointSpec source = new EndpointSpec(stream.source().connection(), object.options(),
                    stream.source().position());
            EndpointSpec target = new EndpointSpec(stream.target().connection(), connections.get(
                    stream.target().connection()).bindTarget(stream.target().options(), object.names()),
                    stream.target().position());
            // The table's name, printed on lines of their own: no control character in it may forge one.
            expanded.add(stream.forObject(stream.name() + "." + PrintableText.name(object.name()), source, target,
                    distribution));
        }
        refuseCollisions(stream, objects.get(), expanded);
        // A pattern's tables are planned one after another: each side reads what that asks of them at once.
        connections.get(stream.source().connection()).describeAhead(Role.SOURCE,
                expanded.stream().map(s -> s.source().options()).toList());
        connections.get(stream.target().connection()).describeAhead(Role.TARGET,
                expanded.stream().map(s -> s.target().options()).toList());
        return Optional.of(expanded);
    }

    /**
     * Two tables of a pattern loaded into one target table would empty or overwrite each other (a truncate of the
     * second drops the first's rows): every such group is listed at once.
     */
    private static void refuseCollisions(StreamSpec stream, List<SourceObject> objects, List<StreamSpec> expanded) {
        java.util.Map<EndpointSpec, List<String>> byTarget = new java.util.LinkedHashMap<>();
        for (int i = 0; i < expanded.size(); i++) {
            EndpointSpec target = expanded.get(i).target();
            byTarget.computeIfAbsent(new EndpointSpec(target.connection(), target.options(), stream.target()
                    .position()), k -> new ArrayList<>()).add(objects.get(i).name());
        }
        List<String> collisions = byTarget.values().stream().filter(names -> names.size() > 1)
                .map(names -> String.join(" and ", names)).toList();
        if (!collisions.isEmpty()) {
            throw new SluiceException(ErrorKind.PREFLIGHT, RunnerCode.PLAN008, "stream '" + stream.name() + "': "
                    + "the pattern maps several source tables onto one target table, which would empty or overwrite "
                    + "each other's rows: " + String.join("; ", collisions) + " (" + collisions.size()
                    + " collision(s)); nothing was written", "put {schema} into the target's table name (e.g. "
                    + "\"staging.{schema}_{table}\"), narrow the pattern, or exclude the extra tables");
        }
    }

    /** The names a pattern's stream stands for, for people: {@code orders.sales.a, orders.sales.b, ...}. */
    public static String names(List<StreamSpec> streams) {
        return streams.stream().map(StreamSpec::name).limit(10).collect(Collectors.joining(", "))
                + (streams.size() > 10 ? ", ..." : "");
    }

    private static String quoted(String column) {
        return '"' + column.replace("\"", "\"\"") + '"';
    }
}

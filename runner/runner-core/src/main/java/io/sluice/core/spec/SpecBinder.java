// Over 450 lines: one pass over the spec's tree in file order, until one declaration per key.
package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.diag.Position;
import io.sluice.core.diag.Severity;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Distribution;
import io.sluice.spi.write.LoadRequest;
import io.sluice.toolkit.SqlText;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.sluice.core.spec.ValueReader.in;
import static java.util.Objects.requireNonNull;

/**
 * Maps the interpolated YAML tree onto the typed spec records in one pass, reporting every problem it meets:
 * the spec's own keys, each connector's declared options, references between streams and connections, and the
 * cross-key rules (distribution fit, roles). Then it asks each connector's offline lint about each stream side.

 */
final class SpecBinder {
    private final ConnectorRegistry registry;
    private final ValueReader values;
    private final OptionsReader options;
    private final StreamSettingsReader settings;
    private final DistributionChecks distributions;
    private final IncrementalBinding incrementals;
    private final ColumnRulesBinding columns;
    private final ChecksBinding checks;
    private final LoadBinding loads;
    private final Set<String> secrets;

    /** A connection as far as it could be bound; the factory is absent when the type is unknown. */
    private record BoundConnection(Optional<ConnectorFactory> factory, Optional<ConnectionSpec> spec,
                                   Position position) {
    }

    /** A stream side as far as it could be bound. */
    private record BoundEndpoint(Optional<ConnectorFactory> factory, Optional<EndpointSpec> spec,
                                 YamlNode.Mapping mapping, String where) {
    }

    SpecBinder(ConnectorRegistry registry, Findings findings, Set<String> secrets) {
        this.registry = requireNonNull(registry, "registry is null");
        this.secrets = requireNonNull(secrets, "secrets is null");
        this.values = new ValueReader(requireNonNull(findings, "findings is null"));
        this.options = new OptionsReader(values, secrets);
        this.settings = new StreamSettingsReader(values);
        this.distributions = new DistributionChecks(values);
        this.incrementals = new IncrementalBinding(values);
        this.columns = new ColumnRulesBinding(values);
        this.checks = new ChecksBinding(values);
        this.loads = new LoadBinding(values);
    }

    Optional<PipelineSpec> bind(YamlNode.Mapping root, Path file, String checksum) {
        Position top = root.position();
        values.rejectUnknownKeys(root, SpecReference.names(SpecReference.TOP, SpecKey.Scope.TOP), "");
        Optional<Integer> version = version(root, top);
        Optional<String> name = root.get(SpecKeys.NAME_KEY).flatMap(n -> name(n, "spec name", ""));
        values.require(root, top, SpecKeys.NAME_KEY, "", "add 'name: my-pipeline' (used in logs, metrics, ledger)");
        Optional<String> description = root.get(SpecKeys.DESCRIPTION)
                .flatMap(n -> values.string(n, SpecKeys.DESCRIPTION, ""));
        boolean ledger = root.entry(SpecKeys.LEDGER).map(this::ledger).orElse(SpecKeys.DEFAULT_LEDGER);
        RunSettings run = new RunSettingsReader(values).read(root);

        Map<String, BoundConnection> connections = new LinkedHashMap<>();
        if (values.require(root, top, SpecKeys.CONNECTIONS, "", "add 'connections:' with at least a source and a "
                + "target connection")) {
            values.mapping(root.get(SpecKeys.CONNECTIONS).orElseThrow(), SpecKeys.CONNECTIONS, "")
                    .ifPresent(m -> m.entries().forEach(e -> connections.put(e.key(), connection(e))));
        }
        StreamSettings defaults = root.get(SpecKeys.DEFAULTS).flatMap(this::defaults).orElse(StreamSettings.NONE);

        List<StreamSpec> streams = new ArrayList<>();
        Set<String> used = new HashSet<>();
        if (values.require(root, top, SpecKeys.STREAMS, "", "add 'streams:' with at least one stream")) {
            YamlNode node = root.entry(SpecKeys.STREAMS).orElseThrow().value();
            values.sequence(node, SpecKeys.STREAMS, "").ifPresent(list -> {
                if (list.items().isEmpty()) {
                    values.findings().error(SpecCode.SPEC009, root.entry(SpecKeys.STREAMS).orElseThrow().keyPosition(),
                            "'streams' must list at least one stream", "add a stream with name, source and target");
                }
                Map<String, Position> names = new HashMap<>();
                for (int i = 0; i < list.items().size(); i++) {
                    stream(list.items().get(i), i, defaults, connections, names, used, ledger)
                            .ifPresent(streams::add);
                }
            });
        }
        checkRunHooks(run, connections, streams, ledger);
        connections.forEach((connectionName, c) -> {
            if (!used.contains(connectionName)) {
                values.findings().warning(SpecCode.SPEC023, c.position(), "connection '" + connectionName
                        + "' is not used by any stream", "remove it, or use it as a stream's source or target");
            }
        });
        if (values.findings().hasErrors()) {
            return Optional.empty();
        }
        Map<String, ConnectionSpec> bound = new LinkedHashMap<>();
        connections.forEach((n, c) -> bound.put(n, c.spec().orElseThrow()));
        return Optional.of(new PipelineSpec(file, checksum, version.orElseThrow(), name.orElseThrow(), description,
                ledger, run, bound, streams, secrets));
    }

    /**
     * A run hook runs on a connection some stream loads into: that stream's ledger keeps the hook's mark, so it runs
     * once per run. So the connection must be known, be a stream's target, and the ledger be on.
     */
    private void checkRunHooks(RunSettings run, Map<String, BoundConnection> connections, List<StreamSpec> streams,
                               boolean ledgerOn) {
        List<RunHook> hooks = new ArrayList<>(run.before());
        hooks.addAll(run.after());
        for (RunHook hook : hooks) {
            if (!connections.containsKey(hook.connection())) {
                values.findings().error(SpecCode.SPEC032, hook.position(), "a run hook names connection '"
                        + hook.connection() + "', which 'connections' does not define", Suggestions.fixFor(
                        hook.connection(), new ArrayList<>(connections.keySet()), "connections"));
            } else if (streams.stream().noneMatch(s -> s.target().connection().equals(hook.connection()))) {
                values.findings().error(SpecCode.SPEC032, hook.position(), "a run hook runs on connection '"
                        + hook.connection() + "', which no stream loads into: the hook's mark lives in the ledger of "
                        + "a stream's target", "run it on a connection a stream loads into, or as a stream's own "
                        + "before: or after:");
            } else if (!ledgerOn) {
                values.findings().error(SpecCode.SPEC032, hook.position(), "a run hook runs once per run by its mark "
                        + "in the ledger, and the spec says 'ledger: off'", "remove 'ledger: off'");
            }
        }
    }

    private Optional<Integer> version(YamlNode.Mapping root, Position top) {
        if (!values.require(root, top, SpecKeys.VERSION, "", "add 'version: 1' as the first line")) {
            return Optional.empty();
        }
        YamlNode node = root.get(SpecKeys.VERSION).orElseThrow();
        if (node instanceof YamlNode.Scalar s && s.value() instanceof Long v && v == 1L) {
            return Optional.of(1);
        }
        if (node instanceof YamlNode.Scalar s && s.value() instanceof Long) {
            values.findings().error(SpecCode.SPEC005, node.position(), "unsupported spec version " + s.display(),
                    "this Sluice reads version 1; write 'version: 1'");
        } else {
            values.wrongType(node, SpecKeys.VERSION, "", "the integer 1", "write 'version: 1'");
        }
        return Optional.empty();
    }

    private Optional<String> name(YamlNode node, String what, String where) {
        return values.string(node, SpecKeys.NAME_KEY, where).flatMap(n -> {
            if (SpecKeys.NAME.matcher(n).matches()) {
                return Optional.of(n);
            }
            String shown = ((YamlNode.Scalar) node).display();
            values.findings().error(SpecCode.SPEC006, node.position(), "invalid " + what + " '" + shown + "'"
                    + in(where), "use lower-case letters, digits, '_' and '-', starting with a letter or digit"
                    + suggestedName(n));
            return Optional.empty();
        });
    }

    private static String suggestedName(String name) {
        String fixed = name.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_-]+", "-")
                .replaceAll("^[^a-z0-9]+", "");
        return fixed.isEmpty() ? "" : ", e.g. '" + fixed + "'";
    }

    private boolean ledger(YamlNode.Entry entry) {
        YamlNode node = entry.value();
        Optional<Boolean> on = node instanceof YamlNode.Scalar s && s.value() instanceof Boolean b
                ? Optional.of(b)
                : values.choice(node, SpecKeys.LEDGER, "", SpecKeys.LEDGER_VALUES)
                        .map(v -> v.equals("on") || v.equals("true"));
        if (on.isPresent() && !on.get()) {
            values.findings().note(SpecCode.SPEC022, node.position(),
                    "ledger is off: runs of this spec cannot be resumed", "remove 'ledger: off' unless the target "
                            + "may not hold the ledger schema");
        }
        return on.orElse(SpecKeys.DEFAULT_LEDGER);
    }

    private BoundConnection connection(YamlNode.Entry entry) {
        String where = "in connection '" + entry.key() + "'";
        BoundConnection unbound = new BoundConnection(Optional.empty(), Optional.empty(), entry.keyPosition());
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.value(), entry.key(), "in 'connections'");
        if (mapping.isEmpty()) {
            return unbound;
        }
        YamlNode.Mapping m = mapping.get();
        List<String> installed = registry.all().stream().map(ConnectorFactory::name).toList();
        if (!values.require(m, entry.keyPosition(), SpecKeys.TYPE, where,
                "add 'type:' with one of: " + String.join(", ", installed))) {
            return unbound;
        }
        YamlNode typeNode = m.get(SpecKeys.TYPE).orElseThrow();
        Optional<String> type = values.string(typeNode, SpecKeys.TYPE, where);
        if (type.isEmpty()) {
            return unbound;
        }
        Optional<ConnectorFactory> factory = registry.find(type.get());
        if (factory.isEmpty()) {
            String suggestion = Suggestions.closest(type.get(), installed).map(s -> "did you mean '" + s + "'? ")
                    .orElse("");
            values.findings().error(SpecCode.SPEC013, typeNode.position(), "unknown connector type '"
                    + ((YamlNode.Scalar) typeNode).display() + "'" + in(where), suggestion + "installed connectors: "
                    + (installed.isEmpty() ? "none" : String.join(", ", installed)));
            return unbound;
        }
        Optional<ConnectionSpec> spec = options.read(m, entry.keyPosition(), factory.get().connectionOptions(),
                        Set.of(SpecKeys.TYPE), where)
                .map(o -> new ConnectionSpec(entry.key(), type.get(), o, entry.keyPosition()));
        spec.ifPresent(c -> lintConnection(factory.get(), c, m, entry.keyPosition(), where));
        return new BoundConnection(factory, spec, entry.keyPosition());
    }

    private void lintConnection(ConnectorFactory factory, ConnectionSpec connection, YamlNode.Mapping mapping,
                                Position at, String where) {
        List<Problem> problems;
        try {
            problems = factory.lintConnection(connection.options());
        } catch (RuntimeException e) {
            values.findings().error(SpecCode.SPEC024, at, "the " + factory.name() + " connector failed to lint "
                    + where.replaceFirst("^in ", "") + ": " + e.getClass().getSimpleName(),
                    "report this to the connector's maintainers");
            return;
        }
        report(problems, mapping, at, where);
    }

    private Optional<StreamSettings> defaults(YamlNode node) {
        return values.mapping(node, SpecKeys.DEFAULTS, "").map(m -> {
            for (YamlNode.Entry e : m.entries()) {
                if (List.of(SpecKeys.NAME_KEY, SpecKeys.SOURCE, SpecKeys.TARGET).contains(e.key())) {
                    values.findings().error(SpecCode.SPEC012, e.keyPosition(), "'" + e.key()
                            + "' cannot have a default", "set '" + e.key() + "' in each stream");
                }
            }
            List<String> others = m.entries().stream().map(YamlNode.Entry::key)
                    .filter(k -> !List.of(SpecKeys.NAME_KEY, SpecKeys.SOURCE, SpecKeys.TARGET).contains(k)).toList();
            values.rejectUnknownKeys(new YamlNode.Mapping(m.entries().stream()
                    .filter(e -> others.contains(e.key())).toList(), m.position()),
                    SpecReference.names(SpecReference.STREAM, SpecKey.Scope.SETTING), "in defaults");
            return settings.read(m, "in defaults");
        });
    }

    private Optional<StreamSpec> stream(YamlNode node, int index, StreamSettings defaults,
                                        Map<String, BoundConnection> connections, Map<String, Position> names,
                                        Set<String> used, boolean ledgerOn) {
        Optional<YamlNode.Mapping> mapping = values.mapping(node, "streams[" + index + "]", "");
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        Optional<String> name = m.get(SpecKeys.NAME_KEY).flatMap(n -> name(n, "stream name", ""));
        String where = name.map(n -> "in stream '" + n + "'").orElse("in stream #" + (index + 1));
        values.require(m, m.position(), SpecKeys.NAME_KEY, where, "add 'name:'; it names the stream in logs, "
                + "metrics and the ledger");
        name.ifPresent(n -> {
            Position at = m.get(SpecKeys.NAME_KEY).orElseThrow().position();
            Position first = names.putIfAbsent(n, at);
            if (first != null) {
                values.findings().error(SpecCode.SPEC011, at, "duplicate stream name '" + n + "' (first at line "
                        + first.line() + ")", "give each stream its own name");
            }
        });
        values.rejectUnknownKeys(m, SpecReference.names(SpecReference.STREAM, SpecKey.Scope.STREAM,
                SpecKey.Scope.SETTING), where);
        StreamSettings own = settings.read(m, where);
        StreamSettings merged = own.over(defaults);

        Optional<BoundEndpoint> source = endpoint(m, SpecKeys.SOURCE, Role.SOURCE, where, connections, used);
        Optional<BoundEndpoint> target = endpoint(m, SpecKeys.TARGET, Role.TARGET, where, connections, used);

        Optional<ConnectorFactory> sourceFactory = source.flatMap(BoundEndpoint::factory);
        Distribution distribution = distributions.distribution(merged, sourceFactory, where);
        boolean rowsPerPartitionPlanned = distributions.rowsPerPartitionPlanned(own, distribution, sourceFactory,
                where);
        RetrySpec retry = retry(merged.retry(), where);
        VerifyMode verify = merged.verify().orElse(SpecKeys.DEFAULT_VERIFY);
        if (verify == VerifyMode.COMPARE && sourceFactory.isPresent()
                && !sourceFactory.get().sourceCapabilities().comparesRows()) {
            values.findings().error(SpecCode.SPEC029, m.position(), "'verify: compare' " + where + ": the "
                    + sourceFactory.get().name() + " source cannot compute the checksum digests and row lists a "
                    + "compare needs", "use 'verify: count' (or 'checksum' between PostgreSQL servers)");
        }
        Optional<IncrementalSpec> incremental = incrementals.bind(m, sourceFactory, verify, where);
        LoadSpec load = loads.bind(merged, ledgerOn, incremental, verify, target.flatMap(BoundEndpoint::factory),
                m.position(), where);
        ColumnRules columnRules = columns.bind(m, where);
        if (!columnRules.isEmpty() && merged.columnMapping().orElse(SpecKeys.DEFAULT_COLUMN_MAPPING)
                == ColumnMapping.POSITION) {
            values.findings().error(SpecCode.SPEC030, m.entry(SpecKeys.COLUMNS).orElseThrow().keyPosition(),
                    "'columns' " + where + " with 'column-mapping: position': rules name columns, and position "
                            + "mapping does not go by names", "use 'column-mapping: name', or remove 'columns'");
        }
        String streamName = name.orElse("#" + (index + 1));
        source.ifPresent(s -> lintStream(streamName, Role.SOURCE, s, distribution));
        target.ifPresent(t -> lintStream(streamName, Role.TARGET, t, Distribution.none()));
        if (source.isPresent() && target.isPresent()) {
            refuseSourceIsTarget(source.get(), target.get(), where);
        }

        if (name.isEmpty() || source.flatMap(BoundEndpoint::spec).isEmpty()
                || target.flatMap(BoundEndpoint::spec).isEmpty() || retry == null) {
            return Optional.empty();
        }
        return Optional.of(new StreamSpec(name.get(), source.get().spec().orElseThrow(),
                target.get().spec().orElseThrow(), distribution,
                merged.degree().map(StreamSettings.Located::value).orElse(SpecKeys.DEFAULT_DEGREE),
                merged.rowsPerPartition().map(StreamSettings.Located::value)
                        .orElse(SpecKeys.DEFAULT_ROWS_PER_PARTITION), rowsPerPartitionPlanned,
                load,
                merged.columnMapping().orElse(SpecKeys.DEFAULT_COLUMN_MAPPING), columnRules,
                merged.consistency().orElse(SpecKeys.DEFAULT_CONSISTENCY),
                verify, retry,
                merged.lockTimeout().map(StreamSettings.Located::value).orElse(SpecKeys.DEFAULT_LOCK_TIMEOUT),
                incremental, hooks(m, where), checks.bind(m, where), merged.rejects(),
                nulBytes(merged, target.flatMap(BoundEndpoint::factory), where), m.position()));
    }

    /**
     * {@code nul-bytes:}, defaulting to reject when rows are set aside (else today's: the target refuses them);
     * {@code reject} needs somewhere to put the row, and {@code rejects:} a target that can.
     */
    private BadRows.NulBytes nulBytes(StreamSettings merged,
                                                    Optional<ConnectorFactory> target, String where) {
        BadRows.NulBytes nul = merged.nulBytes().map(StreamSettings.Located::value)
                .orElse(merged.rejects().isPresent() ? BadRows.NulBytes.REJECT
                        : BadRows.NulBytes.FAIL);
        if (nul == BadRows.NulBytes.REJECT && merged.rejects().isEmpty()) {
            values.findings().error(SpecCode.SPEC033, merged.nulBytes().orElseThrow().position(), "'nul-bytes: "
                    + "reject' " + where + " without 'rejects:': a rejected row needs a rejects table", "add rejects: "
                    + "{ table: ... }, or use nul-bytes: strip");
        }
        if (merged.rejects().isEmpty() && merged.load().onDuplicate().map(StreamSettings.Located::value)
                .orElse(null) == LoadRequest.OnDuplicate.REJECT) {
            values.findings().error(SpecCode.SPEC033, merged.load().onDuplicate().orElseThrow().position(),
                    "'on-duplicate: reject' " + where + " without 'rejects:': the rows need a rejects table",
                    "add rejects: { table: ... }, or use on-duplicate: error or last");
        }
        if (merged.rejects().isPresent() && merged.verify().orElse(SpecKeys.DEFAULT_VERIFY) != VerifyMode.NONE) {
            values.findings().error(SpecCode.SPEC033, merged.rejects().get().position(), "'rejects' " + where
                    + " with 'verify': verification compares the source with the target, and rows set aside make "
                    + "them differ by design", "remove 'verify' (each partition's rows read still equal its rows "
                    + "loaded plus those set aside), or remove 'rejects'");
        }
        if (merged.rejects().isPresent() && target.isPresent()
                && !target.get().targetCapabilities().setsAsideRows()) {
            values.findings().error(SpecCode.SPEC033, merged.rejects().get().position(), "'rejects' " + where
                    + ": the target's connector '" + target.get().name() + "' sets no rows aside", "remove "
                    + "'rejects', or load into a connector that can (sluice connectors)");
        }
        return nul;
    }

    private StreamHooks hooks(YamlNode.Mapping stream, String where) {
        return new StreamHooks(statements(stream, SpecKeys.BEFORE, where), statements(stream, SpecKeys.AFTER, where));
    }

    private List<String> statements(YamlNode.Mapping stream, String key, String where) {
        List<String> statements = stream.get(key).flatMap(n -> values.stringList(n, key, where)).orElse(List.of());
        for (String statement : statements) {
            if (statement.isBlank()) {
                values.findings().error(SpecCode.SPEC009, stream.get(key).orElseThrow().position(), "'" + key + "' "
                        + where + " has an empty statement", "remove it, or write the SQL to run");
            }
            refuseTableInQuotes(values.findings(), statement, stream.get(key).orElseThrow().position(), "'" + key
                    + "' " + where);
        }
        return statements;
    }

    /** SPEC034: {@code {table}} where its quotes would end a string (or identifier) the user opened around it. */
    static void refuseTableInQuotes(Findings findings, String sql, Position position, String what) {
        if (!SqlText.quotedOccurrences(sql, StreamHooks.TABLE).isEmpty()) {
            findings.error(SpecCode.SPEC034, position, what + " puts {table} inside quotes: " + sql,
                    "write {table_literal} for the name as a string, e.g. values ('loaded ' || {table_literal})");
        }
    }

    private Optional<BoundEndpoint> endpoint(YamlNode.Mapping stream, String key, Role role, String streamWhere,
                                             Map<String, BoundConnection> connections, Set<String> used) {
        String where = ValueReader.nested(key, streamWhere);
        if (!values.require(stream, stream.position(), key, streamWhere,
                "add '" + key + ": { connection: ..., ... }'")) {
            return Optional.empty();
        }
        YamlNode.Entry entry = stream.entry(key).orElseThrow();
        Optional<YamlNode.Mapping> mapping = values.mapping(entry.value(), key, streamWhere);
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        YamlNode.Mapping m = mapping.get();
        BoundEndpoint unbound = new BoundEndpoint(Optional.empty(), Optional.empty(), m, where);
        if (!values.require(m, entry.keyPosition(), SpecKeys.CONNECTION, where,
                "add 'connection:' naming one of: " + String.join(", ", new TreeSet<>(connections.keySet())))) {
            return Optional.of(unbound);
        }
        YamlNode connectionNode = m.get(SpecKeys.CONNECTION).orElseThrow();
        Optional<String> connectionName = values.string(connectionNode, SpecKeys.CONNECTION, where);
        if (connectionName.isEmpty()) {
            return Optional.of(unbound);
        }
        used.add(connectionName.get());
        BoundConnection connection = connections.get(connectionName.get());
        if (connection == null) {
            Set<String> defined = new TreeSet<>(connections.keySet());
            values.findings().error(SpecCode.SPEC014, connectionNode.position(), "unknown connection '"
                            + ((YamlNode.Scalar) connectionNode).display() + "'" + in(where),
                    Suggestions.closest(connectionName.get(), defined).map(s -> "did you mean '" + s + "'?")
                            .orElse(defined.isEmpty() ? "define it under 'connections:'"
                                    : "defined connections: " + String.join(", ", defined)));
            return Optional.of(unbound);
        }
        if (connection.factory().isEmpty()) {
            return Optional.of(unbound); // its type is unknown: already reported at the connection
        }
        ConnectorFactory factory = connection.factory().get();
        if (!factory.roles().contains(role)) {
            String side = role.name().toLowerCase(java.util.Locale.ROOT);
            List<String> able = registry.all().stream().filter(f -> f.roles().contains(role))
                    .map(ConnectorFactory::name).toList();
            values.findings().error(SpecCode.SPEC015, connectionNode.position(), "connection '"
                            + connectionName.get() + "' (" + factory.name() + ") cannot be the " + side + " "
                            + streamWhere.replaceFirst("^in ", "of "),
                    "use a connection of a connector that can be a " + side
                            + (able.isEmpty() ? "" : ": " + String.join(", ", able)));
            return Optional.of(new BoundEndpoint(Optional.of(factory), Optional.empty(), m, where));
        }
        Optional<EndpointSpec> spec = options.read(m, entry.keyPosition(),
                        role == Role.SOURCE ? factory.sourceOptions() : factory.targetOptions(),
                        Set.of(SpecKeys.CONNECTION), where)
                .map(o -> new EndpointSpec(connectionName.get(), o, entry.keyPosition()));
        return Optional.of(new BoundEndpoint(Optional.of(factory), spec, m, where));
    }

    /** The merged retry, or null when its backoffs contradict each other (reported). */
    private RetrySpec retry(StreamSettings.RetrySettings retry, String where) {
        RetrySpec resolved = retry.resolve();
        if (resolved.maxBackoff().compareTo(resolved.initialBackoff()) < 0) {
            Position at = retry.maxBackoff().or(retry::initialBackoff).map(StreamSettings.Located::position)
                    .orElseThrow();
            values.findings().error(SpecCode.SPEC009, at, "'max-backoff'" + in(ValueReader.nested(SpecKeys.RETRY, where))
                    + " is shorter than 'initial-backoff'", "make max-backoff at least initial-backoff");
            return null;
        }
        return resolved;
    }

    /** The obvious case of a stream reading its own target: one connection, one table. */
    private void refuseSourceIsTarget(BoundEndpoint source, BoundEndpoint target, String where) {
        if (source.spec().isEmpty() || target.spec().isEmpty() || source.factory().isEmpty()) {
            return;
        }
        EndpointSpec from = source.spec().get();
        EndpointSpec to = target.spec().get();
        boolean same;
        try {
            same = from.connection().equals(to.connection())
                    && source.factory().get().sameObject(from.options(), to.options());
        } catch (RuntimeException e) {
            return; // the connector's own lint reports what is wrong with its options
        }
        if (same) {
            values.findings().error(SpecCode.SPEC025, target.mapping().position(), "the target" + in(where)
                    + " is the table its source reads (connection '" + to.connection() + "')",
                    "load into another table; copy into a staging table first to rewrite a table in place");
        }
    }

    private void lintStream(String streamName, Role role, BoundEndpoint endpoint, Distribution distribution) {
        if (endpoint.factory().isEmpty() || endpoint.spec().isEmpty()) {
            return;
        }
        ConnectorFactory factory = endpoint.factory().get();
        List<Problem> problems;
        try {
            problems = factory.lintStream(new StreamShape(streamName, role, endpoint.spec().get().options(),
                    distribution));
        } catch (RuntimeException e) {
            values.findings().error(SpecCode.SPEC024, endpoint.mapping().position(), "the " + factory.name()
                    + " connector failed to lint this stream side" + in(endpoint.where()) + ": "
                    + e.getClass().getSimpleName(), "report this to the connector's maintainers");
            return;
        }
        report(problems, endpoint.mapping(), endpoint.mapping().position(), endpoint.where());
    }

    /** A connector's problems, each at the key it names in {@code mapping} (else at {@code fallback}). */
    private void report(List<Problem> problems, YamlNode.Mapping mapping, Position fallback, String where) {
        for (Problem p : problems) {
            Position at = mapping.entry(p.optionKey()).map(YamlNode.Entry::keyPosition).orElse(fallback);
            Severity severity = switch (p.severity()) {
                case ERROR -> Severity.ERROR;
                case WARNING -> Severity.WARNING;
                case NOTE -> Severity.NOTE;
            };
            values.findings().add(severity, p.code(), at, p.message() + " (" + where + ")", p.fix().orElse(null));
        }
    }
}

// Over 450 lines: the JSON Schema of every spec key and connector option (what each key means is SpecReference's).
package io.sluice.core.spec;

import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Role;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.read.BadRows;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.write.LoadMode;
import io.sluice.spi.write.LoadRequest;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Generates the JSON Schema (draft 2020-12) of spec v1 from the spec's own keys and every installed connector's
 * declared options, so a third-party connector gets editor validation without writing any schema. The published
 * copy lives at {@code specs/sluice-spec-v1.schema.json}; a test fails when it differs from what this produces.
 *
 * <p>Checks the schema cannot express (unique stream names, connection references, a source's options depending on
 * the type of the connection it names) are left to {@code sluice lint}; wherever the schema accepts a value, so does
 * the loader.
 */
public final class SpecSchemaGenerator {
    private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    private static final String INTERPOLATED = "#/$defs/interpolated";

    private final ConnectorRegistry registry;

    public SpecSchemaGenerator(ConnectorRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    /** The schema as pretty-printed JSON with a final newline, byte for byte what is committed. */
    public String render() {
        return MAPPER.writeValueAsString(schema()) + "\n";
    }

    public ObjectNode schema() {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("title", "Sluice spec v1");
        root.put("description", "A Sluice pipeline: connections and the streams that copy data between them. "
                + "Generated from the spec model and the installed connectors; see docs/spec.md.");
        root.put("type", "object");
        root.put("additionalProperties", false);
        strings(root.putArray("required"), SpecKeys.VERSION, SpecKeys.NAME_KEY, SpecKeys.CONNECTIONS,
                SpecKeys.STREAMS);
        ObjectNode props = root.putObject("properties");
        props.putObject(SpecKeys.VERSION).put("const", 1);
        props.putObject(SpecKeys.NAME_KEY).put("type", "string").put("pattern", "^" + SpecKeys.NAME.pattern() + "$");
        props.putObject(SpecKeys.DESCRIPTION).put("type", "string");
        ObjectNode ledger = props.putObject(SpecKeys.LEDGER);
        ArrayNode ledgerKinds = ledger.putArray("anyOf");
        ledgerKinds.addObject().put("type", "boolean");
        strings(ledgerKinds.addObject().putArray("enum"), SpecKeys.LEDGER_VALUES.toArray(String[]::new));
        ledger.put("default", SpecKeys.DEFAULT_LEDGER ? "on" : "off");
        props.set(SpecKeys.MAX_PARALLEL_STREAMS, orInterpolated(MAPPER.createObjectNode().put("type", "integer")
                .put("minimum", 1).put("maximum", SpecKeys.MAX_DEGREE))
                .put("default", RunSettings.DEFAULT.maxParallelStreams()));
        props.putObject(SpecKeys.FAIL_FAST).put("type", "boolean").put("default", RunSettings.DEFAULT.failFast());
        props.set(SpecKeys.BEFORE, runHooks());
        props.set(SpecKeys.AFTER, runHooks());
        ObjectNode connections = props.putObject(SpecKeys.CONNECTIONS).put("type", "object");
        connections.putObject("additionalProperties").put("$ref", "#/$defs/connection");
        props.putObject(SpecKeys.DEFAULTS).put("$ref", "#/$defs/defaults");
        ObjectNode streams = props.putObject(SpecKeys.STREAMS).put("type", "array").put("minItems", 1);
        streams.putObject("items").put("$ref", "#/$defs/stream");
        describe(props, SpecReference.TOP);

        ObjectNode defs = root.putObject("$defs");
        defs.putObject("interpolated")
                .put("description", "A value written with ${VAR}, ${VAR:-default} or ${file:PATH}, checked after "
                        + "expansion.")
                .put("type", "string").put("pattern", "\\$\\{[^}]*\\}");
        defs.set("duration", orInterpolated(MAPPER.createObjectNode().put("type", "string")
                .put("pattern", SpecKeys.DURATION_PATTERN)));
        defs.set("distribution", distribution());
        defs.set("retry", retry());
        ObjectNode defaults = defs.putObject("defaults")
                .put("description", "Stream settings every stream inherits unless it sets them itself.")
                .put("type", "object").put("additionalProperties", false);
        ObjectNode defaultProps = defaults.putObject("properties");
        settings(defaultProps);
        describe(defaultProps, SpecReference.STREAM);
        defs.set("stream", stream());
        defs.set("connection", connection(defs));
        defs.set("source", side(Role.SOURCE, defs));
        defs.set("target", side(Role.TARGET, defs));
        return root;
    }

    private ObjectNode stream() {
        ObjectNode stream = MAPPER.createObjectNode().put("type", "object").put("additionalProperties", false);
        strings(stream.putArray("required"), SpecKeys.NAME_KEY, SpecKeys.SOURCE, SpecKeys.TARGET);
        ObjectNode props = stream.putObject("properties");
        props.putObject(SpecKeys.NAME_KEY).put("type", "string").put("pattern", "^" + SpecKeys.NAME.pattern() + "$");
        props.putObject(SpecKeys.SOURCE).put("$ref", "#/$defs/source");
        props.putObject(SpecKeys.TARGET).put("$ref", "#/$defs/target");
        ObjectNode incremental = props.putObject(SpecKeys.INCREMENTAL).put("type", "object")
                .put("additionalProperties", false);
        ObjectNode kinds = incremental.putObject("properties");
        kinds.putObject(SpecKeys.CURSOR).put("type", "string").put("minLength", 1)
                .put("description", "A column or SQL expression of a table or query source whose values only "
                        + "grow, e.g. updated_at or an id.");
        kinds.putObject(SpecKeys.NEW_FILES).put("type", "boolean").put("const", true)
                .put("description", "For a source of files read one partition per file: skip the files (same "
                        + "name, size and modification time) an earlier successful run loaded.");
        kinds.putObject(SpecKeys.NEW_SNAPSHOTS).put("type", "boolean").put("const", true)
                .put("description", "For an Iceberg or Delta table: load only the data files the table's versions "
                        + "since the last successful run added (appends only; a delete or rewrite in between is "
                        + "refused: run --full-refresh once).");
        ArrayNode oneOf = incremental.putArray("oneOf");
        strings(oneOf.addObject().putArray("required"), SpecKeys.CURSOR);
        strings(oneOf.addObject().putArray("required"), SpecKeys.NEW_FILES);
        strings(oneOf.addObject().putArray("required"), SpecKeys.NEW_SNAPSHOTS);
        columnRules(props);
        props.set(SpecKeys.CHECKS, checks());
        props.set(SpecKeys.BEFORE, hook(null));
        props.set(SpecKeys.AFTER, hook(null));
        settings(props);
        describe(props, SpecReference.STREAM);
        return stream;
    }

    /** Each declared key's meaning ({@link SpecReference}), as the description an editor shows. */
    private static void describe(ObjectNode props, List<SpecKey> keys) {
        for (SpecKey key : keys) {
            if (props.get(key.name()) instanceof ObjectNode node) {
                node.put("description", key.plainMeaning());
            }
        }
    }

    private void settings(ObjectNode props) {
        props.putObject(SpecKeys.DISTRIBUTION).put("$ref", "#/$defs/distribution");
        ObjectNode degree = MAPPER.createObjectNode().put("type", "integer")
                .put("minimum", -SpecKeys.MAX_DEGREE).put("maximum", SpecKeys.MAX_DEGREE);
        degree.putObject("not").put("const", 0);
        props.set(SpecKeys.DEGREE, orInterpolated(degree).put("default", SpecKeys.DEFAULT_DEGREE));
        props.set(SpecKeys.BATCH_SIZE, orInterpolated(MAPPER.createObjectNode().put("type", "integer")
                .put("minimum", 1))
                .put("default", SpecKeys.DEFAULT_ROWS_PER_PARTITION));
        props.set(SpecKeys.LOAD_MODE, choice(SpecKeys.spellings(LoadMode.class),
                SpecKeys.spelling(SpecKeys.DEFAULT_LOAD_MODE)));
        props.set(SpecKeys.MERGE_KEY, stringList(null));
        props.set(SpecKeys.ON_DUPLICATE, choice(SpecKeys.spellings(LoadRequest.OnDuplicate.class),
                "error"));
        props.set(SpecKeys.DELETE_MISSING, orInterpolated(MAPPER.createObjectNode().put("type", "boolean"))
                .put("default", false));
        props.set(SpecKeys.KEEP_PREVIOUS, orInterpolated(MAPPER.createObjectNode().put("type", "boolean"))
                .put("default", false));
        props.set(SpecKeys.INDEXES, choice(SpecKeys.spellings(LoadRequest.Indexes.class), "keep"));
        props.set(SpecKeys.RESET_SEQUENCES, orInterpolated(MAPPER.createObjectNode().put("type", "boolean")));
        props.set(SpecKeys.SCHEMA_CHANGES, choice(SpecKeys.spellings(SchemaChanges.class),
                "fail"));
        ObjectNode rejects = props.putObject(SpecKeys.REJECTS).put("type", "object")
                .put("additionalProperties", false);
        rejects.putArray("required").add(SpecKeys.TABLE);
        ObjectNode rejectProps = rejects.putObject("properties");
        rejectProps.putObject(SpecKeys.TABLE).put("type", "string").put("minLength", 1)
                .put("description", "The rejects table, e.g. public.orders_rejects (unqualified: the target "
                        + "table's schema).");
        rejectProps.set(SpecKeys.MAX_ROWS, orInterpolated(MAPPER.createObjectNode().put("type", "integer")
                .put("minimum", 1)).put("description", "The most rows the stream may set aside in a run."));
        rejectProps.putObject(SpecKeys.MAX_RATIO).put("type", "number").put("exclusiveMinimum", 0).put("maximum", 1)
                .put("description", "The largest share of the rows read so far that may be set aside, judged at "
                        + "each partition's commit, e.g. 0.001.");
        props.set(SpecKeys.NUL_BYTES, choice(SpecKeys.spellings(BadRows.NulBytes.class), "reject"));
        props.set(SpecKeys.COLUMN_MAPPING, choice(SpecKeys.spellings(ColumnMapping.class),
                SpecKeys.spelling(SpecKeys.DEFAULT_COLUMN_MAPPING)));
        props.set(SpecKeys.CONSISTENCY, choice(SpecKeys.spellings(Consistency.class),
                SpecKeys.spelling(SpecKeys.DEFAULT_CONSISTENCY)));
        props.set(SpecKeys.VERIFY, choice(SpecKeys.spellings(VerifyMode.class),
                SpecKeys.spelling(SpecKeys.DEFAULT_VERIFY)));
        props.putObject(SpecKeys.RETRY).put("$ref", "#/$defs/retry");
        props.putObject(SpecKeys.LOCK_TIMEOUT).put("$ref", "#/$defs/duration")
                .put("default", SpecKeys.spelling(SpecKeys.DEFAULT_LOCK_TIMEOUT));
    }

    private ObjectNode checks() {
        ObjectNode list = MAPPER.createObjectNode().put("type", "array");
        ObjectNode check = list.putObject("items").put("type", "object").put("additionalProperties", false);
        ObjectNode props = check.putObject("properties");
        props.putObject(SpecKeys.NAME_KEY).put("type", "string").put("minLength", 1)
                .put("description", "Shown when it fails; default: its kind (a custom sql check needs one).");
        ObjectNode rows = props.putObject(SpecKeys.ROWS).put("type", "object").put("additionalProperties", false)
                .put("minProperties", 1).put("description", "Bounds on the table's row count.");
        ObjectNode bounds = rows.putObject("properties");
        bounds.putObject(SpecKeys.MIN).put("type", "integer").put("minimum", 0);
        bounds.putObject(SpecKeys.MAX).put("type", "integer").put("minimum", 0);
        bounds.putObject(SpecKeys.MIN_RATIO_OF_LAST_RUN).put("type", "number").put("exclusiveMinimum", 0)
                .put("maximum", 1).put("description", "At least this share of the count the last done run checked.");
        props.set(SpecKeys.NOT_NULL, stringList("Target columns that must hold no NULL."));
        props.set(SpecKeys.UNIQUE, stringList("Target columns whose values (together) must be unique."));
        props.putObject(SpecKeys.SQL).put("type", "string").put("minLength", 1).put("description", "A query "
                + "returning one number that must be 0; {table} is the table checked.");
        ArrayNode oneOf = check.putArray("oneOf");
        for (String kind : List.of(SpecKeys.ROWS, SpecKeys.NOT_NULL, SpecKeys.UNIQUE, SpecKeys.SQL)) {
            strings(oneOf.addObject().putArray("required"), kind);
        }
        return list;
    }

    private ObjectNode runHooks() {
        ObjectNode list = MAPPER.createObjectNode().put("type", "array");
        ObjectNode item = list.putObject("items").put("type", "object").put("additionalProperties", false);
        strings(item.putArray("required"), SpecKeys.CONNECTION, SpecKeys.SQL);
        ObjectNode props = item.putObject("properties");
        props.putObject(SpecKeys.CONNECTION).put("type", "string").put("description", "A connection some stream "
                + "loads into.");
        props.set(SpecKeys.SQL, hook("The statements, in order."));
        return list;
    }

    private ObjectNode hook(String description) {
        ObjectNode node = MAPPER.createObjectNode();
        if (description != null) {
            node.put("description", description);
        }
        ArrayNode oneOf = node.putArray("oneOf");
        oneOf.addObject().put("type", "string").put("minLength", 1);
        oneOf.addObject().put("type", "array").put("minItems", 1).putObject("items").put("type", "string")
                .put("minLength", 1);
        return node;
    }

    private void columnRules(ObjectNode props) {
        ObjectNode rule = MAPPER.createObjectNode().put("type", "object").put("additionalProperties", false)
                .put("minProperties", 1);
        ObjectNode keys = rule.putObject("properties");
        keys.putObject(SpecKeys.EXCLUDE_COLUMN).put("type", "boolean")
                .put("description", "true: the column is not read.");
        keys.putObject(SpecKeys.RENAME).put("type", "string").put("minLength", 1)
                .put("description", "The target column it goes to.");
        keys.putObject(SpecKeys.TYPE).put("type", "string").put("minLength", 1)
                .put("description", "The target type of a column the load creates or adds, e.g. numeric(12,2).");
        keys.putObject(SpecKeys.EXPRESSION).put("type", "string").put("minLength", 1)
                .put("description", "SQL the source computes instead of reading the column, e.g. lower(email).");
        keys.set(SpecKeys.MASK, choice(SpecKeys.spellings(ColumnRule.Mask.class), null, "Personal data replaced "
                + "on the source: hash (keyed by mask-key, same value same hash), redact (each character *), null."));
        props.putObject(SpecKeys.COLUMNS).put("type", "object").set("additionalProperties", rule);
        props.set(SpecKeys.MASK_KEY, MAPPER.createObjectNode().put("type", "string").put("pattern", "\\$\\{"));
    }

    private ObjectNode distribution() {
        ObjectNode d = MAPPER.createObjectNode()
                .put("description", "How the source splits the stream into partitions. Default method "
                        + SpecKeys.spelling(SpecKeys.DEFAULT_DISTRIBUTION.method()) + ".")
                .put("type", "object").put("additionalProperties", false);
        strings(d.putArray("required"), SpecKeys.METHOD);
        ObjectNode props = d.putObject("properties");
        List<String> methods = SpecKeys.spellings(DistributionMethod.class);
        props.set(SpecKeys.METHOD, choice(methods, null, "none | ctid | range | ntile | modulo | data-driven."));
        props.putObject(SpecKeys.KEY).put("description", "Column or SQL expression to split on (range, ntile, "
                + "modulo, data-driven).").put("type", "string");
        props.putObject(SpecKeys.VALUES_QUERY).put("description", "data-driven only: a query listing the values, "
                + "one partition each.").put("type", "string");
        List<String> keyed = methods.stream()
                .filter(m -> SpecKeys.parse(DistributionMethod.class, m).needsKey()).toList();
        List<String> unkeyed = methods.stream().filter(m -> !keyed.contains(m)).toList();
        ArrayNode rules = d.putArray("allOf");
        ObjectNode needsKey = rules.addObject();
        methodIs(needsKey.putObject("if"), keyed);
        strings(needsKey.putObject("then").putArray("required"), SpecKeys.KEY);
        ObjectNode noKey = rules.addObject();
        methodIs(noKey.putObject("if"), unkeyed);
        strings(noKey.putObject("then").putObject("not").putArray("required"), SpecKeys.KEY);
        ObjectNode onlyDataDriven = rules.addObject();
        methodIs(onlyDataDriven.putObject("if"), methods.stream().filter(m -> !m.equals("data-driven")).toList());
        strings(onlyDataDriven.putObject("then").putObject("not").putArray("required"), SpecKeys.VALUES_QUERY);
        return d;
    }

    private static void methodIs(ObjectNode condition, List<String> methods) {
        strings(condition.putObject("properties").putObject(SpecKeys.METHOD).putArray("enum"),
                methods.toArray(String[]::new));
        strings(condition.putArray("required"), SpecKeys.METHOD);
    }

    private ObjectNode retry() {
        ObjectNode r = MAPPER.createObjectNode()
                .put("description", "Retries of a partition after a transient failure, with exponential backoff.")
                .put("type", "object").put("additionalProperties", false);
        ObjectNode props = r.putObject("properties");
        props.set(SpecKeys.MAX_ATTEMPTS, orInterpolated(MAPPER.createObjectNode().put("type", "integer")
                .put("minimum", 1).put("maximum", SpecKeys.MAX_ATTEMPTS_LIMIT))
                .put("description", "Attempts in all, the first included.")
                .put("default", RetrySpec.DEFAULT.maxAttempts()));
        props.putObject(SpecKeys.INITIAL_BACKOFF).put("$ref", "#/$defs/duration")
                .put("description", "Wait before the first retry, e.g. 500ms, 1s, 2m, 1h.")
                .put("default", SpecKeys.spelling(RetrySpec.DEFAULT.initialBackoff()));
        props.putObject(SpecKeys.MAX_BACKOFF).put("$ref", "#/$defs/duration")
                .put("description", "Longest wait between retries.")
                .put("default", SpecKeys.spelling(RetrySpec.DEFAULT.maxBackoff()));
        return r;
    }

    /** Any connection: {@code type} picks the connector, whose options then apply. */
    private ObjectNode connection(ObjectNode defs) {
        ObjectNode c = MAPPER.createObjectNode().put("type", "object");
        strings(c.putArray("required"), SpecKeys.TYPE);
        ObjectNode type = c.putObject("properties").putObject(SpecKeys.TYPE)
                .put("description", "The connector: one of the installed ones.");
        strings(type.putArray("enum"), registry.all().stream().map(ConnectorFactory::name).toArray(String[]::new));
        ArrayNode byType = c.putArray("allOf");
        for (ConnectorFactory factory : registry.all()) {
            String def = "connection-" + factory.name();
            ObjectNode typed = options(factory.connectionOptions(), factory.description());
            ((ObjectNode) typed.get("properties")).putObject(SpecKeys.TYPE).put("const", factory.name());
            defs.set(def, typed);
            ObjectNode rule = byType.addObject();
            ObjectNode condition = rule.putObject("if");
            condition.putObject("properties").putObject(SpecKeys.TYPE).put("const", factory.name());
            strings(condition.putArray("required"), SpecKeys.TYPE);
            rule.putObject("then").put("$ref", "#/$defs/" + def);
        }
        return c;
    }

    /**
     * A stream side: any installed connector's options for that role. Which one applies depends on the type of the
     * connection it names, which JSON Schema cannot follow; lint checks the exact fit.
     */
    private ObjectNode side(Role role, ObjectNode defs) {
        ObjectNode s = MAPPER.createObjectNode().put("type", "object");
        strings(s.putArray("required"), SpecKeys.CONNECTION);
        s.putObject("properties").putObject(SpecKeys.CONNECTION)
                .put("description", "Name of an entry of connections:.").put("type", "string");
        ArrayNode any = s.putArray("anyOf");
        String side = role.name().toLowerCase(java.util.Locale.ROOT);
        for (ConnectorFactory factory : registry.all()) {
            if (!factory.roles().contains(role)) {
                continue;
            }
            String def = side + "-" + factory.name();
            OptionSchema schema = role == Role.SOURCE ? factory.sourceOptions() : factory.targetOptions();
            ObjectNode typed = options(schema, factory.name() + " " + side + " options.");
            ((ObjectNode) typed.get("properties")).putObject(SpecKeys.CONNECTION).put("type", "string");
            defs.set(def, typed);
            any.addObject().put("$ref", "#/$defs/" + def);
        }
        if (any.isEmpty()) {
            s.remove("anyOf");
        }
        return s;
    }

    private ObjectNode options(OptionSchema schema, String description) {
        ObjectNode o = MAPPER.createObjectNode().put("type", "object").put("additionalProperties", false);
        if (!description.isEmpty()) {
            o.put("description", description);
        }
        ObjectNode props = o.putObject("properties");
        ArrayNode required = MAPPER.createArrayNode();
        for (Option<?> option : schema.options()) {
            props.set(option.key(), option(option));
            if (option.isRequired()) {
                required.add(option.key());
            }
        }
        if (!required.isEmpty()) {
            o.set("required", required);
        }
        return o;
    }

    /** A list of non-empty strings, or one string for a list of one. */
    private ObjectNode stringList(String description) {
        ObjectNode node = MAPPER.createObjectNode();
        ArrayNode oneOf = node.putArray("oneOf");
        oneOf.addObject().put("type", "string").put("minLength", 1);
        ObjectNode list = oneOf.addObject().put("type", "array").put("minItems", 1);
        list.putObject("items").put("type", "string").put("minLength", 1);
        if (description != null) {
            node.put("description", description);
        }
        return node;
    }

    private ObjectNode option(Option<?> option) {
        ObjectNode node = switch (option.type()) {
            case STRING -> option.allowedValues().isEmpty()
                    ? MAPPER.createObjectNode().put("type", "string")
                    : choice(option.allowedValues(), null, null);
            case INTEGER -> orInterpolated(MAPPER.createObjectNode().put("type", "integer"));
            case BOOLEAN -> orInterpolated(MAPPER.createObjectNode().put("type", "boolean"));
            case STRING_LIST -> stringList(null);
            case STRING_MAP -> {
                ObjectNode map = MAPPER.createObjectNode().put("type", "object");
                strings(map.putObject("additionalProperties").putArray("type"), "string", "number", "boolean");
                yield map;
            }
            case OBJECT -> options(option.nested().orElseThrow(), "");
        };
        String description = option.description() + (option.isSecret()
                ? (option.description().isEmpty() ? "" : " ") + "Secret: never printed; write it as ${VAR} or "
                + "${file:PATH}." : "");
        if (!description.isEmpty()) {
            node.put("description", description);
        }
        option.defaultValue().ifPresent(v -> {
            switch (v) {
                case String s -> node.put("default", s);
                case Long l -> node.put("default", l);
                case Boolean b -> node.put("default", b);
                case Map<?, ?> m -> {
                    ObjectNode map = node.putObject("default");
                    m.forEach((k, val) -> map.put(String.valueOf(k), String.valueOf(val)));
                }
                default -> {
                    // OBJECT defaults have no JSON form; the connector applies them.
                }
            }
        });
        return node;
    }

    private ObjectNode choice(List<String> values, String defaultValue) {
        return choice(values, defaultValue, null);
    }

    private ObjectNode choice(List<String> values, String defaultValue, String description) {
        ObjectNode enumNode = MAPPER.createObjectNode();
        strings(enumNode.putArray("enum"), values.toArray(String[]::new));
        ObjectNode node = orInterpolated(enumNode);
        if (description != null) {
            node.put("description", description);
        }
        if (defaultValue != null) {
            node.put("default", defaultValue);
        }
        return node;
    }

    /** The loader expands ${...} before it checks a value, so the schema accepts one wherever a value goes. */
    private static ObjectNode orInterpolated(ObjectNode schema) {
        ObjectNode node = MAPPER.createObjectNode();
        ArrayNode any = node.putArray("anyOf");
        any.add(schema);
        any.addObject().put("$ref", INTERPOLATED);
        return node;
    }

    private static void strings(ArrayNode array, String... values) {
        for (String v : values) {
            array.add(v);
        }
    }
}

package io.sluice.core.plan;

import io.sluice.core.RunnerCode;
import io.sluice.core.SluiceException;
import io.sluice.core.spec.ColumnRule;
import io.sluice.core.spec.ColumnRules;
import io.sluice.spi.changes.ChangeSource;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.ColumnPair;
import io.sluice.spi.data.LineageDataset;
import io.sluice.spi.data.LockWaits;
import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.error.SpiCode;
import io.sluice.spi.read.ComputedColumns;
import io.sluice.spi.read.Consistency;
import io.sluice.spi.read.CursorReads;
import io.sluice.spi.read.PlanRequest;
import io.sluice.spi.read.SnapshotGroup;
import io.sluice.spi.read.Source;
import io.sluice.spi.read.SourcePartition;
import io.sluice.spi.read.SourceProjection;
import io.sluice.spi.read.SourceSession;
import io.sluice.spi.read.TableVersions;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * A source seen through its stream's {@code columns:} rules: excluded columns are gone, renamed ones carry the target
 * name, computed and masked ones are expressions the source evaluates ({@link Column#expression()}), so the source's
 * own projection reads them and the bytes on the wire are already shaped. Everything else is the source's. Only a
 * stream with rules is wrapped: one without costs nothing.
 */
public final class ShapedSource implements Source {
    private static final Pattern TEXT = Pattern.compile("text|character varying.*|character.*|varchar.*|citext|name|"
            + "string", Pattern.CASE_INSENSITIVE);

    private final Source source;
    private final ColumnRules rules;
    private final String stream;
    private volatile List<Column> columns;

    private ShapedSource(Source source, ColumnRules rules, String stream) {
        this.source = requireNonNull(source, "source is null");
        this.rules = requireNonNull(rules, "rules is null");
        this.stream = requireNonNull(stream, "stream is null");
    }

    /** {@code source} under {@code rules}; the source itself when there are none. */
    public static Source of(Source source, ColumnRules rules, String stream) {
        return rules.isEmpty() ? source : new ShapedSource(source, rules, stream);
    }

    /** The connector's own source behind any rules: what only it may be handed (a snapshot shared by its kind). */
    public static Source unwrap(Source source) {
        return source instanceof ShapedSource shaped ? shaped.source : source;
    }

    @Override
    public String describe() {
        return source.describe();
    }

    @Override
    public List<Column> columns() throws ConnectorException {
        List<Column> known = columns;
        if (known == null) {
            known = shape(source.columns());
            columns = known;
        }
        return known;
    }

    private List<Column> shape(List<Column> read) throws ConnectorException {
        List<Column> shaped = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (ColumnRule rule : rules.rules()) {
            if (read.stream().noneMatch(c -> c.name().equalsIgnoreCase(rule.column()))) {
                missing.add(rule.column());
            }
        }
        if (!missing.isEmpty() && !rules.forPattern()) {
            throw refused("columns: rules name source columns that " + source.describe() + " does not have: "
                    + String.join(", ", missing) + " (its columns: " + String.join(", ", read.stream()
                    .map(Column::name).toList()) + ")", "name columns as the source spells them");
        }
        for (Column column : read) {
            Optional<ColumnRule> rule = rules.of(column.name());
            if (rule.isEmpty()) {
                shaped.add(column);
            } else if (!rule.get().exclude()) {
                shaped.add(apply(column, rule.get()));
            }
        }
        return List.copyOf(shaped);
    }

    private Column apply(Column column, ColumnRule rule) throws ConnectorException {
        String name = rule.targetName();
        String reference = quoted(column.name());
        if (rule.expression().isPresent()) {
            return computed(name, rule.expression().get());
        }
        if (rule.mask().isEmpty()) {
            return column.readAs(name, reference);
        }
        ColumnRule.Mask mask = rule.mask().get();
        if (mask == ColumnRule.Mask.NULL) {
            // Of the column's own type whatever the dialect: a CASE with no branch taken.
            return new Column(name, column.typeName(), column.copyTypeOid(), true, Column.Generation.NONE,
                    Optional.of("CASE WHEN 1 = 0 THEN " + reference + " END"));
        }
        if (!TEXT.matcher(column.typeName()).matches()) {
            throw refused("columns: mask: " + mask.name().toLowerCase(Locale.ROOT) + " on column " + column.name()
                    + ", which is " + column.typeName() + ", not text", "mask text columns only; use mask: null, "
                    + "or an expression (e.g. expression: \"0\") for others");
        }
        if (mask == ColumnRule.Mask.REDACT) {
            return computed(name, "CASE WHEN " + reference + " IS NULL THEN NULL ELSE repeat('*', length("
                    + reference + ")) END");
        }
        String key = rules.maskKey().orElseThrow(() -> refused("columns: mask: hash on column " + column.name()
                + " without a mask-key", "add mask-key: ${MASK_KEY} to the stream"));
        return computed(name, computing("cannot hash columns", "use mask: redact or mask: null")
                .keyedHash(reference, "'" + key.replace("'", "''") + "'"));
    }

    private Column computed(String name, String expression) throws ConnectorException {
        Column described = computing("cannot compute columns from expressions",
                "remove the expression and mask rules from the stream's columns:").expressionColumn(name, expression);
        return new Column(name, described.typeName(), described.copyTypeOid(), true, Column.Generation.NONE,
                Optional.of(expression));
    }

    /** Both connectors' SQL quotes identifiers the standard way. */
    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** The source's {@link ComputedColumns}, or SPI009 (as a connector would say it) when it has none. */
    private ComputedColumns computing(String cannot, String fix) throws ConnectorException {
        return source.computedColumns().orElseThrow(() -> new ConnectorException(ErrorKind.INVALID_SPEC,
                SpiCode.SPI009, source.describe() + " " + cannot, fix));
    }

    private SluiceException refused(String message, String fix) {
        return new SluiceException(ErrorKind.INVALID_SPEC, RunnerCode.MAP005, "stream '" + stream + "': " + message,
                fix);
    }

    /** The shaped columns typed as a created table gets them; a rule's {@code type} wins. */
    @Override
    public List<Column> copyColumns() throws ConnectorException {
        List<Column> typed = new ArrayList<>();
        for (Column column : columns()) {
            Optional<String> type = rules.rules().stream().filter(r -> !r.exclude()
                    && r.targetName().equals(column.name())).findFirst().flatMap(ColumnRule::type);
            typed.add(type.isPresent() ? new Column(column.name(), type.get(), 0, column.nullable(),
                    Column.Generation.NONE, column.expression()) : source.copyColumn(column));
        }
        return typed;
    }

    @Override
    public Column copyColumn(Column column) throws ConnectorException {
        return source.copyColumn(column);
    }

    /** A created table gets the shaped columns only: the source table's definition names columns it no longer has. */
    @Override
    public Optional<TableDefinition> tableDefinition() {
        return Optional.empty();
    }

    @Override
    public SourceProjection project(List<ColumnPair> pairs) throws ConnectorException {
        return source.project(pairs);
    }

    @Override
    public List<SourcePartition> plan(PlanRequest request) throws ConnectorException {
        return source.plan(request);
    }

    @Override
    public Optional<SourcePartition> restore(String checkpoint) throws ConnectorException {
        return source.restore(checkpoint);
    }

    @Override
    public String readStatement(SourcePartition partition, SourceProjection projection) {
        return source.readStatement(partition, projection);
    }

    @Override
    public SourceSession openSession(Consistency consistency) throws ConnectorException {
        return source.openSession(consistency);
    }

    @Override
    public void checkSnapshot(int readers) throws ConnectorException {
        source.checkSnapshot(readers);
    }

    @Override
    public Optional<SnapshotGroup> snapshotGroup() {
        return source.snapshotGroup(); // the connector's own: exporting needs no unwrapping
    }

    @Override
    public Optional<ChangeSource> changes() {
        return source.changes(); // the connector's own: its group operations need no unwrapping
    }

    @Override
    public Set<RelationIdentity> relations() throws ConnectorException {
        return source.relations();
    }

    @Override
    public void waitForLocks(LockWaits waits) {
        source.waitForLocks(waits);
    }

    @Override
    public Optional<CursorReads> cursorReads() {
        return source.cursorReads();
    }

    @Override
    public Optional<TableVersions> tableVersions() {
        return source.tableVersions();
    }

    @Override
    public Optional<String> typeDefinition(String typeName) throws ConnectorException {
        return source.typeDefinition(typeName);
    }

    @Override
    public Optional<RelationIdentity> copiedTable() throws ConnectorException {
        return source.copiedTable();
    }

    @Override
    public List<LineageDataset> lineageInputs() throws ConnectorException {
        return source.lineageInputs();
    }

    @Override
    public Optional<ComputedColumns> computedColumns() {
        return source.computedColumns();
    }
}

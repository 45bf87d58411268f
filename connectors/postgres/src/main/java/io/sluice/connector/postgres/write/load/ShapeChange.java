package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.ResolvedTable;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.catalog.TargetCatalog;
import io.sluice.connector.postgres.catalog.TypeWidth;
import io.sluice.connector.postgres.catalog.UnknownEarlierRows;

import io.sluice.connector.postgres.catalog.TypeLoss;
import io.sluice.spi.data.Column;
import io.sluice.spi.data.SchemaChanges;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LedgerTransaction;
import io.sluice.spi.ledger.LoadMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * {@code schema-changes: add-columns | widen}: the columns a table that exists gets because its source changed, as
 * one {@code ALTER TABLE} run before the first partition in the transaction that prepares the load, with its mark (a
 * crash leaves the table changed and marked, or neither; a later run plans against the table as it then is, so it
 * never changes it twice). A replace applies it to its shadow instead: the live table keeps its shape until the swap.
 */
final class ShapeChange implements LoadStep {

    /**
     * One column's change. {@code type}: the added column's, or the widened one's; {@code from}: the type before;
     * {@code earlierRows}: for an added column, the value the source's rows from before it hold (text form).
     */
    record Change(String column, String type, Optional<String> from, Optional<String> earlierRows) {
        Change {
            requireNonNull(column, "column is null");
            requireNonNull(type, "type is null");
            requireNonNull(from, "from is null");
            requireNonNull(earlierRows, "earlierRows is null");
        }

        Change(String column, String type, Optional<String> from) {
            this(column, type, from, Optional.empty());
        }

        String clause() {
            String quoted = SqlQuote.identifier(column);
            // The rows copied before get the value their source rows hold (as a default only while it is added).
            return from.isEmpty() ? "ADD COLUMN IF NOT EXISTS " + quoted + " " + type + earlierRows.map(v ->
                    " DEFAULT " + SqlQuote.literal(v)).orElse("") : "ALTER COLUMN " + quoted + " TYPE " + type;
        }

        String summary(String table) {
            return from.isEmpty() ? "added column " + column + " " + type + " to " + table
                    : "widened column " + column + " of " + table + " from " + from.get() + " to " + type;
        }
    }

    /**
     * What the table looks like to the load after the change, the change, what the plan says of the shape, and the
     * target columns no source column feeds and nothing fills ({@code unfed}): a row the load writes holds NULL there,
     * a row a merge updates too.
     */
    record Planned(List<Column> columns, List<Change> changes, List<String> notes, List<String> unfed) {
        Planned {
            columns = List.copyOf(requireNonNull(columns, "columns is null"));
            changes = List.copyOf(requireNonNull(changes, "changes is null"));
            notes = List.copyOf(requireNonNull(notes, "notes is null"));
            unfed = List.copyOf(requireNonNull(unfed, "unfed is null"));
        }

        Planned(List<Column> columns, List<Change> changes) {
            this(columns, changes, List.of(), List.of());
        }
    }

    private final LoadTable table;
    private final List<Change> changes;
    private final boolean onShadow;

    ShapeChange(LoadTable table, List<Change> changes, boolean onShadow) {
        this.table = requireNonNull(table, "table is null");
        this.changes = List.copyOf(requireNonNull(changes, "changes is null"));
        this.onShadow = onShadow;
    }

    /**
     * Compares the source's columns (typed as a created table would type them) with the table's, by name (exact,
     * then ignoring case, as the columns map), and plans what {@code policy} makes of every difference; whatever no
     * policy may follow is refused at once, every such difference listed.
     */
    static Planned plan(SchemaChanges policy, boolean newRowsOnly, ResolvedTable existing, String quoted,
                        List<Column> source, List<Column> target, Connection c, CreateTable.TypeDefinitions types)
            throws SQLException, ConnectorException {
        if (source.isEmpty()) { // under fail, a source that cannot type its columns: nothing to compare
            return new Planned(target, List.of());
        }
        refuseSilentChanges(policy, quoted, source, target);
        List<String> notes = new ArrayList<>();
        List<Column> unfed = unfed(source, target, Set.of());
        if (!unfed.isEmpty()) { // the catalog is asked only then: a pattern's tables cost no statement more
            unfed = unfed(source, target, defaulted(c, existing.oid()));
        }
        boolean sourceUnmatched = source.stream().anyMatch(s -> byName(target, s.name()).isEmpty());
        // A source column the target lacks is the column mapping's refusal (MAP001, e.g. a rename onto a new name):
        // told first, with its own fix; what stays unfed after it is told on the next plan.
        if (!unfed.isEmpty() && policy == SchemaChanges.FAIL && !sourceUnmatched) {
            String names = String.join(", ", unfed.stream().map(t -> SqlQuote.identifier(t.name())).toList());
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG230, "target column(s) " + names + " of "
                    + quoted + " have no source column of that name (dropped at the source, or never there) and no "
                    + "default: every row the load writes would hold NULL there, and schema-changes is fail",
                    "drop them from the target (" + String.join("; ", unfed.stream().map(t -> "ALTER TABLE " + quoted
                            + " DROP COLUMN " + SqlQuote.identifier(t.name())).toList()) + "), or give them a "
                            + "default, or set schema-changes: add-columns (or ignore-new) to load them as NULL");
        }
        for (Column t : unfed) {
            notes.add("target column " + SqlQuote.identifier(t.name()) + " has no source column: the rows this run "
                    + "writes hold NULL there (schema-changes: " + policy.name().toLowerCase(Locale.ROOT)
                    .replace('_', '-') + ")");
        }
        List<String> unfedNames = unfed.stream().map(Column::name).toList();
        if (policy == SchemaChanges.FAIL) {
            // The column mapping says what else differs, with the fix.
            return new Planned(target, List.of(), notes, unfedNames);
        }
        List<Column> columns = new ArrayList<>(target);
        List<Change> changes = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        Set<String> missingTypes = new LinkedHashSet<>();
        Set<Column> matched = new HashSet<>();
        PostgresCatalog catalog = new PostgresCatalog(c);
        List<Column> unknownEarlier = new ArrayList<>();
        for (Column s : source) {
            Optional<Column> match = byName(target, s.name());
            if (match.isEmpty()) {
                if (!policy.altersTarget()) {
                    continue; // ignore-new: the mapping leaves it unread
                }
                if (catalog.typeOid(s.typeName()).isEmpty()) {
                    refused.add("new source column " + SqlQuote.identifier(s.name()) + " is " + s.typeName()
                            + ", a type the target database does not have");
                    types.of(s.typeName().replaceAll("(\\[\\])+$", "")).ifPresent(missingTypes::add);
                    continue;
                }
                if (s.earlierRows().perRow() && newRowsOnly) {
                    unknownEarlier.add(s);
                }
                changes.add(new Change(s.name(), s.typeName(), Optional.empty(), s.earlierRows().oneValue()));
                columns.add(new Column(s.name(), s.typeName(), s.copyTypeOid(), true, Column.Generation.NONE));
                continue;
            }
            Column t = match.get();
            matched.add(t);
            if (t.isGenerated() || policy != SchemaChanges.WIDEN) {
                continue; // types as today: the source casts, the target enforces its own on every value
            }
            switch (TypeWidth.fit(s.typeName(), t.typeName())) {
                case FITS -> {
                }
                case WIDENS -> {
                    String wider = TypeWidth.widened(s.typeName(), t.typeName()).orElseThrow();
                    changes.add(new Change(t.name(), wider, Optional.of(t.typeName())));
                    columns.set(columns.indexOf(t), new Column(t.name(), wider, catalog.typeOid(wider)
                            .map(Long::intValue).orElse(0), t.nullable(), t.generation()));
                }
                case INCOMPATIBLE -> refused.add("source column " + SqlQuote.identifier(s.name()) + " is "
                        + s.typeName() + " and target column " + SqlQuote.identifier(t.name()) + " is "
                        + t.typeName() + ": no widening of " + t.typeName() + " holds every " + s.typeName()
                        + " value");
            }
        }
        if (!unknownEarlier.isEmpty() && new TargetCatalog(c).hasRows(quoted)) {
            throw UnknownEarlierRows.refusal(quoted, unknownEarlier, "an incremental run reads only the rows past the last "
                    + "run's", "run once with --full-refresh (a merge then writes the column into every row the "
                    + "source has)");
        }
        Set<String> defaulted = defaulted(c, existing.oid());
        for (Column t : target) {
            if (!matched.contains(t) && !t.nullable() && !t.isGenerated()
                    && t.generation() != Column.Generation.IDENTITY && !defaulted.contains(t.name())) {
                refused.add("target column " + SqlQuote.identifier(t.name()) + " is NOT NULL without a default, "
                        + "and the source has no column of that name to fill it");
            }
        }
        if (!refused.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG225, "schema-changes: "
                    + policy.name().toLowerCase(Locale.ROOT).replace('_', '-') + " cannot follow the source into "
                    + quoted + ": " + String.join("; ", refused), missingTypes.isEmpty()
                    ? "change the target table by hand, read the column converted from a source query, or let the "
                    + "column take NULL (ALTER TABLE " + quoted + " ALTER COLUMN ... DROP NOT NULL)"
                    : "create the types in the target database first: " + String.join("; ", missingTypes));
        }
        return new Planned(columns, changes, notes, unfedNames);
    }

    /**
     * PG229: a source column whose values the target column's type would change without an error (numeric scale,
     * float into numeric, fractional seconds), under any policy; {@code widen} widens those it can instead.
     */
    private static void refuseSilentChanges(SchemaChanges policy, String quoted, List<Column> source,
                                            List<Column> target) throws ConnectorException {
        List<String> lossy = new ArrayList<>();
        List<String> widenings = new ArrayList<>();
        for (Column s : source) {
            Optional<Column> match = byName(target, s.name());
            if (match.isEmpty() || match.get().isGenerated()) {
                continue;
            }
            Column t = match.get();
            Optional<String> loss = TypeLoss.of(s.typeName(), t.typeName());
            if (loss.isEmpty()) {
                continue;
            }
            boolean widens = TypeWidth.fit(s.typeName(), t.typeName()) == TypeWidth.Fit.WIDENS;
            if (policy == SchemaChanges.WIDEN && widens) {
                continue;
            }
            lossy.add("source column " + SqlQuote.identifier(s.name()) + " is " + s.typeName() + " and target column "
                    + SqlQuote.identifier(t.name()) + " is " + t.typeName() + ": " + loss.get());
            widenings.add("ALTER TABLE " + quoted + " ALTER COLUMN " + SqlQuote.identifier(t.name()) + " TYPE "
                    + (widens ? TypeWidth.widened(s.typeName(), t.typeName()).orElseThrow() : s.typeName()));
        }
        if (!lossy.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG229, "the load would change values "
                    + "without an error: " + String.join("; ", lossy), "widen the target so every value fits ("
                    + String.join("; ", widenings) + "; schema-changes: widen does it for numbers), or convert on "
                    + "purpose with a columns: rule (an expression such as round(...), or a type)");
        }
    }

    /** Target columns no source column feeds that nothing else fills (no default, not generated, not identity). */
    private static List<Column> unfed(List<Column> source, List<Column> target, Set<String> defaulted) {
        Set<Column> matched = new HashSet<>();
        for (Column s : source) {
            byName(target, s.name()).ifPresent(matched::add);
        }
        return target.stream().filter(t -> !matched.contains(t) && !t.isGenerated()
                && t.generation() != Column.Generation.IDENTITY && !defaulted.contains(t.name())).toList();
    }

    /** Exact name first, then ignoring case when that is unambiguous: as the column mapping matches. */
    private static Optional<Column> byName(List<Column> columns, String name) {
        Optional<Column> exact = columns.stream().filter(c -> c.name().equals(name)).findFirst();
        if (exact.isPresent()) {
            return exact;
        }
        List<Column> folded = columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).toList();
        return folded.size() == 1 ? Optional.of(folded.getFirst()) : Optional.empty();
    }

    private static Set<String> defaulted(Connection c, long tableOid) throws SQLException {
        Set<String> names = new HashSet<>();
        try (PreparedStatement p = c.prepareStatement("SELECT attname FROM pg_attribute WHERE attrelid = ? "
                + "AND attnum > 0 AND NOT attisdropped AND atthasdef")) {
            p.setLong(1, tableOid);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    boolean isEmpty() {
        return changes.isEmpty();
    }

    /**
     * The statement that changes {@code relation} (quoted), all columns at once (one table rewrite at most), then the
     * one that drops the defaults that gave the rows already there their values (kept by PostgreSQL as the column's
     * value for them, no rewrite).
     */
    List<String> statements(String relation) {
        if (changes.isEmpty()) {
            return List.of();
        }
        List<String> statements = new ArrayList<>();
        statements.add("ALTER TABLE " + relation + " " + String.join(", ", changes.stream().map(Change::clause)
                .toList()));
        List<String> defaults = changes.stream().filter(change -> change.earlierRows().isPresent())
                .map(change -> "ALTER COLUMN " + SqlQuote.identifier(change.column()) + " DROP DEFAULT").toList();
        if (!defaults.isEmpty()) {
            statements.add("ALTER TABLE " + relation + " " + String.join(", ", defaults));
        }
        return statements;
    }

    /** One line per change, as the run's summary records them. */
    List<String> summary() {
        String name = table.schema() + "." + table.name();
        return changes.stream().map(change -> change.summary(name)).toList();
    }

    /** Applies the change to {@code relation} in {@code c}'s transaction and marks it, unless it is marked already. */
    void apply(Connection c, String relation, Map<String, String> done, LoadMarks marks, LedgerTransaction tx)
            throws SQLException, ConnectorException {
        String summary = String.join("\n", summary());
        if (changes.isEmpty() || summary.equals(done.get(LoadMarks.SCHEMA_CHANGES))) {
            return;
        }
        for (String statement : statements(relation)) {
            LoadTable.execute(c, statement);
        }
        marks.writing(LoadMarks.SCHEMA_CHANGES, summary).apply(tx);
    }

    @Override
    public void describe(List<String> statements) {
        if (!onShadow) {
            statements.addAll(statements(table.quoted()));
        }
    }

    @Override
    public boolean begins() {
        return !onShadow && !changes.isEmpty();
    }

    @Override
    public void begin(Connection c, TargetCatalog target, Map<String, String> done, LoadMarks marks,
                      LedgerTransaction tx) throws SQLException, ConnectorException {
        if (!onShadow) {
            apply(c, table.quoted(), done, marks, tx);
        }
    }
}

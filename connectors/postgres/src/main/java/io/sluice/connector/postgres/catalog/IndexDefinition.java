package io.sluice.connector.postgres.catalog;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One index of a table as the catalog defines it, enough to build it again identically: {@code pg_get_indexdef}'s
 * statement, and the constraint it backs (primary key, unique, exclusion) if any.
 *
 * @param definition  {@code pg_get_indexdef}: CREATE [UNIQUE] INDEX name ON table USING ...
 * @param method      the part from {@code USING} on, which does not name the index or its table
 * @param columns     the key columns, empty when the index has expressions
 * @param plainUnique unique, without a predicate or expressions: what {@code ON CONFLICT (columns)} can use
 * @param referenced  a foreign key of another table depends on it, so it cannot be dropped
 */
public record IndexDefinition(String name, String definition, String method, Optional<Constraint> constraint,
                       List<String> columns, boolean plainUnique, boolean referenced) {
    public IndexDefinition {
        requireNonNull(name, "name is null");
        requireNonNull(definition, "definition is null");
        requireNonNull(method, "method is null");
        requireNonNull(constraint, "constraint is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }

    /** The constraint an index backs: its name, type ('p', 'u' or 'x') and {@code pg_get_constraintdef}. */
    public record Constraint(String name, char type, String definition) {
        public Constraint {
            requireNonNull(name, "name is null");
            requireNonNull(definition, "definition is null");
        }
    }

    /** Whether the index refuses duplicates (with or without a predicate or expressions). */
    public boolean unique() {
        return definition.startsWith("CREATE UNIQUE ");
    }

    /** The statement that drops this index from {@code table} (quoted) in {@code schema}: its constraint, if it backs one. */
    public String dropStatement(String table, String schema) {
        return constraint.isPresent() ? "ALTER TABLE " + table + " DROP CONSTRAINT " + SqlQuote.identifier(name)
                : "DROP INDEX " + SqlQuote.identifier(schema) + "." + SqlQuote.identifier(name);
    }

    /** The statements that build this index as {@code indexName} on {@code table} (quoted), constraint included. */
    public List<String> buildOn(String table, String indexName) {
        String create = "CREATE " + (unique() ? "UNIQUE " : "") + "INDEX "
                + SqlQuote.identifier(indexName) + " ON " + table + " " + method;
        if (constraint.isEmpty()) {
            return List.of(create);
        }
        Constraint c = constraint.get();
        if (c.type() == 'x') { // an exclusion constraint builds its own index; USING INDEX cannot take one
            return List.of("ALTER TABLE " + table + " ADD CONSTRAINT " + SqlQuote.identifier(indexName) + " "
                    + c.definition());
        }
        // pgcopydb's way: the index first (it may run beside others), the constraint then adopts it in a moment.
        return List.of(create, "ALTER TABLE " + table + " ADD CONSTRAINT " + SqlQuote.identifier(indexName) + " "
                + (c.type() == 'p' ? "PRIMARY KEY" : "UNIQUE") + " USING INDEX " + SqlQuote.identifier(indexName)
                + deferrable(c.definition()));
    }

    private static String deferrable(String constraintDefinition) {
        int at = constraintDefinition.indexOf(" DEFERRABLE");
        return at < 0 ? "" : constraintDefinition.substring(at);
    }
}

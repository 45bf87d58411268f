package io.sluice.spi.read;

import io.sluice.spi.data.RelationIdentity;
import io.sluice.spi.data.TableDefinition;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One object of a source schema beyond its tables (a function, a view, a trigger, a policy...), as PostgreSQL DDL
 * read from the source's catalog with every name schema-qualified, for a target that carries a whole schema
 * ({@code objects: all}). The statements are the server's own text where it has a function for it
 * ({@code pg_get_functiondef}, {@code pg_get_viewdef}, {@code pg_get_triggerdef}, {@code pg_get_ruledef}, policy
 * expressions through {@code pg_get_expr}).
 *
 * @param kind       what it is
 * @param key        equal for the same object only; a view's is its {@link RelationIdentity#key()}
 * @param name       for people, qualified, e.g. {@code "public"."film_list"}
 * @param table      the table it belongs to (a trigger's, a rule's, a policy's), qualified as the source names it
 * @param identity   what a target looks it up by to tell whether it exists: a relation's qualified name, a routine's
 *                   {@code regprocedure} text, a trigger's, rule's or policy's own name on {@code table}
 * @param statements what creates it, in order (its comment, a materialized view's indexes, a disabled trigger's
 *                   {@code ALTER TABLE} included); a materialized view is created empty, to be refreshed after the load
 * @param uses       the keys of what it needs first: other objects of the list and the tables it reads or belongs
 *                   to ({@link RelationIdentity#key()}, a partition's its root's)
 * @param roles      the roles it names (a policy's), which the target server must have
 * @param owner      the role that owns it on the source (a routine's, a view's); empty for what has no owner of its own
 * @param privileges where the source set its privileges (not the defaults): what its owner granted others (a
 *                   grantee empty for PUBLIC; no column); empty where it has the defaults or no privileges of its own
 */
public record SchemaObject(Kind kind, String key, String name, Optional<String> table, String identity,
                           List<String> statements, Set<String> uses, Set<String> roles, Optional<String> owner,
                           Optional<List<TableDefinition.Grant>> privileges) {
    public SchemaObject {
        requireNonNull(kind, "kind is null");
        requireNonNull(key, "key is null");
        requireNonNull(name, "name is null");
        requireNonNull(table, "table is null");
        requireNonNull(identity, "identity is null");
        statements = List.copyOf(requireNonNull(statements, "statements is null"));
        uses = Set.copyOf(requireNonNull(uses, "uses is null"));
        roles = Set.copyOf(requireNonNull(roles, "roles is null"));
        requireNonNull(owner, "owner is null");
        privileges = requireNonNull(privileges, "privileges is null").map(List::copyOf);
    }

    /** The kinds carried, in the order objects of no dependency between them are created. */
    public enum Kind {
        /** The schema itself: its owner, grants and comment, given when the run creates it. */
        SCHEMA("schema"),
        /** The schema's enums, domains, ranges and composite types, each created where missing, in one object. */
        TYPES("type"),
        FUNCTION("function"),
        PROCEDURE("procedure"),
        AGGREGATE("aggregate"),
        OPERATOR("operator"),
        TEXT_SEARCH_DICTIONARY("text search dictionary"),
        TEXT_SEARCH_CONFIGURATION("text search configuration"),
        VIEW("view"),
        MATERIALIZED_VIEW("materialized view"),
        /** An index a partition has of its own (not one of its partitioned table's). */
        PARTITION_INDEX("partition index"),
        /** A constraint a partition has of its own: a foreign key, a check, a key. */
        PARTITION_CONSTRAINT("partition constraint"),
        TRIGGER("trigger"),
        RULE("rule"),
        POLICY("policy"),
        ROW_SECURITY("row-level security"),
        /** Carried only when asked ({@code publications: copy}): it names tables, and subscribers follow it. */
        PUBLICATION("publication");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** For people: {@code materialized view}. */
        public String label() {
            return label;
        }
    }
}

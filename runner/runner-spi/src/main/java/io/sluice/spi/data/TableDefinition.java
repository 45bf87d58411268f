package io.sluice.spi.data;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What defines a source table beyond its columns' names and types, as PostgreSQL DDL text read from the source's
 * catalog with every name schema-qualified: what a target that creates the table ({@code create: if-missing}) gives
 * it so the copy is the table, not only its rows. Expressions (defaults, checks, index and partition definitions) are
 * the server's own text ({@code pg_get_expr}, {@code pg_get_constraintdef}, {@code pg_get_indexdef}).
 *
 * @param name         the table's name, unqualified
 * @param types        the user-defined types the columns need (enums, domains, composite and range types), each
 *                     after the types it needs
 * @param columns      per column, in the table's order
 * @param sequences    the sequences the table's columns own (serial columns), which the target creates for its copy
 * @param partitionKey {@code pg_get_partkeydef} of a partitioned table, e.g. {@code RANGE (created_at)}
 * @param partitions   its partitions, each after its parent (a partition may be partitioned itself)
 * @param constraints  primary key, unique, exclusion, check and foreign key constraints declared on the table
 * @param indexes      indexes that back no constraint
 * @param comment      the table's comment
 * @param unlogged     the table is UNLOGGED (not crash-safe, not replicated): a created one is too
 * @param grants       the privileges granted on the table and its columns to other roles, for a target that copies
 *                     them ({@code privileges: copy})
 * @param standaloneSequences the sequences the columns' defaults draw from that no column owns (created on their
 *                     own, as pg_dump scripts make them): a created table's defaults need them to exist
 * @param owner        the role that owns the source table; empty when the source does not say
 * @param routines     the functions (not built in) its defaults, checks and indexes call, which a created copy needs
 */
public record TableDefinition(String name, List<Type> types, List<ColumnDefinition> columns, List<Sequence> sequences,
                              Optional<String> partitionKey, List<Partition> partitions,
                              List<Constraint> constraints, List<Index> indexes, Optional<String> comment,
                              boolean unlogged, List<Grant> grants, List<StandaloneSequence> standaloneSequences,
                              Optional<String> owner, List<Routine> routines) {
    public TableDefinition {
        requireNonNull(name, "name is null");
        types = List.copyOf(requireNonNull(types, "types is null"));
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        sequences = List.copyOf(requireNonNull(sequences, "sequences is null"));
        requireNonNull(partitionKey, "partitionKey is null");
        partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
        constraints = List.copyOf(requireNonNull(constraints, "constraints is null"));
        indexes = List.copyOf(requireNonNull(indexes, "indexes is null"));
        requireNonNull(comment, "comment is null");
        grants = List.copyOf(requireNonNull(grants, "grants is null"));
        standaloneSequences = List.copyOf(requireNonNull(standaloneSequences, "standaloneSequences is null"));
        requireNonNull(owner, "owner is null");
        routines = List.copyOf(requireNonNull(routines, "routines is null"));
    }

    /** A definition without grants, as the source gives it when no one asks for privileges. */
    public TableDefinition(String name, List<Type> types, List<ColumnDefinition> columns, List<Sequence> sequences,
                           Optional<String> partitionKey, List<Partition> partitions, List<Constraint> constraints,
                           List<Index> indexes, Optional<String> comment, boolean unlogged) {
        this(name, types, columns, sequences, partitionKey, partitions, constraints, indexes, comment, unlogged,
                List.of(), List.of(), Optional.empty(), List.of());
    }

    /** This definition without its grants: what a target creates when the spec does not copy privileges. */
    public TableDefinition withoutGrants() {
        return withGrants(List.of());
    }

    /** This definition with {@code grants} in place of its own (mapped to other roles, say). */
    public TableDefinition withGrants(List<Grant> grants) {
        return new TableDefinition(name, types, columns, sequences, partitionKey, partitions, constraints, indexes,
                comment, unlogged, grants, standaloneSequences, owner, routines);
    }

    /** This definition with another owner (empty: whoever creates the copy). */
    public TableDefinition withOwner(Optional<String> owner) {
        return new TableDefinition(name, types, columns, sequences, partitionKey, partitions, constraints, indexes,
                comment, unlogged, grants, standaloneSequences, owner, routines);
    }

    /**
     * A function the table's definition calls (a default, a check, an index expression), as the source names it.
     *
     * @param signature its name and argument types, schema-qualified (PostgreSQL's {@code regprocedure} text)
     * @param extension the extension it belongs to, when it does
     */
    public record Routine(String signature, Optional<String> extension) {
        public Routine {
            requireNonNull(signature, "signature is null");
            requireNonNull(extension, "extension is null");
        }
    }

    /**
     * A sequence a column's default draws from ({@code nextval('schema.name'::regclass)}) that no column owns.
     *
     * @param schema    its schema on the source, where the default names it
     * @param name      its name
     * @param options   {@code AS type START WITH ... CYCLE}, as for a created sequence
     * @param lastValue the value it last handed out on the source; empty when it never did (or may not be read)
     */
    public record StandaloneSequence(String schema, String name, String options, Optional<Long> lastValue) {
        public StandaloneSequence {
            requireNonNull(schema, "schema is null");
            requireNonNull(name, "name is null");
            requireNonNull(options, "options is null");
            requireNonNull(lastValue, "lastValue is null");
        }
    }

    /**
     * One privilege the source table's owner granted: on the table, or on one column of it, to a role (or to PUBLIC).
     * The owner's own privileges are not listed (a created table's owner has them).
     *
     * @param column    the column for a column privilege; empty for the table's
     * @param grantee   the role's name; empty for {@code PUBLIC} (everyone, no role)
     * @param privilege the keyword, e.g. {@code SELECT}, {@code UPDATE}
     * @param grantable whether it was granted WITH GRANT OPTION
     */
    public record Grant(Optional<String> column, Optional<String> grantee, String privilege, boolean grantable) {
        public Grant {
            requireNonNull(column, "column is null");
            requireNonNull(grantee, "grantee is null");
            requireNonNull(privilege, "privilege is null");
        }
    }

    /**
     * A user-defined type: {@code name} qualified as {@code format_type} gives it with no search path,
     * {@code statement} the CREATE TYPE or CREATE DOMAIN that makes it.
     */
    public record Type(String schema, String name, String statement) {
        public Type {
            requireNonNull(schema, "schema is null");
            requireNonNull(name, "name is null");
            requireNonNull(statement, "statement is null");
        }
    }

    /**
     * @param defaultExpression   {@code DEFAULT} expression, when the column has one and is not generated
     * @param identity            {@code ALWAYS} or {@code BY DEFAULT} for an identity column
     * @param identityOptions     the identity sequence's options, e.g. {@code START WITH 1 INCREMENT BY 1 ...}
     * @param identitySequence    the identity sequence's name, unqualified
     * @param generatedExpression the expression of a column {@code GENERATED ALWAYS AS (...) STORED}
     * @param collation           a collation other than the type's default, qualified
     * @param collationStatement  the CREATE COLLATION that makes {@code collation} as the source has it (provider,
     *                            locale, determinism), for a target that lacks it
     * @param notNullName         the name of the column's NOT NULL constraint when it is not the one the server
     *                            chooses ({@code <table>_<column>_not_null}; PostgreSQL 18 names them, and pg_dump
     *                            prints a name it would not choose)
     */
    public record ColumnDefinition(String name, Optional<String> defaultExpression, Optional<String> identity,
                                   Optional<String> identityOptions, Optional<String> identitySequence,
                                   Optional<String> generatedExpression, Optional<String> collation,
                                   Optional<String> comment, Optional<String> collationStatement,
                                   Optional<String> notNullName) {
        public ColumnDefinition {
            requireNonNull(name, "name is null");
            requireNonNull(defaultExpression, "defaultExpression is null");
            requireNonNull(identity, "identity is null");
            requireNonNull(identityOptions, "identityOptions is null");
            requireNonNull(identitySequence, "identitySequence is null");
            requireNonNull(generatedExpression, "generatedExpression is null");
            requireNonNull(collation, "collation is null");
            requireNonNull(comment, "comment is null");
            requireNonNull(collationStatement, "collationStatement is null");
            requireNonNull(notNullName, "notNullName is null");
        }
    }

    /**
     * A sequence a column owns: {@code qualifiedName} as the column's default names it (in {@code nextval('...')}),
     * {@code name} unqualified, {@code options} its CREATE SEQUENCE options.
     */
    public record Sequence(String qualifiedName, String name, String column, String options) {
        public Sequence {
            requireNonNull(qualifiedName, "qualifiedName is null");
            requireNonNull(name, "name is null");
            requireNonNull(column, "column is null");
            requireNonNull(options, "options is null");
        }
    }

    /**
     * A partition: {@code parent} empty for a partition of the table itself, else the name of the partition it
     * belongs to; {@code bound} e.g. {@code FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')} or {@code DEFAULT}.
     * {@code notNullNames}: by column, the partition's NOT NULL constraints whose names are not its parent's (a
     * partition created on its own and attached later names them after itself, PostgreSQL 18), in column order.
     */
    public record Partition(String name, Optional<String> parent, String bound, Optional<String> partitionKey,
                            Map<String, String> notNullNames) {
        public Partition {
            requireNonNull(name, "name is null");
            requireNonNull(parent, "parent is null");
            requireNonNull(bound, "bound is null");
            requireNonNull(partitionKey, "partitionKey is null");
            notNullNames = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(notNullNames,
                    "notNullNames is null")));
        }
    }

    /**
     * A constraint: {@code type} as {@code pg_constraint.contype} ('p', 'u', 'x', 'c', 'f'); {@code definition} as
     * {@code pg_get_constraintdef}. A foreign key names the table it references in {@code references} (the source's
     * relation, for the runner to find the stream that copies it) and {@code referencedName} (as the definition
     * spells it, to be replaced by the copy's name).
     */
    public record Constraint(String name, char type, String definition, Optional<RelationIdentity> references,
                             Optional<String> referencedName) {
        public Constraint {
            requireNonNull(name, "name is null");
            requireNonNull(definition, "definition is null");
            requireNonNull(references, "references is null");
            requireNonNull(referencedName, "referencedName is null");
        }

        public boolean isForeignKey() {
            return type == 'f';
        }
    }

    /** An index: its name, and {@code method} the part of {@code pg_get_indexdef} from {@code USING} on. */
    public record Index(String name, boolean unique, String method) {
        public Index {
            requireNonNull(name, "name is null");
            requireNonNull(method, "method is null");
        }
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.read.SchemaObject.Kind;
import io.sluice.spi.read.SchemaObject;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A schema object as {@link SourceObjects} reads it, before its uses are known; then the objects in order. */
final class ObjectDraft {
    final Kind kind;
    final String key;
    final String name;
    final Optional<String> table;
    final String identity;
    final List<String> statements;
    final Set<String> uses = new LinkedHashSet<>();
    final Set<String> roles;
    /** The source role that owns it, where it has an owner of its own (a routine, a view). */
    Optional<String> owner = Optional.empty();
    /** What its owner granted, where its privileges are set. */
    Optional<List<TableDefinition.Grant>> privileges = Optional.empty();

    ObjectDraft(Kind kind, String key, String name, Optional<String> table, String identity, List<String> statements,
                Set<String> uses, Set<String> roles) {
        this.kind = kind;
        this.key = key;
        this.name = name;
        this.table = table;
        this.identity = identity;
        this.statements = List.copyOf(statements);
        this.uses.addAll(uses);
        this.roles = Set.copyOf(roles);
    }

    /** Each object after those of the list it uses; otherwise by kind, then name (a cycle keeps that order). */
    static List<SchemaObject> ordered(Map<String, ObjectDraft> drafts) {
        List<ObjectDraft> waiting = new ArrayList<>(drafts.values());
        waiting.sort(Comparator.comparing((ObjectDraft d) -> d.kind).thenComparing(d -> d.name));
        List<SchemaObject> ordered = new ArrayList<>();
        Set<String> placed = new HashSet<>();
        while (!waiting.isEmpty()) {
            ObjectDraft next = waiting.stream().filter(d -> d.uses.stream()
                    .allMatch(u -> placed.contains(u) || !drafts.containsKey(u))).findFirst()
                    .orElse(waiting.getFirst());
            waiting.remove(next);
            placed.add(next.key);
            ordered.add(new SchemaObject(next.kind, next.key, next.name, next.table, next.identity, next.statements,
                    next.uses, next.roles, next.owner, next.privileges));
        }
        return ordered;
    }
}

package io.sluice.connector.postgres.write;

import io.sluice.connector.postgres.write.load.CarriedExtensions;
import io.sluice.connector.postgres.write.load.CarriedObjects;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * Which stream carries the objects of each source schema ({@code objects: all}) into one target connection: the
 * first table of the schema planned, so the objects are read and created once per run however many of its tables
 * the run copies. Planning follows the spec's order, so every process of a joined run chooses the same table.
 */
public final class ObjectCarriers {
    private final Map<String, String> carriers = new ConcurrentHashMap<>();
    /** The extensions each schema's carrier found missing, which every table of the schema creates before it. */
    private final Map<String, CarriedExtensions> extensions = new ConcurrentHashMap<>();
    /** The carrier's objects, whose functions a table's definition may call (created before that table). */
    private final Map<String, CarriedObjects> objects = new ConcurrentHashMap<>();

    /** Whether the target table {@code table} carries the objects of the schema {@code schemaKey}. */
    boolean carries(String schemaKey, String table) {
        requireNonNull(table, "table is null");
        return carriers.computeIfAbsent(requireNonNull(schemaKey, "schemaKey is null"), k -> table).equals(table);
    }

    /** Records the carrier's objects of {@code schemaKey}, and what it found missing, for the schema's tables. */
    void carry(String schemaKey, CarriedObjects carried, CarriedExtensions missing) {
        requireNonNull(schemaKey, "schemaKey is null");
        objects.put(schemaKey, requireNonNull(carried, "carried is null"));
        extensions.put(schemaKey, requireNonNull(missing, "missing is null"));
    }

    /** The objects the carrier of {@code schemaKey} carries; empty when its planning was refused. */
    java.util.Optional<CarriedObjects> objectsOf(String schemaKey) {
        return java.util.Optional.ofNullable(objects.get(requireNonNull(schemaKey, "schemaKey is null")));
    }

    /** The extensions the schema's tables need created first; none when its carrier found none missing. */
    CarriedExtensions extensionsOf(String schemaKey) {
        return extensions.getOrDefault(requireNonNull(schemaKey, "schemaKey is null"), CarriedExtensions.NONE);
    }
}

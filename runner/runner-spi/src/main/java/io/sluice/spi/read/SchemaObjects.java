package io.sluice.spi.read;

import io.sluice.spi.error.ConnectorException;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A source's role ({@link Source#schemaObjects()}): the objects of the schema its table is in, beyond the tables, for a
 * target that carries the whole schema ({@code objects: all}). Every table of one schema answers the same; the target
 * reads them once per schema ({@link #schemaKey()}).
 */
public interface SchemaObjects {
    /** Equal for every table of the same source schema, and only for them. */
    String schemaKey();

    /** The schema's name on the source. */
    String schema();

    /** The schema's objects, each after what it uses, and what of the schema is not carried. */
    Contents read() throws ConnectorException;

    /**
     * @param objects    in an order that creates each after the objects it uses
     * @param notCarried what the schema has that is not carried, each with why (and what would carry it)
     * @param extensions the extensions the schema's tables and objects use (a column's type, an index's operator
     *                   class, a function a view calls) or that live in the schema, which the target must have first
     */
    record Contents(List<SchemaObject> objects, List<String> notCarried, List<Extension> extensions) {
        public Contents {
            objects = List.copyOf(requireNonNull(objects, "objects is null"));
            notCarried = List.copyOf(requireNonNull(notCarried, "notCarried is null"));
            extensions = List.copyOf(requireNonNull(extensions, "extensions is null"));
        }
    }

    /**
     * An extension as the source has it installed: its name, the schema its objects are in, and its types as the
     * source names them (schema-qualified), which a table created before the extension exists may use.
     */
    record Extension(String name, String schema, java.util.Set<String> types) {
        public Extension {
            requireNonNull(name, "name is null");
            requireNonNull(schema, "schema is null");
            types = java.util.Set.copyOf(requireNonNull(types, "types is null"));
        }
    }
}

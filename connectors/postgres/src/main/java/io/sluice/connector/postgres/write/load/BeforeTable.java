package io.sluice.connector.postgres.write.load;

import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.read.SchemaObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * What {@code objects: all} creates before a table of the schema, as a pg_dump restore orders it: the extensions the
 * schema's objects use, and the schema's types and functions that need no table ({@link CarriedObjects#early()}),
 * each once per process. Plan's checks take what it provides as present.
 */
public record BeforeTable(CarriedExtensions extensions, CarriedObjects.Early routines) {
    public static final BeforeTable NONE = new BeforeTable(CarriedExtensions.NONE, CarriedObjects.Early.NONE);

    public BeforeTable {
        requireNonNull(extensions, "extensions is null");
        requireNonNull(routines, "routines is null");
    }

    /** Whether {@code typeName} is an extension's type created before the table. */
    boolean providesType(String typeName) {
        return extensions.providesType(typeName);
    }

    /** Whether the function the definition calls is created before the table. */
    boolean provides(TableDefinition.Routine routine, Set<String> signatures) {
        return routine.extension().map(extensions::creates).orElse(false) || signatures.contains(routine.signature());
    }

    /** The extensions, then the functions (each once, where missing). */
    public void create() throws ConnectorException {
        extensions.createMissing();
        routines.create();
    }

    /** For the plan: which of the schema's functions come before its tables. */
    public List<String> notes() {
        List<String> functions = new ArrayList<>();
        routines.objects().stream().filter(o -> o.kind() == SchemaObject.Kind.FUNCTION)
                .forEach(o -> functions.add(o.name()));
        return functions.isEmpty() ? List.of() : List.of("objects: all: the schema's types and the functions that "
                + "need no table (" + String.join(", ", functions) + ") are created before its first table, as a "
                + "pg_dump restore orders them: a default, a check or an index may call them");
    }
}

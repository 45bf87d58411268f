package io.sluice.app.cli;

import io.sluice.spi.write.LoadRequest;
import picocli.CommandLine;

/**
 * {@code --schema-only} and {@code --data-only}, as pg_dump users know them: what the loads create without their
 * rows, or the rows into what exists. One or neither.
 */
final class ScopeOptions {
    @CommandLine.ArgGroup(exclusive = true, multiplicity = "0..1")
    Choice choice;

    static final class Choice {
        @CommandLine.Option(names = "--schema-only", required = true,
                description = "Create what the loads create (tables with their definitions, and with objects: all "
                        + "the schema's views, functions, triggers...), and copy no rows. Existing tables are left as "
                        + "they are.")
        boolean schemaOnly;

        @CommandLine.Option(names = "--data-only", required = true,
                description = "Copy the rows into tables that exist, and create nothing: a missing table is refused "
                        + "at plan. With objects: all, materialized views are filled after the load.")
        boolean dataOnly;
    }

    LoadRequest.Scope scope() {
        if (choice == null) {
            return LoadRequest.Scope.ALL;
        }
        return choice.schemaOnly ? LoadRequest.Scope.SCHEMA_ONLY : LoadRequest.Scope.DATA_ONLY;
    }
}

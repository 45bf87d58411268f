package io.sluice.spi.data;

import static java.util.Objects.requireNonNull;

/**
 * A dataset as OpenLineage names it (its naming conventions, openlineage.io/docs/spec/naming): for a PostgreSQL
 * table namespace {@code postgres://host:port} and name {@code database.schema.table}; for files namespace
 * {@code file} (or {@code s3://bucket}) and name the path (or the object key). No credentials, ever.
 */
public record LineageDataset(String namespace, String name) {
    public LineageDataset {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
    }
}

package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;

import io.sluice.spi.read.SchemaObject.Kind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The indexes and constraints a partition of the schema has of its own, which a partition created from its
 * partitioned table's definition lacks (Pagila's payment partitions each carry their own indexes and foreign keys):
 * read with the schema's other objects ({@link SourceObjects}), created once every stream is done.
 */
final class SourcePartitionParts {
    /**
     * An index not attached to a partitioned index and backing no constraint; a constraint of the partition's own
     * ({@code conislocal}, no parent constraint). Each with its partition's root and, for a foreign key, the root of
     * the table it references.
     */
    private static final String PARTS = "WITH s(ns) AS (SELECT ?::oid) "
            + "SELECT 'index', i.indexrelid, quote_ident(n.nspname) || '.' || quote_ident(ic.relname), "
            + SourceObjects.QUALIFIED + ", pg_get_indexdef(i.indexrelid), pg_partition_root(c.oid)::oid, NULL::oid "
            + "FROM s, pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "JOIN pg_class ic ON ic.oid = i.indexrelid WHERE c.relnamespace = s.ns AND c.relispartition "
            + "AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid) "
            + "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = c.oid) "
            + "UNION ALL SELECT 'constraint', k.oid, quote_ident(k.conname), " + SourceObjects.QUALIFIED + ", "
            + "'ALTER TABLE ONLY ' || " + SourceObjects.QUALIFIED + " || ' ADD CONSTRAINT ' || quote_ident(k.conname) "
            + "|| ' ' || pg_get_constraintdef(k.oid), pg_partition_root(c.oid)::oid, CASE WHEN k.confrelid <> 0 "
            + "THEN coalesce(pg_partition_root(k.confrelid)::oid, k.confrelid) END "
            + "FROM s, pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n "
            + "ON n.oid = c.relnamespace WHERE c.relnamespace = s.ns AND c.relispartition AND k.conislocal "
            + "AND k.conparentid = 0 AND k.contype IN ('f', 'c', 'u', 'p', 'x') ORDER BY 1, 4, 3";

    private SourcePartitionParts() {
    }

    static void read(Connection c, PostgresCatalog catalog, long schemaOid, Map<String, ObjectDraft> drafts)
            throws SQLException {
        SourceObjects.eachRow(c, PARTS, schemaOid, rs -> {
            boolean index = rs.getString(1).equals("index");
            String partition = rs.getString(4);
            Set<String> uses = new LinkedHashSet<>();
            uses.add(catalog.relationKey(rs.getLong(6)));
            long referenced = rs.getLong(7);
            if (!rs.wasNull()) {
                uses.add(catalog.relationKey(referenced));
            }
            String key = (index ? "partition-index:" : "partition-constraint:") + rs.getLong(2);
            String name = rs.getString(3);
            drafts.put(key, new ObjectDraft(index ? Kind.PARTITION_INDEX : Kind.PARTITION_CONSTRAINT, key,
                    name + " on " + partition, index ? Optional.empty() : Optional.of(partition), name,
                    List.of(rs.getString(5)), uses, Set.of()));
        });
    }
}

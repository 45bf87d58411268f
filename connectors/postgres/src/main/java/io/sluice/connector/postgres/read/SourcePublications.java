package io.sluice.connector.postgres.read;

import io.sluice.connector.postgres.catalog.PostgresCatalog;
import io.sluice.connector.postgres.catalog.SqlQuote;

import io.sluice.spi.read.SchemaObject.Kind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The publications of a schema's tables, read with its other objects ({@link SourceObjects}) and carried when asked
 * ({@code publications: copy}): built from {@code pg_publication} as pg_dump builds them, as no server function prints
 * one.
 */
final class SourcePublications {
    /**
     * The publications that publish a table of the schema or the schema itself (FOR TABLES IN SCHEMA), with each
     * table's column list and row filter (PostgreSQL 15; {@code %1$s} and {@code %2$s} are NULL and an empty array
     * before). FOR ALL TABLES ones are the database's, not the schema's.
     */
    private static final String PUBLICATIONS = "SELECT p.oid, p.pubname, p.pubinsert, p.pubupdate, "
            + "p.pubdelete, p.pubtruncate, coalesce((to_jsonb(p) ->> 'pubviaroot')::boolean, false), "
            + "ARRAY(SELECT " + SourceObjects.QUALIFIED + " || coalesce(%1$s, '') "
            + "FROM pg_publication_rel pr JOIN pg_class c ON c.oid = pr.prrelid "
            + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE pr.prpubid = p.oid ORDER BY 1), "
            + "ARRAY(SELECT pr.prrelid::bigint FROM pg_publication_rel pr WHERE pr.prpubid = p.oid), %2$s, "
            + "obj_description(p.oid, 'pg_publication'), pg_get_userbyid(p.pubowner)::text "
            + "FROM pg_publication p WHERE NOT p.puballtables AND ? IN (SELECT c.relnamespace "
            + "FROM pg_publication_rel pr JOIN pg_class c ON c.oid = pr.prrelid WHERE pr.prpubid = p.oid%3$s) "
            + "ORDER BY 2";
    /** A table's column list and row filter in a publication, PostgreSQL 15 on. */
    private static final String PUBLISHED_PART = "coalesce(' (' || (SELECT string_agg(quote_ident(a.attname), ', ' "
            + "ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = pr.prrelid "
            + "AND a.attnum = ANY (pr.prattrs::int2[])) || ')', '') "
            + "|| coalesce(' WHERE (' || pg_get_expr(pr.prqual, pr.prrelid) || ')', '')";
    private static final String PUBLISHED_SCHEMAS = "ARRAY(SELECT n.nspname::text FROM pg_publication_namespace pn "
            + "JOIN pg_namespace n ON n.oid = pn.pnnspid WHERE pn.pnpubid = p.oid ORDER BY 1)";

    private SourcePublications() {
    }

    /**
     * The schema's publications ({@link #PUBLICATIONS}), each using the tables it names; one that also publishes
     * another schema whole is not carried (the copy cannot know that schema's tables).
     */
    static void read(Connection c, PostgresCatalog catalog, long schemaOid, String schema,
                     Optional<String> feedPublication, Map<String, ObjectDraft> drafts, List<String> notCarried)
            throws SQLException {
        boolean v15 = catalog.serverVersionNum() >= 150000;
        String sql = PUBLICATIONS.formatted(v15 ? PUBLISHED_PART : "NULL", v15 ? PUBLISHED_SCHEMAS : "'{}'::text[]",
                v15 ? " UNION ALL SELECT pn.pnnspid FROM pg_publication_namespace pn WHERE pn.pnpubid = p.oid" : "");
        SourceObjects.eachRow(c, sql, schemaOid, rs -> {
            String name = SqlQuote.identifier(rs.getString(2));
            if (feedPublication.filter(rs.getString(2)::equals).isPresent()) {
                return; // the change feed's, made by Sluice for its slot
            }
            List<String> schemas = SourceObjects.strings(rs.getArray(10));
            if (schemas.stream().anyMatch(s -> !s.equals(schema))) {
                notCarried.add("publication " + name + " publishes other schemas whole (" + String.join(", ",
                        schemas) + "): not carried; pg_dump carries it");
                return;
            }
            List<String> parts = new ArrayList<>();
            List<String> tables = SourceObjects.strings(rs.getArray(8));
            if (!tables.isEmpty()) {
                parts.add("TABLE " + String.join(", ", tables));
            }
            if (!schemas.isEmpty()) {
                parts.add("TABLES IN SCHEMA " + SqlQuote.identifier(schema));
            }
            List<String> publish = new ArrayList<>();
            String[] actions = {"insert", "update", "delete", "truncate"};
            for (int i = 0; i < actions.length; i++) {
                if (rs.getBoolean(3 + i)) {
                    publish.add(actions[i]);
                }
            }
            List<String> statements = new ArrayList<>(List.of("CREATE PUBLICATION " + name + " FOR "
                    + String.join(", ", parts) + " WITH (publish = " + SqlQuote.literal(String.join(", ", publish))
                    + ", publish_via_partition_root = " + rs.getBoolean(7) + ")"));
            SourceObjects.comment(statements, "PUBLICATION " + name, rs.getString(11));
            Set<String> uses = new LinkedHashSet<>();
            for (Object table : (Object[]) rs.getArray(9).getArray()) {
                uses.add(catalog.relationKey((Long) table));
            }
            String key = "publication:" + rs.getLong(1);
            ObjectDraft publication = new ObjectDraft(Kind.PUBLICATION, key, name, Optional.empty(), name,
                    statements, uses, Set.of());
            publication.owner = Optional.ofNullable(rs.getString(12));
            drafts.put(key, publication);
        });
    }
}

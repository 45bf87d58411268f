package io.sluice.connector.postgres.read;

import io.sluice.spi.read.SchemaObject.Kind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The schema's text search dictionaries and configurations, read with its other objects ({@link SourceObjects}):
 * built from the catalog as pg_dump builds them, as no server function prints one (a configuration is created with
 * its parser, then given each token type's dictionaries in order). A template or parser of the schema's own (they
 * need C functions) is not carried, nor what uses it.
 */
final class SourceTextSearch {
    private static final String DICTIONARIES = "SELECT d.oid, quote_ident(n.nspname) || '.' || "
            + "quote_ident(d.dictname), quote_ident(tn.nspname) || '.' || quote_ident(t.tmplname), d.dictinitoption, "
            + "obj_description(d.oid, 'pg_ts_dict'), pg_get_userbyid(d.dictowner)::text, "
            + "t.tmplnamespace = d.dictnamespace FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace "
            + "JOIN pg_ts_template t ON t.oid = d.dicttemplate JOIN pg_namespace tn ON tn.oid = t.tmplnamespace "
            + "WHERE d.dictnamespace = ?" + SourceObjects.NOT_EXTENSION.formatted("ts_dict", "d") + " ORDER BY 2";
    /** Each token type's mapping, its dictionaries in order, as one {@code ADD MAPPING} clause. */
    private static final String CONFIGURATIONS = "SELECT c.oid, quote_ident(n.nspname) || '.' || "
            + "quote_ident(c.cfgname), quote_ident(pn.nspname) || '.' || quote_ident(p.prsname), "
            + "obj_description(c.oid, 'pg_ts_config'), pg_get_userbyid(c.cfgowner)::text, "
            + "p.prsnamespace = c.cfgnamespace, "
            + "ARRAY(SELECT 'ADD MAPPING FOR ' || quote_ident(t.alias) || ' WITH ' || string_agg(quote_ident("
            + "dn.nspname) || '.' || quote_ident(d.dictname), ', ' ORDER BY m.mapseqno) FROM pg_ts_config_map m "
            + "JOIN ts_token_type(c.cfgparser) t ON t.tokid = m.maptokentype JOIN pg_ts_dict d ON d.oid = m.mapdict "
            + "JOIN pg_namespace dn ON dn.oid = d.dictnamespace WHERE m.mapcfg = c.oid "
            + "GROUP BY m.maptokentype, t.alias ORDER BY m.maptokentype), "
            + "ARRAY(SELECT DISTINCT m.mapdict::bigint FROM pg_ts_config_map m WHERE m.mapcfg = c.oid) "
            + "FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace "
            + "JOIN pg_ts_parser p ON p.oid = c.cfgparser JOIN pg_namespace pn ON pn.oid = p.prsnamespace "
            + "WHERE c.cfgnamespace = ?" + SourceObjects.NOT_EXTENSION.formatted("ts_config", "c") + " ORDER BY 2";

    private SourceTextSearch() {
    }

    static void read(Connection c, long schemaOid, Map<String, ObjectDraft> drafts, List<String> notCarried)
            throws SQLException {
        Set<String> leftOut = new HashSet<>();
        SourceObjects.eachRow(c, DICTIONARIES, schemaOid, rs -> {
            String name = rs.getString(2);
            String key = "ts-dictionary:" + rs.getLong(1);
            if (rs.getBoolean(7)) {
                notCarried.add("not carried: text search dictionary " + name + ", whose template is the schema's "
                        + "own (templates need C functions; pg_dump --schema-only carries them)");
                leftOut.add(key);
                return;
            }
            String options = rs.getString(4);
            List<String> statements = new ArrayList<>(List.of("CREATE TEXT SEARCH DICTIONARY " + name
                    + " (TEMPLATE = " + rs.getString(3) + (options == null ? "" : ", " + options) + ")"));
            SourceObjects.comment(statements, "TEXT SEARCH DICTIONARY " + name, rs.getString(5));
            ObjectDraft dictionary = new ObjectDraft(Kind.TEXT_SEARCH_DICTIONARY, key, name, Optional.empty(), name,
                    statements, Set.of(), Set.of());
            dictionary.owner = Optional.ofNullable(rs.getString(6));
            drafts.put(key, dictionary);
        });
        SourceObjects.eachRow(c, CONFIGURATIONS, schemaOid, rs -> {
            String name = rs.getString(2);
            Set<String> uses = new LinkedHashSet<>();
            for (Object dictionary : (Object[]) rs.getArray(8).getArray()) {
                uses.add("ts-dictionary:" + dictionary);
            }
            if (rs.getBoolean(6) || uses.stream().anyMatch(leftOut::contains)) {
                notCarried.add("not carried: text search configuration " + name + ", whose parser or a dictionary "
                        + "is the schema's own and not carried (pg_dump --schema-only carries them)");
                return;
            }
            uses.retainAll(drafts.keySet()); // another schema's dictionaries: the target's to have
            List<String> statements = new ArrayList<>(List.of("CREATE TEXT SEARCH CONFIGURATION " + name
                    + " (PARSER = " + rs.getString(3) + ")"));
            for (Object mapping : (Object[]) rs.getArray(7).getArray()) {
                statements.add("ALTER TEXT SEARCH CONFIGURATION " + name + " " + mapping);
            }
            SourceObjects.comment(statements, "TEXT SEARCH CONFIGURATION " + name, rs.getString(4));
            String key = "ts-configuration:" + rs.getLong(1);
            ObjectDraft configuration = new ObjectDraft(Kind.TEXT_SEARCH_CONFIGURATION, key, name, Optional.empty(),
                    name, statements, uses, Set.of());
            configuration.owner = Optional.ofNullable(rs.getString(5));
            drafts.put(key, configuration);
        });
    }
}

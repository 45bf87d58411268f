package io.sluice.connector.postgres;

import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;

import java.util.List;
import java.util.Map;

/** The options a {@code type: postgres} connection and its stream sides accept. */
public final class PostgresOptions {
    static final Option<String> URL = Option.string("url")
            .describedAs("JDBC URL, e.g. jdbc:postgresql://host:5432/db. Either url or embedded.");
    static final Option<String> USER = Option.string("user").describedAs("User name (or in the URL).");
    static final Option<String> PASSWORD = Option.string("password").secret()
            .describedAs("Password; use ${VAR} or ${file:PATH}, never a literal.");
    static final Option<Map<String, String>> PROPERTIES = Option.stringMap("properties")
            .describedAs("Extra PgJDBC connection properties, e.g. sslmode: require.");
    static final Option<String> EMBEDDED = Option.string("embedded")
            .describedAs("Instead of url: the database of a local PostgreSQL 18 that Sluice starts itself "
                    + "(data kept under .sluice/). Created when missing.");
    static final Option<String> INIT_SCRIPT = Option.string("init-script")
            .describedAs("With embedded: a SQL file (relative to the spec) run once, right after Sluice creates the "
                    + "database; if it fails the database is dropped again.");
    static final Option<String> LEDGER_SCHEMA = Option.string("ledger-schema").withDefault("sluice")
            .describedAs("Schema of the run ledger when this connection is a target.");

    static final Option<String> TABLE = Option.string("table").naming()
            .describedAs("schema.table as PostgreSQL reads it: unquoted names fold to lower case, "
                    + "\"Quoted\" names keep case. No schema: the search_path. A source may name a pattern "
                    + "(sales.*, with * and ?): one stream per matching table; a target then a template "
                    + "(staging.{table}, with {schema} and {table}).");
    static final Option<List<String>> EXCLUDE = Option.stringList("exclude")
            .describedAs("With a table pattern: patterns of tables to leave out, e.g. sales.tmp_* (source only).");
    static final Option<String> QUERY = Option.string("query").naming().describedAs("Any SELECT (source only).");
    static final Option<Boolean> INHERITED = Option.bool("inherited").withDefault(true)
            .describedAs("With a table: also read the rows of its inheritance children, as PostgreSQL does (source "
                    + "only). A table pattern sets false on a table whose children it also matches, so each row "
                    + "is copied once, by its own table's stream.");

    static final OptionSchema CONNECTION = OptionSchema.of(URL, USER, PASSWORD, PROPERTIES, EMBEDDED, INIT_SCRIPT, LEDGER_SCHEMA);
    static final Option<String> WHERE = Option.string("where")
            .describedAs("With a table: a condition every row read must meet, SQL over the table's columns (e.g. "
                    + "status <> 'test'), applied by the source server with any distribution method, pattern or "
                    + "incremental cursor; part of the stream's definition (source only).");
    static final Option<String> SLOT = Option.string("slot").required()
            .describedAs("The logical replication slot (pgoutput) the stream's changes are read from: created by the "
                    + "first run, with the snapshot the copy reads in; lower case letters, digits and _.");
    static final Option<String> PUBLICATION = Option.string("publication")
            .describedAs("The publication the slot reads; created for the stream's tables when missing. Default: "
                    + "the slot's name.");
    static final Option<Long> RETAINED_WARNING_MB = Option.integer("retained-warning-mb").withDefault(1024L)
            .describedAs("sluice plan and status warn when the slot keeps more WAL than this on the source (a run "
                    + "that applies and confirms frees it).");
    static final Option<Options> CHANGES = Option.object("changes",
                    OptionSchema.of(SLOT, PUBLICATION, RETAINED_WARNING_MB))
            .describedAs("Follow the table's changes after the copy: the first run copies in the slot's snapshot, "
                    + "every later run (or run --follow) applies the inserts, updates, deletes and truncates since "
                    + "(source only, tables only).");
    static final OptionSchema SOURCE = OptionSchema.of(TABLE, EXCLUDE, QUERY, INHERITED, WHERE, CHANGES);
    static final Option<String> CREATE = Option.string("create").oneOf("never", "if-missing")
            .withDefault("never").describedAs("if-missing: create the target table when it does not exist, with "
                    + "the source's columns and types (target only).");
    static final Option<List<String>> PRIMARY_KEY = Option.stringList("primary-key")
            .describedAs("Columns of the primary key of a table that create: if-missing creates, added after the "
                    + "load (target only).");

    static final Option<String> DEFINITION = Option.string("definition").oneOf("full", "bare")
            .withDefault("full").describedAs("What a table that create: if-missing creates from a PostgreSQL source "
                    + "table gets. full: its definition (keys, constraints, defaults, identity, generated columns, "
                    + "indexes, partitions, comments, the types it needs, foreign keys between the run's tables); "
                    + "bare: columns, types and NOT NULL only (target only).");

    static final Option<String> PRIVILEGES = Option.string("privileges").oneOf("none", "copy")
            .withDefault("none").describedAs("What a table that create: if-missing creates with the source table's "
                    + "definition gets of the source's privileges. copy: the grants on the table and its columns to "
                    + "other roles (and PUBLIC), which must exist on the target server; none: only its owner's "
                    + "(target only).");

    static final Option<Map<String, String>> OWNERS = Option.stringMap("owners")
            .describedAs("Source role -> target role: a table that create: if-missing creates with the source "
                    + "table's definition is owned by the role its source owner maps to (every source owner needs an "
                    + "entry), and privileges: copy grants to mapped roles go to their target roles. The roles must "
                    + "exist on the target server and the connection's user must be a member of the owners "
                    + "(target only).");

    static final Option<String> OBJECTS = Option.string("objects").oneOf("tables", "all")
            .withDefault("tables").describedAs("What of the source table's schema a run carries besides the tables. "
                    + "all: its functions, procedures, aggregates, views, materialized views (filled after the load), "
                    + "triggers (created after the load, so they do not fire on copied rows), rules, row-level "
                    + "security and policies, with their comments, created where missing once every stream is done; "
                    + "the copies must keep the source's schema and names (target only).");

    static final Option<String> PUBLICATIONS = Option.string("publications").oneOf("none", "copy")
            .withDefault("none").describedAs("With objects: all, whether the publications that publish the "
                    + "schema's tables (or the schema, FOR TABLES IN SCHEMA) are created too, with their tables, "
                    + "column lists, row filters and options, once every table they publish is copied. copy: they "
                    + "are; none: they are listed as not carried (target only).");

    static final OptionSchema TARGET = OptionSchema.of(TABLE.required(), CREATE, PRIMARY_KEY, DEFINITION, PRIVILEGES,
            OWNERS, OBJECTS, PUBLICATIONS);

    private PostgresOptions() {
    }
}

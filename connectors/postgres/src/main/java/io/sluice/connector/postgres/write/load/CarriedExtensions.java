package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.session.ControlConnection;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;

import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.SchemaObjects;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The extensions a source schema's objects use ({@code objects: all}) that the target database lacks, created before
 * the first of the schema's tables (a column's type or an index's operator class may be theirs), as pg_dump's
 * {@code CREATE EXTENSION} would. Decided at plan: one the target server has no package for, or the loading user may
 * not create (neither superuser nor, for a trusted one, holding CREATE on the database), is refused there (PG241)
 * naming what to install or run, so nothing is created.
 */
public final class CarriedExtensions {
    public static final CarriedExtensions NONE = new CarriedExtensions(null, List.of(), Set.of(), Set.of());

    private final PostgresConnections connections;
    private final List<String> statements;
    /** The extensions created, by name, and their types (as the source names them). */
    private final Set<String> names;
    private final Set<String> types;
    private final Object once = new Object();
    private boolean created; // guarded by once

    private CarriedExtensions(PostgresConnections connections, List<String> statements, Set<String> names,
                              Set<String> types) {
        this.connections = connections;
        this.statements = List.copyOf(statements);
        this.names = Set.copyOf(names);
        this.types = Set.copyOf(types);
    }

    /** Whether the extension {@code name} is among those created before the tables. */
    public boolean creates(String name) {
        return names.contains(name);
    }

    /**
     * Whether {@code typeName} (perhaps an array of it, perhaps unqualified) is a type of an extension created
     * before the tables: the target lacks it at plan, and has it when the table is created.
     */
    public boolean providesType(String typeName) {
        String element = typeName.replaceAll("(\\[\\])+$", "");
        return types.stream().anyMatch(t -> t.equals(element) || t.endsWith("." + element));
    }

    /** What {@link #createMissing()} runs: each missing extension's schema, then the extension (with CASCADE). */
    public List<String> statements() {
        return statements;
    }

    /**
     * The extensions of {@code schema}'s objects the target database does not have, each refused (PG241) unless the
     * target server can install it and the loading user may.
     */
    public static CarriedExtensions plan(PostgresConnections connections, String schema,
                                         List<SchemaObjects.Extension> extensions) throws ConnectorException {
        requireNonNull(connections, "connections is null");
        if (extensions.isEmpty()) {
            return NONE;
        }
        Set<String> statements = new LinkedHashSet<>();
        Set<String> created = new LinkedHashSet<>();
        List<String> absent = new ArrayList<>();
        List<String> forbidden = new ArrayList<>();
        try (ControlConnection control = connections.control("finding the extensions of the target database");
             PreparedStatement p = control.connection().prepareStatement("SELECT e, s, a.name IS NOT NULL, "
                     + "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR (coalesce((SELECT "
                     + "v.trusted FROM pg_available_extension_versions v WHERE v.name = e "
                     + "AND v.version = a.default_version), false) "
                     + "AND has_database_privilege(current_database(), 'CREATE')), "
                     + "EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = s) "
                     + "FROM unnest(?::text[], ?::text[]) x(e, s) LEFT JOIN pg_available_extensions a ON a.name = e "
                     + "WHERE NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = e) ORDER BY e")) {
            p.setArray(1, control.connection().createArrayOf("text",
                    extensions.stream().map(SchemaObjects.Extension::name).toArray()));
            p.setArray(2, control.connection().createArrayOf("text",
                    extensions.stream().map(SchemaObjects.Extension::schema).toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String name = SqlQuote.identifier(rs.getString(1));
                    String in = SqlQuote.identifier(rs.getString(2));
                    if (!rs.getBoolean(3)) {
                        absent.add(name);
                    } else if (!rs.getBoolean(4)) {
                        forbidden.add("CREATE EXTENSION " + name + " WITH SCHEMA " + in + " CASCADE");
                    } else {
                        if (!rs.getBoolean(5)) { // IF NOT EXISTS alone would still need CREATE on the database
                            statements.add("CREATE SCHEMA IF NOT EXISTS " + in);
                        }
                        statements.add("CREATE EXTENSION IF NOT EXISTS " + name + " WITH SCHEMA " + in + " CASCADE");
                        created.add(rs.getString(1));
                    }
                }
            }
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.DESCRIBE, "cannot read the extensions of "
                    + "the target database");
        }
        if (!absent.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG241, "objects: all: schema "
                    + SqlQuote.identifier(schema) + " uses extensions the target server has no package for: "
                    + String.join(", ", absent) + "; nothing was created", "install the package that provides "
                    + String.join(", ", absent) + " on the target server (contrib modules come with the server; "
                    + "others from their own package, e.g. Debian's postgresql-<major>-<name>), or set objects: "
                    + "tables");
        }
        if (!forbidden.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG241, "objects: all: schema "
                    + SqlQuote.identifier(schema) + " uses extensions the target database does not have, and the "
                    + "connection's user may not create them (not a superuser, and they are not trusted extensions "
                    + "it may create in the database); nothing was created", "as a superuser, run "
                    + String.join("; ", forbidden) + " in the target database, or set objects: tables");
        }
        Set<String> types = new LinkedHashSet<>();
        extensions.stream().filter(e -> created.contains(e.name())).forEach(e -> types.addAll(e.types()));
        return new CarriedExtensions(connections, List.copyOf(statements), created, types);
    }

    /**
     * Creates what was missing at plan, once per process, before the schema's first table; in one transaction under
     * an advisory lock, as two processes of a joined run may both get here. Every statement is IF NOT EXISTS, so a
     * resume or a fresh run after a finished one changes nothing.
     */
    public void createMissing() throws ConnectorException {
        if (statements.isEmpty()) {
            return;
        }
        synchronized (once) {
            if (created) {
                return;
            }
            String what = "creating the extensions objects: all carries";
            try (ControlConnection control = connections.control(what)) {
                Connection c = control.connection();
                c.setAutoCommit(false);
                try {
                    LoadTable.execute(c, "SELECT pg_advisory_xact_lock(hashtextextended('sluice extensions', 0))");
                    for (String statement : statements) {
                        LoadTable.execute(c, statement);
                    }
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what);
            }
            created = true;
        }
    }
}

package io.sluice.connector.postgres.write.load;

import io.sluice.connector.postgres.catalog.PostgresCode;
import io.sluice.connector.postgres.catalog.SqlQuote;
import io.sluice.connector.postgres.ledger.PostgresLedgerStore;
import io.sluice.connector.postgres.session.PostgresConnections;
import io.sluice.connector.postgres.session.PostgresErrors;
import io.sluice.connector.postgres.session.ServerRoles;

import io.sluice.spi.data.TableDefinition;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.ledger.LoadMarks;
import io.sluice.spi.read.SchemaObject.Kind;
import io.sluice.spi.read.SchemaObject;
import io.sluice.spi.read.SchemaObjects;
import io.sluice.spi.write.LoadPlan;
import io.sluice.spi.write.LoadRequest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * A source schema's objects beyond its tables ({@code objects: all}), carried by one stream of the run (the first
 * planned of the schema's tables): once every stream is done, in one transaction that also writes their mark, so a
 * crash leaves all of them or none, and triggers never fire on the copied rows. Each is created only where it is
 * missing (a fresh run after a finished one finds them); materialized views are filled after, from the loaded tables.
 */
public final class CarriedObjects {
    /** The mark of the transaction that created them. */
    static final String CREATED = "objects.created";

    private final PostgresConnections connections;
    private final PostgresLedgerStore ledger;
    private final SchemaObjects source;
    private final SchemaObjects.Contents contents;
    /** Who owns the created objects and what they grant ({@code owners:}, {@code privileges:}). */
    private final Access access;
    /** Whether the run creates the objects (not {@code --data-only}). */
    private final boolean creates;
    /** Whether the run fills the materialized views (not {@code --schema-only}, which copies no rows). */
    private final boolean fills;
    /** {@code publications: copy}: the schema's publications are carried too. */
    private final boolean publications;
    /** What comes before the tables ({@link #early()}), decided from the contents. */
    private final Early early;
    /** Whether this process created {@link #early} (guarded by this). */
    private boolean earlyCreated;
    /** Whether this process dropped the carried triggers the target had ({@link #holdTriggers}; guarded by this). */
    private boolean triggersHeld;
    /** What {@link #plan} found carriable: each object whose tables the run copies. */
    private volatile List<SchemaObject> carried = List.of();

    public CarriedObjects(PostgresConnections connections, PostgresLedgerStore ledger, SchemaObjects source,
                          SchemaObjects.Contents contents, LoadRequest.Scope scope, Access access,
                          boolean publications) {
        this.connections = requireNonNull(connections, "connections is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.source = requireNonNull(source, "source is null");
        this.contents = requireNonNull(contents, "contents is null");
        this.creates = requireNonNull(scope, "scope is null") != LoadRequest.Scope.DATA_ONLY;
        this.fills = scope != LoadRequest.Scope.SCHEMA_ONLY;
        this.access = requireNonNull(access, "access is null");
        this.publications = publications;
        this.early = creates ? new Early(this, earlyOf(contents.objects())) : Early.NONE;
    }

    /**
     * Refuses (PG240) roles the schema's policies name that the target server lacks: at planning, so {@code lint
     * --connect} says so too (a policy on a table the run does not copy counts as well). The extensions the objects
     * use are {@link CarriedExtensions}'.
     */
    public void checked() throws ConnectorException {
        Set<String> roles = new TreeSet<>();
        contents.objects().forEach(o -> roles.addAll(o.roles()));
        List<String> missing = ServerRoles.missing(roles, "the policies of schema " + source.schema(),
                connections);
        if (!missing.isEmpty()) {
            throw new ConnectorException(ErrorKind.PREFLIGHT, PostgresCode.PG240, "objects: all: the policies of "
                    + "schema " + SqlQuote.identifier(source.schema()) + " name roles this server does not have: "
                    + String.join(", ", missing), "create them on the target server first (e.g. CREATE ROLE "
                    + SqlQuote.identifier(missing.getFirst()) + "; roles belong to the server, Sluice does not create "
                    + "them), or set objects: tables");
        }
    }

    /** Whether the schema has triggers, which would fire on the rows a change apply writes. */
    public boolean hasTriggers() {
        return contents.objects().stream().anyMatch(o -> o.kind() == Kind.TRIGGER);
    }

    /**
     * Which objects are carried (those whose tables are among the run's {@code copies}, by source relation key, or
     * are carried objects themselves), their statements for the plan, and what is not carried.
     */
    public LoadPlan.AcrossStreams plan(Map<String, String> copies) throws ConnectorException {
        Set<String> available = new HashSet<>(copies.keySet());
        List<SchemaObject> objects = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (SchemaObject object : contents.objects()) {
            if (object.kind() == Kind.PUBLICATION && !publications) {
                notes.add("not carried: publication " + object.name() + " (publications: copy carries it)");
            } else if (available.containsAll(object.uses())) {
                objects.add(object);
                available.add(object.key());
            } else {
                notes.add("not carried: " + object.kind().label() + " " + object.name() + ", which uses a table or "
                        + "object this run does not copy");
            }
        }
        carried = List.copyOf(objects);
        List<String> statements = new ArrayList<>();
        if (creates) {
            objects.forEach(o -> statements.addAll(statementsOf(o)));
        }
        if (fills) {
            objects.stream().filter(o -> o.kind() == Kind.MATERIALIZED_VIEW)
                    .forEach(o -> statements.add(refresh(o)));
        }
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        objects.stream().filter(o -> o.kind() != Kind.SCHEMA).forEach(o -> counts.merge(o.kind(),
                o.kind() == Kind.TYPES ? o.statements().size() : 1, Integer::sum));
        List<String> summary = new ArrayList<>();
        counts.forEach((kind, n) -> summary.add(n + " " + (n == 1 ? kind.label()
                : kind.label().endsWith("x") ? kind.label() + "es"
                : kind.label().endsWith("y") ? kind.label().substring(0, kind.label().length() - 1) + "ies"
                : kind.label() + "s")));
        notes.addFirst("objects: all: schema " + SqlQuote.identifier(source.schema()) + "'s "
                + (summary.isEmpty() ? "objects (none beyond its tables)" : String.join(", ", summary))
                + ", created where missing once every stream is done, in one transaction; materialized views "
                + "filled from the loaded tables; triggers created after the load, so they do not fire on the "
                + "copied rows (those the target's tables have already, from an earlier run, are dropped before the "
                + "first stream and created again with the rest)");
        if (!creates) {
            notes.add("--data-only: the schema's objects are not created; the materialized views that exist are "
                    + "filled after the load; triggers on the tables fire on the copied rows (as pg_restore "
                    + "--data-only without --disable-triggers)");
        } else if (!fills) {
            notes.add("--schema-only: the materialized views are created empty (a run with the rows fills them)");
        }
        notes.addAll(contents.notCarried());
        return new LoadPlan.AcrossStreams(List.of(), statements, notes);
    }

    /**
     * What comes before the schema's tables, as in a pg_dump restore: its types, and its functions that need no
     * relation (one that reads a table in a standard SQL body, or takes or returns a table's row type, comes after),
     * each after the functions it calls. A table's default, check or index may call them, and a check runs during
     * the copy.
     */
    public Early early() {
        return early;
    }

    private static List<SchemaObject> earlyOf(List<SchemaObject> objects) {
        Set<String> schemaFunctions = new HashSet<>();
        objects.stream().filter(o -> o.kind() == Kind.FUNCTION).forEach(o -> schemaFunctions.add(o.key()));
        Set<String> kept = new HashSet<>();
        List<SchemaObject> early = new ArrayList<>();
        for (SchemaObject object : objects) { // in order: each after what it uses
            boolean callable = object.kind() == Kind.FUNCTION || object.kind() == Kind.OPERATOR;
            boolean textSearch = object.kind() == Kind.TEXT_SEARCH_DICTIONARY
                    || object.kind() == Kind.TEXT_SEARCH_CONFIGURATION; // an index or a default may name one
            if (object.kind() == Kind.SCHEMA || object.kind() == Kind.TYPES || textSearch
                    || callable && object.uses().stream()
                    .allMatch(u -> u.startsWith("proc:") && (!schemaFunctions.contains(u) || kept.contains(u)))) {
                early.add(object);
                kept.add(object.key());
            }
        }
        return early;
    }

    /** What {@link #early()} chose, created before the schema's first table: in order, each only where missing. */
    public record Early(CarriedObjects carrier, List<SchemaObject> objects) {
        public static final Early NONE = new Early(null, List.of());

        public Early {
            objects = List.copyOf(objects);
        }

        /** The functions' signatures (as {@code regprocedure} prints them), which the table may call. */
        public Set<String> signatures() {
            Set<String> signatures = new HashSet<>();
            objects.stream().filter(o -> o.kind() == Kind.FUNCTION).forEach(o -> signatures.add(o.identity()));
            return signatures;
        }

        /**
         * Once per process, before the first table of the schema is created: in one transaction under the schema's
         * objects lock (two processes of a joined run may both get here); what exists is kept.
         */
        public void create() throws ConnectorException {
            if (!objects.isEmpty()) {
                carrier.createEarly(objects);
            }
        }
    }

    private synchronized void createEarly(List<SchemaObject> objects) throws ConnectorException {
        if (earlyCreated) {
            return;
        }
        String what = "creating the functions of schema " + SqlQuote.identifier(source.schema()) + " before its "
                + "tables";
        LoadTable.inTransaction(connections, ledger, what, (c, tx) -> {
            lockObjects(c);
            boolean schemaMissing;
            try (PreparedStatement p = c.prepareStatement("SELECT to_regnamespace(?) IS NULL")) {
                p.setString(1, SqlQuote.identifier(source.schema()));
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    schemaMissing = rs.getBoolean(1);
                }
            }
            if (schemaMissing) { // objects: all creates a missing schema (given its owner, grants and comment)
                execute(c, what, CreateTable.schemaStatement(source.schema()));
            }
            for (SchemaObject object : objects) {
                if (object.kind() == Kind.SCHEMA && !schemaMissing) {
                    // A schema the target has (public): its owner and grants as the source's, as pg_restore gives them
                    for (String statement : accessOf(object, true)) {
                        execute(c, what, statement);
                    }
                } else if (object.kind() == Kind.SCHEMA || !exists(c, object)) {
                    for (String statement : statementsOf(object)) {
                        execute(c, what, statement);
                    }
                }
            }
        });
        earlyCreated = true;
    }

    /**
     * Before the first stream of a run that creates the objects (or, where the run has no such step, before the
     * carrying stream's load), once per process: the carried triggers the target's tables have already (an earlier
     * run made them) are dropped, so that they do not fire on the copied rows (a full-text trigger would rewrite a
     * column the source has as it is); {@link #finish} creates them again, as every missing object, and so does a
     * resume's or a later run's finish if this one never gets there.
     */
    public synchronized void holdTriggers() throws ConnectorException {
        List<SchemaObject> triggers = carried.stream().filter(o -> o.kind() == Kind.TRIGGER).toList();
        if (!creates || triggers.isEmpty() || triggersHeld) {
            return;
        }
        String what = "dropping the triggers of schema " + SqlQuote.identifier(source.schema()) + " for the load";
        LoadTable.inTransaction(connections, ledger, what, (c, tx) -> {
            lockObjects(c);
            for (SchemaObject trigger : triggers) {
                if (exists(c, trigger)) {
                    execute(c, what, "DROP TRIGGER " + SqlQuote.identifier(trigger.identity()) + " ON "
                            + trigger.table().orElseThrow());
                }
            }
        });
        triggersHeld = true;
    }

    /** Bodies unchecked (as pg_restore), and one process at a time per schema (joined runs, or two specs). */
    private void lockObjects(Connection c) throws SQLException {
        LoadTable.execute(c, "SET LOCAL check_function_bodies = off");
        try (PreparedStatement p = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
            p.setString(1, "sluice objects " + source.schema());
            p.execute();
        }
    }

    /** Once every stream is done: creates what is missing, fills the materialized views, marks it; once. */
    public void finish(LoadMarks marks) throws ConnectorException {
        String what = "creating the objects of schema " + SqlQuote.identifier(source.schema());
        LoadTable.inTransaction(connections, ledger, what, (c, tx) -> {
            if (marks.reading().apply(tx).containsKey(CREATED)) {
                return;
            }
            lockObjects(c);
            for (SchemaObject object : carried) {
                if (creates && !exists(c, object)) {
                    for (String statement : statementsOf(object)) {
                        execute(c, what, statement);
                    }
                }
            }
            for (SchemaObject object : carried) {
                if (fills && object.kind() == Kind.MATERIALIZED_VIEW && (creates || exists(c, object))) {
                    execute(c, what, refresh(object));
                }
            }
            marks.writing(CREATED, java.time.Instant.now().toString()).apply(tx);
        });
    }

    /** One statement of the objects' transaction; its failure names it. */
    private void execute(Connection c, String what, String statement) throws ConnectorException {
        try {
            LoadTable.execute(c, statement);
        } catch (SQLException e) {
            throw connections.errors().translate(e, PostgresErrors.Phase.COPY, what + " (" + firstLine(statement)
                    + ")");
        }
    }

    /**
     * Who owns the created objects and what they grant.
     *
     * @param ownerByKey     the target role each object goes to, by key ({@code owners:}); none: the loading user
     *                       keeps what it creates
     * @param copyPrivileges {@code privileges: copy}: an object whose source privileges are set gets them
     * @param roles          {@code owners:}: a grant to a mapped role goes to its target role
     */
    public record Access(Map<String, String> ownerByKey, boolean copyPrivileges, Map<String, String> roles) {
        public static final Access NONE = new Access(Map.of(), false, Map.of());

        public Access {
            ownerByKey = Map.copyOf(requireNonNull(ownerByKey, "ownerByKey is null"));
            roles = Map.copyOf(requireNonNull(roles, "roles is null"));
        }
    }

    /** The privileges a routine's grant may carry, and a view's (as a table's). */
    private static final Set<String> ROUTINE_PRIVILEGES = Set.of("EXECUTE");
    private static final Set<String> SCHEMA_PRIVILEGES = Set.of("USAGE", "CREATE");

    /**
     * What creates {@code object}, then gives it to its mapped owner ({@code owners:}) and grants what the source
     * grants ({@code privileges: copy}; a routine's PUBLIC EXECUTE, a default, revoked first as pg_dump does).
     */
    private List<String> statementsOf(SchemaObject object) {
        List<String> access = accessOf(object, false);
        if (access.isEmpty()) {
            return object.statements();
        }
        List<String> statements = new ArrayList<>(object.statements());
        statements.addAll(access);
        return statements;
    }

    /**
     * Gives {@code object} to its mapped owner and grants what the source grants; an object the target had already
     * ({@code existing}: a schema) loses PUBLIC's privileges first, so that it ends with the source's.
     */
    private List<String> accessOf(SchemaObject object, boolean existing) {
        String owner = access.ownerByKey().get(object.key());
        boolean grants = access.copyPrivileges() && object.privileges().isPresent();
        if (owner == null && !grants) {
            return List.of();
        }
        boolean routine = object.kind() == Kind.FUNCTION || object.kind() == Kind.PROCEDURE
                || object.kind() == Kind.AGGREGATE;
        boolean schema = object.kind() == Kind.SCHEMA;
        List<String> statements = new ArrayList<>();
        if (owner != null) {
            String kind = switch (object.kind()) {
                case FUNCTION -> "FUNCTION ";
                case PROCEDURE -> "PROCEDURE ";
                case AGGREGATE -> "AGGREGATE ";
                case OPERATOR -> "OPERATOR ";
                case TEXT_SEARCH_DICTIONARY -> "TEXT SEARCH DICTIONARY ";
                case TEXT_SEARCH_CONFIGURATION -> "TEXT SEARCH CONFIGURATION ";
                case VIEW -> "VIEW ";
                case MATERIALIZED_VIEW -> "MATERIALIZED VIEW ";
                case PUBLICATION -> "PUBLICATION ";
                case SCHEMA -> "SCHEMA ";
                default -> throw new IllegalStateException(object.kind() + " has no owner of its own");
            };
            statements.add("ALTER " + kind + object.identity() + " OWNER TO " + SqlQuote.identifier(owner));
        }
        if (grants) {
            String on = (routine ? "ROUTINE " : schema ? "SCHEMA " : "TABLE ") + object.identity();
            if (routine || existing) {
                statements.add("REVOKE ALL ON " + on + " FROM PUBLIC");
            }
            Set<String> known = routine ? ROUTINE_PRIVILEGES : schema ? SCHEMA_PRIVILEGES
                    : CreatedDefinition.PRIVILEGES;
            for (TableDefinition.Grant grant : object.privileges().get()) {
                if (known.contains(grant.privilege())) {
                    statements.add("GRANT " + grant.privilege() + " ON " + on + " TO " + grant.grantee()
                            .map(g -> SqlQuote.identifier(access.roles().getOrDefault(g, g))).orElse("PUBLIC")
                            + (grant.grantable() ? " WITH GRANT OPTION" : ""));
                }
            }
        }
        return statements;
    }

    private static String refresh(SchemaObject view) {
        return "REFRESH MATERIALIZED VIEW " + view.identity();
    }

    /** Whether the target has the object already (by name: a fresh run after a finished one). */
    private static boolean exists(Connection c, SchemaObject object) throws SQLException {
        String query = switch (object.kind()) {
            case FUNCTION, PROCEDURE, AGGREGATE -> "SELECT to_regprocedure(?) IS NOT NULL";
            case OPERATOR -> "SELECT to_regoperator(?) IS NOT NULL";
            // quoted as quote_ident quotes them, as the source read them
            case TEXT_SEARCH_DICTIONARY -> "SELECT EXISTS (SELECT 1 FROM pg_ts_dict d JOIN pg_namespace n "
                    + "ON n.oid = d.dictnamespace WHERE quote_ident(n.nspname) || '.' || quote_ident(d.dictname) = ?)";
            case TEXT_SEARCH_CONFIGURATION -> "SELECT EXISTS (SELECT 1 FROM pg_ts_config g JOIN pg_namespace n "
                    + "ON n.oid = g.cfgnamespace WHERE quote_ident(n.nspname) || '.' || quote_ident(g.cfgname) = ?)";
            case VIEW, MATERIALIZED_VIEW -> "SELECT to_regclass(?) IS NOT NULL";
            case TRIGGER -> "SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(?) AND tgname = ?)";
            case RULE -> "SELECT EXISTS (SELECT 1 FROM pg_rewrite WHERE ev_class = to_regclass(?) AND rulename = ?)";
            case POLICY -> "SELECT EXISTS (SELECT 1 FROM pg_policy WHERE polrelid = to_regclass(?) AND polname = ?)";
            // quoted as SqlQuote quotes it, always
            case PUBLICATION -> "SELECT EXISTS (SELECT 1 FROM pg_publication "
                    + "WHERE '\"' || replace(pubname, '\"', '\"\"') || '\"' = ?)";
            case SCHEMA -> "SELECT to_regnamespace(?) IS NOT NULL"; // made with the first table, given then
            case PARTITION_INDEX -> "SELECT to_regclass(?) IS NOT NULL";
            case PARTITION_CONSTRAINT -> "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass(?) "
                    + "AND quote_ident(conname) = ?)";
            case ROW_SECURITY, TYPES -> null; // enabling it again changes nothing; each type's block skips it
        };
        if (query == null) {
            return false;
        }
        try (PreparedStatement p = c.prepareStatement(query)) {
            if (object.table().isPresent()) {
                p.setString(1, object.table().get());
                p.setString(2, object.identity());
            } else {
                p.setString(1, object.identity());
            }
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static String firstLine(String statement) {
        String line = statement.strip().lines().findFirst().orElse("");
        return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    }
}

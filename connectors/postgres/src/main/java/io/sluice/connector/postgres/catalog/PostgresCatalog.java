package io.sluice.connector.postgres.catalog;

import io.sluice.spi.data.Column;
import io.sluice.spi.data.EarlierRows;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.sluice.connector.postgres.catalog.PostgresCode.PG203;
import static java.util.Objects.requireNonNull;

/** Catalog look-ups on one connection: tables, their columns, types and privileges. */
public final class PostgresCatalog {
    /** OIDs below this are assigned by initdb and equal on every server; above, each server numbers its own. */
    public static final long FIRST_NORMAL_OID = 16384;

    private final Connection connection;

    /** A column's type OID: OIDs are unsigned 32-bit, the SPI keeps them in an int. */
    public static long oid(Column column) {
        return Integer.toUnsignedLong(column.copyTypeOid());
    }

    public PostgresCatalog(Connection connection) {
        this.connection = requireNonNull(connection, "connection is null");
    }

    public Connection connection() {
        return connection;
    }

    public int serverVersionNum() throws SQLException {
        SessionFacts facts = SessionFacts.of(connection);
        Integer known = facts.serverVersionNum;
        if (known != null) {
            return known;
        }
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int")) {
            rs.next();
            facts.serverVersionNum = rs.getInt(1);
            return rs.getInt(1);
        }
    }

    /**
     * A key equal for one relation however the server is reached (host spellings, URLs, connection entries): the
     * postmaster's start time and port stand for the server (readable by any user, unlike the system identifier),
     * then the database and relation OIDs.
     */
    public String relationKey(long relationOid) throws SQLException {
        return databaseKey() + ":" + relationOid;
    }

    /** The database as {@link #relationKey} names it: equal for the same database of the same server run. */
    public String databaseKey() throws SQLException {
        SessionFacts facts = SessionFacts.of(connection);
        String database = facts.databaseKey;
        if (database == null) {
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_postmaster_start_time()::text, current_setting('port'), "
                         + "(SELECT oid FROM pg_database WHERE datname = current_database())")) {
                rs.next();
                database = "postgres:" + rs.getString(1) + ":" + rs.getString(2) + ":" + rs.getLong(3);
                facts.databaseKey = database;
            }
        }
        return database;
    }

    /**
     * The tables (plain, partitioned, foreign, materialized views) {@code fromClause} reads, views expanded: planning
     * it ({@code EXPLAIN}) locks each relation the query touches, which pg_locks then lists. Runs in a transaction of
     * its own that is rolled back; the query itself does not run.
     */
    public List<ResolvedTable> tablesRead(String fromClause) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            // EXPLAIN plans (and so locks every relation) without running anything, not even a writable CTE
            try (Statement p = connection.createStatement()) {
                p.executeQuery("EXPLAIN SELECT 1 FROM " + fromClause + " LIMIT 0").close();
            }
            List<ResolvedTable> tables = new ArrayList<>();
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_locks l "
                         + "JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace "
                         + "WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' "
                         + "AND c.relkind IN ('r', 'p', 'f', 'm') AND n.nspname NOT IN ('pg_catalog', "
                         + "'information_schema') ORDER BY n.nspname, c.relname")) {
                while (rs.next()) {
                    tables.add(new ResolvedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                            rs.getString(4).charAt(0)));
                }
            }
            return tables;
        } finally {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        }
    }

    /** Resolves {@code name} as PostgreSQL would in a query (search_path when unqualified). */
    public Optional<ResolvedTable> resolveTable(QualifiedName name) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_class c "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(?)")) {
            p.setString(1, name.quoted());
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new ResolvedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getString(4).charAt(0)));
            }
        }
    }

    /** A table as {@link #resolveTable(QualifiedName)} finds it, and whether this user holds a privilege on it. */
    public record Privileged(ResolvedTable table, boolean granted) {
        public Privileged {
            requireNonNull(table, "table is null");
        }
    }

    /** {@link #resolveTable(QualifiedName)} and {@link #hasTablePrivilege} of {@code privilege}, in one round trip. */
    public Optional<Privileged> resolveTable(QualifiedName name, String privilege) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT c.oid, n.nspname, c.relname, c.relkind, has_table_privilege(c.oid, ?) FROM pg_class c "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(?)")) {
            p.setString(1, privilege);
            p.setString(2, name.quoted());
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Privileged(new ResolvedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getString(4).charAt(0)), rs.getBoolean(5)));
            }
        }
    }

    String searchPath() throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('search_path')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Columns in table order, with generation (STORED or VIRTUAL, as the server reports it) and identity. */
    public List<Column> columns(long tableOid) throws SQLException {
        return columns(List.of(tableOid)).getOrDefault(tableOid, List.of());
    }

    /** {@link #columns(long)} of several tables in one round trip, by table OID. */
    public java.util.Map<Long, List<Column>> columns(List<Long> tableOids) throws SQLException {
        java.util.Map<Long, List<Column>> columns = new java.util.HashMap<>();
        if (tableOids.isEmpty()) {
            return columns;
        }
        boolean hasGenerated = serverVersionNum() >= 120000;
        // A column added with a non-volatile default keeps it as the value of the rows from before (PostgreSQL 11+).
        String sql = "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.atttypid, NOT a.attnotnull, "
                + (hasGenerated ? "a.attgenerated" : "''") + ", a.attidentity, a.attrelid, "
                + (serverVersionNum() >= 110000 ? "CASE WHEN a.atthasmissing THEN (a.attmissingval::text::text[])[1] "
                + "END, a.atthasdef AND NOT a.atthasmissing" : "NULL, a.atthasdef") + " "
                + "FROM pg_attribute a WHERE a.attrelid = ANY (?::oid[]) AND a.attnum > 0 AND NOT a.attisdropped "
                + "ORDER BY a.attrelid, a.attnum";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setArray(1, connection.createArrayOf("int8", tableOids.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    Column.Generation generation = generation(rs.getString(5), rs.getString(6));
                    Column column = new Column(rs.getString(1), rs.getString(2), (int) rs.getLong(3),
                            rs.getBoolean(4), generation);
                    String earlier = rs.getString(8);
                    // A default that is no missing value: computed per row (volatile), or written into every row by
                    // a rewrite since the column was added (ALTER ... TYPE, VACUUM FULL), or set after it was added.
                    columns.computeIfAbsent(rs.getLong(7), k -> new ArrayList<>()).add(earlier != null
                            ? column.withEarlierRows(EarlierRows.value(earlier))
                            : rs.getBoolean(9) ? column.withEarlierRows(EarlierRows.PER_ROW)
                            : column);
                }
            }
        }
        return columns;
    }

    /** pg_attribute.attgenerated ('s' STORED, 'v' VIRTUAL since 18) before attidentity ('a'/'d'). */
    private static Column.Generation generation(String generated, String identity) {
        if (generated != null && !generated.isEmpty()) {
            return switch (generated.charAt(0)) {
                case 's' -> Column.Generation.STORED;
                case 'v' -> Column.Generation.VIRTUAL;
                // A kind a later server adds: computed all the same, so never written; named as the closest.
                default -> Column.Generation.STORED;
            };
        }
        return identity != null && !identity.isEmpty() ? Column.Generation.IDENTITY : Column.Generation.NONE;
    }

    public boolean hasTablePrivilege(long tableOid, String privilege) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT has_table_privilege(?::oid, ?)")) {
            p.setLong(1, tableOid);
            p.setString(2, privilege);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Columns the current user lacks {@code privilege} on (empty when the table grant or column grants cover all). */
    public List<String> columnsLackingPrivilege(long tableOid, String privilege) throws SQLException {
        List<String> lacking = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped "
                        + "AND NOT has_column_privilege(a.attrelid, a.attnum, ?) ORDER BY a.attnum")) {
            p.setLong(1, tableOid);
            p.setString(2, privilege);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    lacking.add(rs.getString(1));
                }
            }
        }
        return lacking;
    }

    public String currentUser() throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** {@code format_type(oid, NULL)}: the type's name without modifiers, qualified when not on the search_path. */
    public String typeName(long typeOid) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT format_type(?::oid, NULL)")) {
            p.setLong(1, typeOid);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /**
     * The type's name with the modifier a query's result column has ({@code numeric(10,2)}, {@code timestamp(0) ...}):
     * {@code pg_typeof} and {@link #typeName} drop it, and a target column's check of what a value loses needs it.
     * {@code column} is the 1-based column of {@code described}, a statement's metadata (Parse and Describe only).
     */
    public String typeName(long typeOid, java.sql.ResultSetMetaData described, int column) throws SQLException {
        int typmod = -1;
        if (typeOid == 1700) { // numeric: PgJDBC reports precision 0 for an unconstrained one
            int precision = described.getPrecision(column);
            if (precision > 0) {
                typmod = (precision << 16 | described.getScale(column)) + 4;
            }
        } else if (typeOid == 1114 || typeOid == 1184 || typeOid == 1083 || typeOid == 1266) {
            int scale = described.getScale(column); // 6, the default, when it has none
            typmod = scale >= 0 && scale < 6 ? scale : -1;
        }
        if (typmod < 0) {
            return typeName(typeOid);
        }
        try (PreparedStatement p = connection.prepareStatement("SELECT format_type(?::oid, ?)")) {
            p.setLong(1, typeOid);
            p.setInt(2, typmod);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** The OID of a type written as SQL text, e.g. {@code character varying(10)} or {@code myschema.mood}. */
    public Optional<Long> typeOid(String typeText) throws SQLException {
        return type(typeText).map(SessionFacts.KnownType::oid);
    }

    /** Whether the server has the collation written (qualified, quoted where needed) as {@code name}. */
    public boolean collationExists(String name) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT to_regcollation(?) IS NOT NULL")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** The type written as SQL text, if the server has one by that name; built-in ones asked once per session. */
    public Optional<SessionFacts.KnownType> type(String typeText) throws SQLException {
        SessionFacts facts = SessionFacts.of(connection);
        Optional<SessionFacts.KnownType> known = facts.builtInType(typeText);
        if (known.isPresent()) {
            return known;
        }
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT t.oid, t.typtype = 'p' FROM pg_type t WHERE t.oid = to_regtype(?)")) {
            p.setString(1, typeText);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                SessionFacts.KnownType type = new SessionFacts.KnownType(rs.getLong(1), rs.getBoolean(2));
                if (type.oid() < FIRST_NORMAL_OID) {
                    facts.builtInTypes.put(typeText, type);
                }
                return Optional.of(type);
            }
        }
    }

    /** The type a domain stands on (through nested domains), or the type itself. */
    public long baseType(long typeOid) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "WITH RECURSIVE d(oid, base) AS (SELECT oid, typbasetype FROM pg_type WHERE oid = ?::oid "
                        + "UNION ALL SELECT t.oid, t.typbasetype FROM pg_type t JOIN d ON t.oid = d.base) "
                        + "SELECT oid FROM d WHERE base = 0")) {
            p.setLong(1, typeOid);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getLong(1) : typeOid;
            }
        }
    }

    /**
     * The result types of {@code expressions} evaluated over {@code fromClause}, found without reading a row: a
     * LEFT JOIN of one row onto the empty {@code LIMIT 0} result yields NULLs of the right types for pg_typeof.
     */
    public List<Long> expressionTypes(List<String> expressions, String fromClause) throws SQLException {
        StringBuilder select = new StringBuilder("SELECT ");
        StringBuilder inner = new StringBuilder("SELECT ");
        for (int i = 0; i < expressions.size(); i++) {
            if (i > 0) {
                select.append(", ");
                inner.append(", ");
            }
            select.append("pg_typeof(s.e").append(i).append(")::oid");
            inner.append(expressions.get(i)).append(" AS e").append(i);
        }
        String sql = select + " FROM (SELECT 1) AS one LEFT JOIN (" + inner + " FROM " + fromClause
                + " LIMIT 0) AS s ON true";
        List<Long> types = new ArrayList<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            for (int i = 1; i <= expressions.size(); i++) {
                types.add(rs.getLong(i));
            }
        }
        return types;
    }

    /** The refusal of a table {@code name} that does not resolve, with the search_path a name without schema met. */
    public ConnectorException missingTable(QualifiedName name) {
        String searchPath;
        try {
            searchPath = searchPath();
        } catch (SQLException e) {
            searchPath = "?";
        }
        return new ConnectorException(ErrorKind.PREFLIGHT, PG203, "table "
                + name.quoted() + " does not exist" + (name.schema().isEmpty() ? " on the search_path ("
                + searchPath + ")" : ""), "check the name: unquoted names fold to lower case, write \"MixedCase\" "
                + "in double quotes, and qualify it with its schema");
    }

    /** The refusal of {@code privilege} on {@code table}, which the user lacks, with the GRANT that fixes it. */
    public ConnectorException lacking(ResolvedTable table, String privilege) throws SQLException {
        String user = currentUser();
        return new ConnectorException(ErrorKind.PREFLIGHT, PG203, "user " + user + " may not " + privilege + " "
                + table.quoted() + " (no " + privilege + " privilege)", "GRANT " + privilege + " ON " + table.quoted()
                + " TO " + SqlQuote.identifier(user));
    }
}

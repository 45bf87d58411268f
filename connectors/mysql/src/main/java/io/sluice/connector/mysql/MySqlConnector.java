package io.sluice.connector.mysql;

import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.SourceObject;
import io.sluice.spi.connector.Sources;
import io.sluice.spi.error.ConnectorException;
import io.sluice.spi.error.ErrorKind;
import io.sluice.spi.read.Source;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A {@code type: mysql} connection: a source of tables and queries of a MySQL or MariaDB server. */
final class MySqlConnector implements Connector {
    private final MySqlSettings settings;
    private final Optional<String> database;

    MySqlConnector(MySqlSettings settings, Optional<String> database) {
        this.settings = requireNonNull(settings, "settings is null");
        this.database = requireNonNull(database, "database is null");
    }

    @Override
    public java.util.Optional<Sources> sources() {
        return java.util.Optional.of(this::source);
    }

    /** The source side of a stream, from its validated {@code source:} options. */
    public Source source(Options sourceOptions) throws ConnectorException {
        requireNonNull(sourceOptions, "sourceOptions is null");
        Optional<String> table = sourceOptions.find(MySqlOptions.TABLE);
        Optional<String> query = sourceOptions.find(MySqlOptions.QUERY);
        if (table.isPresent() == query.isPresent()) {
            throw new ConnectorException(ErrorKind.INVALID_SPEC, MySqlCode.MY001, "a mysql source needs exactly one "
                    + "of table and query", "set table: to a table (or database.table), or query: to a SELECT");
        }
        return new MySqlSource(settings, database, table, query);
    }

    /**
     * A {@code table} pattern's base tables (views left out), those an {@code exclude} pattern matches left out, in
     * the pattern's database (the connection's when it names none), each with its primary key and size.
     */
    @Override
    public Optional<java.util.List<SourceObject>> expandSource(Options sourceOptions)
            throws ConnectorException {
        requireNonNull(sourceOptions, "sourceOptions is null");
        Optional<String> table = sourceOptions.find(MySqlOptions.TABLE);
        if (table.isEmpty() || !(table.get().contains("*") || table.get().contains("?"))) {
            return Optional.empty();
        }
        int dot = table.get().indexOf('.');
        Optional<String> schema = dot > 0 ? Optional.of(table.get().substring(0, dot)) : database;
        java.util.regex.Pattern include = glob(dot > 0 ? table.get().substring(dot + 1) : table.get());
        java.util.List<String> excludes = sourceOptions.find(MySqlOptions.EXCLUDE).orElse(java.util.List.of());
        java.util.List<SourceObject> objects = new java.util.ArrayList<>();
        try (java.sql.Connection c = settings.connect(); java.sql.PreparedStatement p = c.prepareStatement(
                "SELECT t.TABLE_SCHEMA, t.TABLE_NAME, coalesce(t.DATA_LENGTH, 0) + coalesce(t.INDEX_LENGTH, 0), "
                        + "(SELECT GROUP_CONCAT(k.COLUMN_NAME ORDER BY k.ORDINAL_POSITION SEPARATOR '\\0') FROM "
                        + "information_schema.KEY_COLUMN_USAGE k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND "
                        + "k.TABLE_NAME = t.TABLE_NAME AND k.CONSTRAINT_NAME = 'PRIMARY') FROM "
                        + "information_schema.TABLES t WHERE t.TABLE_SCHEMA = coalesce(?, DATABASE()) AND "
                        + "t.TABLE_TYPE = 'BASE TABLE' ORDER BY t.TABLE_NAME")) {
            p.setString(1, schema.orElse(null));
            try (java.sql.ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    String db = rs.getString(1);
                    String name = rs.getString(2);
                    if (!include.matcher(name).matches() || excluded(excludes, db, name)) {
                        continue;
                    }
                    String keys = rs.getString(4);
                    objects.add(new SourceObject(db + "." + name, sourceOptions
                            .with(MySqlOptions.TABLE, db + "." + name).without(MySqlOptions.EXCLUDE),
                            java.util.Map.of("schema", db, "table", name), keys == null ? java.util.List.of()
                            : java.util.List.of(keys.split("\\x00")), rs.getLong(3)));
                }
            }
        } catch (java.sql.SQLException e) {
            throw MySqlErrors.translate(e, "cannot list the tables of " + table.get(), settings.redactor());
        }
        return Optional.of(objects);
    }

    /** An exclude pattern with a database matches there only; without one, in the pattern's database. */
    private static boolean excluded(java.util.List<String> excludes, String db, String name) {
        for (String exclude : excludes) {
            int dot = exclude.indexOf('.');
            if (dot > 0 ? glob(exclude.substring(0, dot)).matcher(db).matches()
                    && glob(exclude.substring(dot + 1)).matcher(name).matches() : glob(exclude).matcher(name)
                    .matches()) {
                return true;
            }
        }
        return false;
    }

    /** {@code *} any run of characters, {@code ?} one; the rest literal. */
    static java.util.regex.Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            regex.append(switch (ch) {
                case '*' -> ".*";
                case '?' -> ".";
                default -> java.util.regex.Pattern.quote(String.valueOf(ch));
            });
        }
        return java.util.regex.Pattern.compile(regex.toString());
    }

    @Override
    public void close() {
    }
}

package io.sluice.bench;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** Where one PostgreSQL database answers, in the forms JDBC, psql and DuckDB's postgres_scanner each want. */
public record PgEndpoint(String host, int port, String database, String user, String password) {
    public PgEndpoint {
        requireNonNull(host, "host is null");
        requireNonNull(database, "database is null");
        requireNonNull(user, "user is null");
        requireNonNull(password, "password is null");
    }

    /**
     * Parses {@code jdbc:postgresql://host:port/db?user=u&password=p} (user and password optional: {@code postgres}
     * and empty). Other URL parameters are not supported: the harness hands the endpoint to psql and DuckDB too.
     */
    public static PgEndpoint parse(String jdbcUrl) {
        requireNonNull(jdbcUrl, "jdbcUrl is null");
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("not a jdbc:postgresql:// URL: " + jdbcUrl);
        }
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                query.put(key, value);
            }
        }
        String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        return new PgEndpoint(uri.getHost() == null ? "localhost" : uri.getHost(),
                uri.getPort() < 0 ? 5432 : uri.getPort(), path.isEmpty() ? "postgres" : path,
                query.getOrDefault("user", "postgres"), query.getOrDefault("password", ""));
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), user, password);
    }

    /** The same server, another database. */
    public PgEndpoint withDatabase(String otherDatabase) {
        return new PgEndpoint(host, port, otherDatabase, user, password);
    }

    /** A libpq connection string, as postgres_scanner's ATTACH takes it. */
    public String libpqConnectionString() {
        StringBuilder s = new StringBuilder("host=").append(host).append(" port=").append(port)
                .append(" dbname=").append(database).append(" user=").append(user);
        if (!password.isEmpty()) {
            s.append(" password=").append(password);
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return user + "@" + host + ":" + port + "/" + database; // never the password
    }
}

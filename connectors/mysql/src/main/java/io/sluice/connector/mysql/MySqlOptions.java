package io.sluice.connector.mysql;

import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;

import java.util.Map;

/** The options a {@code type: mysql} connection and its stream sources accept. */
final class MySqlOptions {
    static final Option<String> URL = Option.string("url")
            .describedAs("jdbc:mariadb://host:port/database (or jdbc:mysql://...); or host, port and database.");
    static final Option<String> HOST = Option.string("host").describedAs("Server host name (without url).");
    static final Option<Long> PORT = Option.integer("port").withDefault(3306L).describedAs("Server port.");
    static final Option<String> DATABASE = Option.string("database")
            .describedAs("Database (schema) the tables are in, unless a table names its own.");
    static final Option<String> USER = Option.string("user").describedAs("User name.");
    static final Option<String> PASSWORD = Option.string("password").secret().describedAs("Password.");
    static final Option<String> SSL_MODE = Option.string("ssl-mode").oneOf("disable", "trust", "verify-ca",
                    "verify-full").withDefault("disable")
            .describedAs("TLS: disable, trust (encrypt, any certificate), verify-ca, verify-full (and the host).");
    static final Option<Map<String, String>> PROPERTIES = Option.stringMap("properties")
            .describedAs("More MariaDB Connector/J properties, e.g. serverSslCert.");

    static final Option<String> TABLE = Option.string("table").naming()
            .describedAs("A table: name or database.name; or a pattern (* and ?) for many, e.g. shop.* (one stream "
                    + "per table).");
    static final Option<java.util.List<String>> EXCLUDE = Option.stringList("exclude")
            .describedAs("Patterns of tables a table pattern leaves out, e.g. [tmp_*, shop.audit].");
    static final Option<String> QUERY = Option.string("query").naming().describedAs("Any SELECT.");

    static final OptionSchema CONNECTION = OptionSchema.of(URL, HOST, PORT, DATABASE, USER, PASSWORD, SSL_MODE,
            PROPERTIES);
    static final OptionSchema SOURCE = OptionSchema.of(TABLE, EXCLUDE, QUERY);

    private MySqlOptions() {
    }
}

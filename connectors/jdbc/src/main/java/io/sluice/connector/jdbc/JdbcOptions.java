package io.sluice.connector.jdbc;

import io.sluice.spi.connector.Option;
import io.sluice.spi.connector.OptionSchema;

import java.util.Map;

/** The options a {@code type: jdbc} connection and its stream sources accept. */
final class JdbcOptions {
    static final Option<String> URL = Option.string("url").required()
            .describedAs("The driver's JDBC URL, e.g. jdbc:h2:file:/data/shop or jdbc:sqlserver://host;database=x.");
    static final Option<String> DRIVER = Option.string("driver")
            .describedAs("The driver's class (default: the driver in the plugins folder that accepts the url).");
    static final Option<String> USER = Option.string("user").describedAs("User name.");
    static final Option<String> PASSWORD = Option.string("password").secret().describedAs("Password.");
    static final Option<Map<String, String>> PROPERTIES = Option.stringMap("properties")
            .describedAs("More driver properties.");
    static final Option<Long> FETCH_SIZE = Option.integer("fetch-size").withDefault(4096L)
            .describedAs("Rows the driver is asked to fetch per round trip (a driver that ignores it may buffer).");

    static final Option<String> TABLE = Option.string("table").naming().describedAs("A table, as the database "
            + "names it in SQL (quote it yourself where needed).");
    static final Option<String> QUERY = Option.string("query").naming().describedAs("Any SELECT.");

    static final OptionSchema CONNECTION = OptionSchema.of(URL, DRIVER, USER, PASSWORD, PROPERTIES, FETCH_SIZE);
    static final OptionSchema SOURCE = OptionSchema.of(TABLE, QUERY);

    private JdbcOptions() {
    }
}

package io.sluice.connector.mysql;

import io.sluice.spi.connector.ConnectionConfig;
import io.sluice.spi.connector.Connector;
import io.sluice.spi.connector.ConnectorFactory;
import io.sluice.spi.connector.OptionSchema;
import io.sluice.spi.connector.Options;
import io.sluice.spi.connector.Problem;
import io.sluice.spi.connector.Role;
import io.sluice.spi.connector.SourceCapabilities;
import io.sluice.spi.connector.StreamShape;
import io.sluice.spi.read.DistributionMethod;
import io.sluice.spi.read.Source;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** {@code type: mysql}: MySQL and MariaDB tables and queries as sources, read through MariaDB Connector/J. */
public final class MySqlConnectorFactory implements ConnectorFactory {
    /** Readers share one moment (snapshot transactions started together); the driver is plain Java. */
    static final SourceCapabilities SOURCE_CAPABILITIES = new SourceCapabilities(EnumSet.of(DistributionMethod.NONE,
            DistributionMethod.RANGE, DistributionMethod.NTILE, DistributionMethod.MODULO,
            DistributionMethod.DATA_DRIVEN), Set.of(DistributionMethod.RANGE, DistributionMethod.NTILE), true,
            Source.ThreadModel.VIRTUAL, Set.of(), true);

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public String description() {
        return "MySQL and MariaDB source: tables and queries, one snapshot across readers";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE);
    }

    @Override
    public OptionSchema connectionOptions() {
        return MySqlOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return MySqlOptions.SOURCE;
    }

    @Override
    public SourceCapabilities sourceCapabilities() {
        return SOURCE_CAPABILITIES;
    }

    @Override
    public List<Problem> lintConnection(Options connectionOptions) {
        requireNonNull(connectionOptions, "connectionOptions is null");
        List<Problem> problems = new ArrayList<>();
        if (!connectionOptions.isSet(MySqlOptions.URL) && !connectionOptions.isSet(MySqlOptions.HOST)) {
            problems.add(Problem.error(MySqlCode.MY002, "url", "a mysql connection needs url or host",
                    "set url: jdbc:mariadb://host:3306/database, or host: and database:"));
        }
        return problems;
    }

    @Override
    public List<Problem> lintStream(StreamShape stream) {
        if (stream.role() != Role.SOURCE) {
            return List.of();
        }
        Options options = stream.options();
        if (options.isSet(MySqlOptions.TABLE) == options.isSet(MySqlOptions.QUERY)) {
            return List.of(Problem.error(MySqlCode.MY001, options.isSet(MySqlOptions.TABLE) ? "query" : "table",
                    "a mysql source needs exactly one of table and query",
                    "set table: to a table (or database.table), or query: to a SELECT"));
        }
        return List.of();
    }

    @Override
    public Connector create(ConnectionConfig config) {
        requireNonNull(config, "config is null");
        return new MySqlConnector(MySqlSettings.from(config), config.options().find(MySqlOptions.DATABASE));
    }
}

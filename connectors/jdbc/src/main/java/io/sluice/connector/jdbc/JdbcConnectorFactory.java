package io.sluice.connector.jdbc;

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

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** {@code type: jdbc}: any database with a JDBC driver, the driver's jar in the plugins folder. */
public final class JdbcConnectorFactory implements ConnectorFactory {
    /** No snapshot to share; a driver may sit in native code (JNI), so readers run on platform threads. */
    static final SourceCapabilities SOURCE_CAPABILITIES = new SourceCapabilities(EnumSet.of(DistributionMethod.NONE,
            DistributionMethod.RANGE, DistributionMethod.NTILE, DistributionMethod.MODULO,
            DistributionMethod.DATA_DRIVEN), Set.of(), false, Source.ThreadModel.PLATFORM);

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public String description() {
        return "Any database with a JDBC driver (its jar in the plugins folder): tables and queries, no shared snapshot";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE);
    }

    @Override
    public OptionSchema connectionOptions() {
        return JdbcOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return JdbcOptions.SOURCE;
    }

    @Override
    public SourceCapabilities sourceCapabilities() {
        return SOURCE_CAPABILITIES;
    }

    @Override
    public List<Problem> lintStream(StreamShape stream) {
        if (stream.role() != Role.SOURCE) {
            return List.of();
        }
        Options options = stream.options();
        if (options.isSet(JdbcOptions.TABLE) == options.isSet(JdbcOptions.QUERY)) {
            return List.of(Problem.error(JdbcCode.JDBC001, options.isSet(JdbcOptions.TABLE) ? "query" : "table",
                    "a jdbc source needs exactly one of table and query", "set table: or query:"));
        }
        return List.of();
    }

    @Override
    public Connector create(ConnectionConfig config) {
        requireNonNull(config, "config is null");
        return new JdbcConnector(new JdbcDatabase(config));
    }
}

package io.sluice.connector.postgres;

import io.sluice.spi.ConnectionConfig;
import io.sluice.spi.Connector;
import io.sluice.spi.ConnectorFactory;
import io.sluice.spi.DistributionMethod;
import io.sluice.spi.OptionSchema;
import io.sluice.spi.Role;

import java.util.EnumSet;
import java.util.Set;

public final class PostgresConnectorFactory implements ConnectorFactory {
    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String description() {
        return "PostgreSQL source (table or query) and target (binary COPY), or an embedded local server";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE, Role.TARGET);
    }

    @Override
    public OptionSchema connectionOptions() {
        return PostgresOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return PostgresOptions.SOURCE;
    }

    @Override
    public OptionSchema targetOptions() {
        return PostgresOptions.TARGET;
    }

    @Override
    public Set<DistributionMethod> distributionMethods() {
        return EnumSet.allOf(DistributionMethod.class);
    }

    @Override
    public Connector create(ConnectionConfig config) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}

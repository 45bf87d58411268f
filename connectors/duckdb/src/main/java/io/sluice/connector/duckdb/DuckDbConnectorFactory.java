package io.sluice.connector.duckdb;

import io.sluice.spi.ConnectionConfig;
import io.sluice.spi.Connector;
import io.sluice.spi.ConnectorFactory;
import io.sluice.spi.DistributionMethod;
import io.sluice.spi.OptionSchema;
import io.sluice.spi.Role;

import java.util.EnumSet;
import java.util.Set;

public final class DuckDbConnectorFactory implements ConnectorFactory {
    @Override
    public String name() {
        return "duckdb";
    }

    @Override
    public String description() {
        return "DuckDB source: any DuckDB query, or Parquet/CSV/JSON files, local or on S3";
    }

    @Override
    public Set<Role> roles() {
        return EnumSet.of(Role.SOURCE);
    }

    @Override
    public OptionSchema connectionOptions() {
        return DuckDbOptions.CONNECTION;
    }

    @Override
    public OptionSchema sourceOptions() {
        return DuckDbOptions.SOURCE;
    }

    @Override
    public Set<DistributionMethod> distributionMethods() {
        return EnumSet.of(DistributionMethod.NONE, DistributionMethod.DATA_DRIVEN, DistributionMethod.RANGE,
                DistributionMethod.MODULO, DistributionMethod.NTILE);
    }

    @Override
    public Connector create(ConnectionConfig config) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}

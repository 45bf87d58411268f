package io.sluice.connector.duckdb;

import io.sluice.spi.read.Distribution;
import io.sluice.spi.read.DistributionMethod;

import java.util.Optional;

class ModuloContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.MODULO, Optional.of("o_custkey"), Optional.empty());
    }
}

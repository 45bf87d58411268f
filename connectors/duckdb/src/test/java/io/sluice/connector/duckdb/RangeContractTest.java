package io.sluice.connector.duckdb;

import io.sluice.spi.Distribution;
import io.sluice.spi.DistributionMethod;

import java.util.Optional;

class RangeContractTest extends OrdersContractBase {
    @Override
    protected Distribution distribution() {
        return new Distribution(DistributionMethod.RANGE, Optional.of("o_orderkey"), Optional.empty());
    }
}
